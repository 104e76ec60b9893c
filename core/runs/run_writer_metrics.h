#pragma once
// RunWriter's hot path: one batch of a run's metric rows into `metrics`, folded into `metric_summaries` in the same
// transaction (one upsert per metric name, not per row). Each distinct name is converted to UTF-8 once per batch
// and bound without a copy; rows go through one reused prepared statement.
// Internal to ty_runs (public only because headers of a target share one folder).
//
// Threads: call on the thread that owns `db`, inside a write transaction.

#include "error.h"
#include "run_records.h"
#include "sqlite_connection.h"

#include <vector>

namespace ty {

// Inserts `rows` (in the order written) and folds them into the run's summaries.
Status writeRunWriterMetrics(SqliteConnection &db, qint64 runId, const std::vector<MetricPoint> &rows);

} // namespace ty
