#pragma once
// trainyard-cli runs export ID... --bundle FILE and sweeps export ID --bundle FILE: runs (with their records,
// parameters, tags, notes, events, stages, metric rows, evaluations with every sample, and checkpoint files
// with their sha256) and sweeps written into one run bundle (run_bundle_file.h; docs/run-database.md#run-bundles),
// which `runs import` merges into another database by uuid (run_bundle_import.h).

#include "error.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace ty {

struct RunBundleExportRequest {
    QString database;          // the run database read (opened read-only; a shared folder is fine)
    QList<qint64> runIds;      // runs to carry
    QList<qint64> sweepIds;    // sweeps to carry with all their trials' runs
    QString bundle;            // the file written
    bool withCheckpoints = true;
};

struct RunBundleExportReport {
    QList<qint64> runIds;      // every run carried, by id
    QList<qint64> sweepIds;    // every sweep carried (those asked for and those the runs are trials of)
    qint64 metricRows = 0;
    int checkpoints = 0;
    int evaluations = 0;
    qint64 bytes = 0;
    QStringList skipped;       // checkpoints left out, and why ("run 7: step-100.safetensors: file missing")
};

// Reads everything in one read transaction (a consistent snapshot while other processes write). Refused, writing
// nothing, for a missing run or sweep, a run still queued or running, a sweep still being run, or a checkpoint file
// that no longer matches its recorded sha256. A recorded checkpoint whose file is gone, or lies outside the run's
// folder, is left out and listed in `skipped`.
Result<RunBundleExportReport> exportRunBundle(const RunBundleExportRequest &request);

} // namespace ty
