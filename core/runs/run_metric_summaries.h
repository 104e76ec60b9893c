#pragma once
// Upkeep of the metric_summaries table (schema version 2): per run and metric name, the row count, minimum,
// maximum and last value, so that the run browser reads the best and last value of every run with one index
// seek instead of scanning millions of metric rows. RunWriter folds each batch into it in the batch's own
// transaction (one upsert per metric name, not per row; run_writer_metrics.cpp); deleteMetricsAfter() rebuilds a
// run's summaries with the function here.
// Internal to ty_runs (public only because headers of a target share one folder).
//
// Threads: call on the thread that owns `db`, inside a write transaction.

#include "error.h"

#include <QSqlDatabase>
#include <QString>

namespace ty {

// Recomputes the run's summaries from its metric rows (after rows were deleted).
Status rebuildMetricSummaries(const QSqlDatabase &db, const QString &path, qint64 runId);

} // namespace ty
