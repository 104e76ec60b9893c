#pragma once
// The sections of trainyard-bench-gui: latencies of the desktop app's widgets on large inputs. Each adds its
// figures to the report. GUI thread, inside a QApplication.

#include "bench_report.h"

namespace ty::bench {

struct GuiOptions {
    bool quick = false;  // fewer repeats and shorter runs, for a smoke run
};

void benchPlots(const GuiOptions &options, Report &report);        // MetricPlot replots, 1M and 10M points
void benchRunBrowser(const GuiOptions &options, Report &report);   // RunBrowser on 10,000 runs
void benchMetricsCsvExport(const GuiOptions &options, Report &report);  // Export Metrics as CSV, 20 x 10,000 rows
void benchDocumentEditing(const GuiOptions &options, Report &report);  // edit to report, 200 nodes
void benchEventLoopStall(const GuiOptions &options, Report &report);   // a live plot and the event loop
void benchEvaluateView(const GuiOptions &options, Report &report);
void benchAugmentationView(const GuiOptions &options, Report &report);  // the inspector's preview and its worker, in "data"    // EvaluationView on 10,000 samples

// Runs the event loop for about `milliseconds` (paints, zero-timers, deferred deletes).
void runEventLoopFor(int milliseconds);
// Handles what is queued now (a paint after a change), without waiting.
void processPendingEvents();

} // namespace ty::bench
