#pragma once
// The sections of trainyard-bench; each adds its figures to the report.

#include "bench_report.h"

namespace ty::bench {

struct Options {
    bool quick = false;   // fewer steps and repeats, for a smoke run
    int repeats = 3;      // best of N for throughput figures
    QString device = QStringLiteral("cpu");  // training throughput on "cpu" or "cuda" (--device)
};

void benchTraining(const Options &options, Report &report);
void benchData(const Options &options, Report &report);
void benchAugmentationPreview(const Options &options, Report &report);  // bench_augmentation.cpp, in "data"
void benchLogging(const Options &options, Report &report);
void benchValidation(const Options &options, Report &report);
void benchStreaming(const Options &options, Report &report);
void benchStartup(const Options &options, Report &report);
void benchWholeProcess(const Options &options, Report &report);
void benchRunList(const Options &options, Report &report);
void benchBundles(const Options &options, Report &report);  // bench_bundles.cpp, in "runs" and "bundles"
void benchPredictMemory(const Options &options, Report &report);  // bench_predict_memory.cpp, in "process"
void benchTeamStore(const Options &options, Report &report);      // bench_team.cpp

} // namespace ty::bench
