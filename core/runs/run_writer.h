#pragma once
// RunWriter: writes ONE run's metrics, events and checkpoint records into the run database, from any thread,
// through one writer thread.
//
// Threads: appendMetric(s), appendEvent, recordCheckpoint, rowsWritten() and lastError() may be called from any
// thread at any time; they only push to (or read) mutex-guarded state. start(), flush() and finish() may also be
// called from any thread but not concurrently with each other. All database work happens on the writer thread
// (a std::thread started by start() and joined by finish()), which owns its own raw SQLite connection
// (sqlite_connection.h; QtSql's per-value binding would cost more than SQLite's own work); no Qt event loop is
// needed anywhere.
//
// Batching: the writer wakes every flushIntervalMs, when 20000 rows are pending, when the run's first metric
// rows arrive (so a live plot shows the run at once), or when flush()/finish() ask;
// each wake writes all pending rows in ONE BEGIN IMMEDIATE transaction with reused prepared statements
// and updates the run's heartbeat_at (also when nothing is pending), so readers can tell a live run from a dead
// one. If the run was marked interrupted while this process was alive (e.g. suspended for a while), the next
// heartbeat puts it back to running, provided the run still belongs to this host and pid.
//
// Errors: a batch that cannot be committed (disk full, read-only file, ...) is dropped; the first error is kept
// and returned by lastError(), flush() and finish(). Nothing throws.
//
// Ownership: the RunWriter owns its thread and connection; the destructor finishes an unfinished writer with
// status interrupted ("the run writer was destroyed before finish() was called").

#include "error.h"
#include "run_records.h"

#include <QList>
#include <QString>

#include <cstddef>
#include <functional>
#include <memory>

namespace ty {

struct RunWriterBatch;  // run_writer_sql.h

class RunWriter {
public:
    static constexpr int kFlushRowThreshold = 20000;

    RunWriter(const QString &dbPath, qint64 runId, int flushIntervalMs = 1000);
    ~RunWriter();
    RunWriter(const RunWriter &) = delete;
    RunWriter &operator=(const RunWriter &) = delete;

    // Starts the writer thread, which opens its connection and sets the run to running with started_at (kept
    // when already set, e.g. on resume), ended_at cleared, pid, host and heartbeat. Returns once that is
    // committed, or the error (then the thread has stopped again and the writer counts as finished).
    Status start();

    // Queue rows; cheap. Rows appended before start() are written at the first flush; rows appended after
    // finish() are dropped (counted by rowsDropped()).
    void appendMetric(const MetricPoint &point);
    void appendMetrics(const QList<MetricPoint> &points);
    void appendEvent(const RunEvent &event);
    void recordCheckpoint(const CheckpointRecord &checkpoint);
    void removeCheckpointRecord(const QString &path);  // the file was deleted (training.checkpoint_keep)
    void recordStage(const StageRecord &stage);        // begun (ending the one before) or, with endStep >= 0, ended

    // Synchronous: returns when everything appended before the call is committed. Returns the first error seen
    // so far, if any (then not everything appended is in the database), or an error when not running.
    Status flush();

    // Flushes, sets status, status_message, error_node and ended_at, and stops the thread. Returns the first
    // error seen (a lost batch, or the final status update), if any. Calling it again returns an error.
    Status finish(RunStatus status, const QString &message = {}, const QString &errorNode = {});

    Status lastError() const;     // the first write error seen, or success
    qint64 rowsWritten() const;   // metric, event and checkpoint rows committed so far
    qint64 rowsDropped() const;   // rows lost to a failed batch or appended after finish()

    QString dbPath() const;       // absolute
    qint64 runId() const;

private:
    struct State;
    // Runs `push` on the pending batch under the mutex, or counts `rows` as dropped after finish().
    void append(size_t rows, const std::function<void(RunWriterBatch &)> &push);

    std::unique_ptr<State> d;
};

} // namespace ty
