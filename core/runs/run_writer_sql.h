#pragma once
// The writer thread's SQL side of RunWriter: a batch of pending rows, opening the writer's connection, and the
// transactions it writes. The writer's connection is a raw SQLite connection (sqlite_connection.h), not QtSql.
// Internal to ty_runs (public only because headers of a target share one folder).
//
// Threads: call the write functions on the thread that owns `db` (RunWriter's writer thread).

#include "error.h"
#include "run_records.h"
#include "sqlite_connection.h"

#include <QString>

#include <vector>

namespace ty {

struct RunWriterBatch {
    std::vector<MetricPoint> metrics;
    std::vector<RunEvent> events;
    std::vector<CheckpointRecord> checkpoints;
    std::vector<QString> removedCheckpoints;  // paths whose records go
    std::vector<StageRecord> stages;          // a stage begun (closing the one before), or ended (endStep >= 0)

    size_t size() const { return metrics.size() + events.size() + checkpoints.size() + removedCheckpoints.size() + stages.size(); }
    bool empty() const { return size() == 0; }
    void clear();
    void swap(RunWriterBatch &other);
};

// Opens the writer's own connection into `db`, refuses a missing file or a schema other than kRunSchemaVersion,
// sets WAL, and when `markRunning` sets the run running with started_at (kept when set), ended_at cleared, pid,
// host and heartbeat, in one transaction. On failure `db` may still be open: close it with db.close().
Status openRunWriterConnection(SqliteConnection &db, const QString &path, qint64 runId, bool markRunning);

// Writes all rows of `batches`, oldest first (and folds their metrics into metric_summaries) and, when `heartbeat`
// is true, the run's heartbeat_at, in ONE BEGIN IMMEDIATE transaction with reused prepared statements: all of them
// or, on failure, none (rolled back). The heartbeat also revives a run marked interrupted whose host and pid are
// still this process's. Nothing happens for empty batches without heartbeat.
Status writeRunWriterBatches(SqliteConnection &db, qint64 runId, const std::vector<RunWriterBatch> &batches, bool heartbeat);

// Sets status, status_message, error_node and ended_at (NULL for queued/running) of the run; with `ownOnly` (a
// started writer) only while the run is still this process's (pid and host), else an error and nothing changes.
Status writeRunWriterFinalStatus(SqliteConnection &db, qint64 runId, RunStatus status, const QString &message,
                                 const QString &errorNode, bool ownOnly);

} // namespace ty
