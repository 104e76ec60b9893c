#pragma once
// RunWriter: writes ONE run's metrics, events and checkpoint records into the run database, from any thread,
// through one writer thread.
//
// Threads: appendMetric(s), appendEvent, recordCheckpoint, setMetricSink, sinkError(), rowsWritten() and
// lastError() may be called from any thread at any time; they only push to (or read) mutex-guarded state. start(), flush() and finish() may also be
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
// Errors: a record never gets ahead of the rows it stands on. Rows whose commit fails with a fault that may pass
// (the file locked by another connection, a full disk, an I/O error) are kept in memory, in order, and tried
// again every second, with everything appended since behind them; flush() waits meanwhile, and currentFault()
// says why. Once they have failed for retryForMs, or at once for a fault that cannot pass (a read-only file, the
// run deleted), they and everything appended later are dropped: the writer has given up, and lastError(),
// flush() and finish() return that first error. So a checkpoint record is committed only together with or after
// every row appended before it. Nothing throws.
//
// Metric sink: setMetricSink() hands the metric rows of every batch committed from then on to a function, on the
// writer thread, right after the commit and in order (the run's live TensorBoard file, app/cli/live_tensorboard.h),
// so that what it writes is what the database holds, at the database's cadence. A sink that fails is called no more:
// its error is recorded once as a `warning` event of the run, and sinkError() returns it; the run goes on.
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
#include <mutex>
#include <vector>

namespace ty {

struct RunWriterBatch;  // run_writer_sql.h

class RunWriter {
public:
    static constexpr int kFlushRowThreshold = 20000;
    static constexpr int kDefaultRetryForMs = 120000;

    RunWriter(const QString &dbPath, qint64 runId, int flushIntervalMs = 1000, int retryForMs = kDefaultRetryForMs);
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

    // Synchronous: returns when everything appended before the call is committed (waiting while a fault is
    // retried) or the writer gave up. Returns the error it gave up on, if any (then not everything appended is in
    // the database), or an error when not running.
    Status flush();

    // Flushes, sets status, status_message, error_node and ended_at, and stops the thread. Returns the first
    // error seen (a lost batch, or the final status update), if any. Calling it again returns an error.
    Status finish(RunStatus status, const QString &message = {}, const QString &errorNode = {});

    // Called once a run, on the thread waiting in flush() or finish(), when that wait meets a fault being retried:
    // to tell the user why it waits. Set it before start().
    void setFaultReporter(std::function<void(const Status &fault)> reporter);

    // From now on, the metric rows of each committed batch also go to `sink` (called on the writer thread; it returns
    // an error to be called no more). Rows committed before the call are not passed to it, so set it before the rows
    // it should have are appended. The sink is released when the writer finishes.
    using MetricSink = std::function<Status(const std::vector<MetricPoint> &rows)>;
    void setMetricSink(MetricSink sink);
    Status sinkError() const;     // why the sink was stopped, or success

    Status lastError() const;     // the error the writer gave up on (rows were lost), or success
    Status currentFault() const;  // the failure being retried while rows wait, or success
    qint64 rowsWritten() const;   // metric, event and checkpoint rows committed so far
    qint64 rowsDropped() const;   // rows lost once the writer gave up, or appended after finish()

    QString dbPath() const;       // absolute
    qint64 runId() const;

private:
    struct State;
    // Runs `push` on the pending batch under the mutex, or counts `rows` as dropped after finish().
    void append(size_t rows, const std::function<void(RunWriterBatch &)> &push);
    // Waits on the writer's progress until `ready` (called with the mutex held); calls the fault reporter meanwhile.
    void waitReportingFaults(std::unique_lock<std::mutex> &lock, const std::function<bool()> &ready);

    std::unique_ptr<State> d;
};

} // namespace ty
