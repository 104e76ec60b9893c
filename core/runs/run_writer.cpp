#include "run_writer.h"

#include "event_kinds.h"
#include "run_sqlite.h"
#include "run_writer_sql.h"

#include <QFileInfo>

#include <algorithm>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace ty {

struct RunWriter::State {
    enum class Phase { NotStarted, Starting, Running, Finishing, Finished };
    using Clock = std::chrono::steady_clock;

    QString path;
    qint64 runId = 0;
    int intervalMs = 1000;
    int retryForMs = kDefaultRetryForMs;

    mutable std::mutex mutex;
    std::condition_variable wake;   // the writer thread waits on it
    std::condition_variable done;   // start(), flush() and finish() wait on it
    RunWriterBatch pending;
    Phase phase = Phase::NotStarted;
    bool markRunning = true;        // false when finish() runs without start()
    std::optional<Status> startResult;
    quint64 flushRequested = 0;
    quint64 flushCompleted = 0;
    bool stopRequested = false;
    bool firstMetricsSeen = false;  // the first metric rows are written at once: curves appear without a wait
    bool firstMetricsPending = false;
    bool gaveUp = false;            // rows could not be written for retryForMs: everything from then on is dropped
    RunStatus finalStatus = RunStatus::Finished;
    QString finalMessage, finalErrorNode;
    Status finishResult;
    Status firstError;
    Status fault;                   // the failure being retried, while rows wait in `unwritten`
    std::atomic<bool> retrying{false};
    std::function<void(const Status &)> faultReporter;
    bool faultReported = false;
    std::atomic<qint64> written{0};
    std::atomic<qint64> dropped{0};
    MetricSink metricSink;          // setMetricSink()'s; released when it fails or the writer finishes
    Status sinkFailure;
    std::atomic<bool> sinkFailed{false};
    std::thread thread;

    // Writer thread only: batches taken from `pending` that are not committed yet, oldest first, and since when
    // their commit fails. They are written in one transaction, in order (a checkpoint's record may be followed by
    // the removal of an older one).
    std::vector<RunWriterBatch> unwritten;
    std::optional<Clock::time_point> failingSince;
    std::vector<RunWriterBatch> committed;  // the batches of the last commit, until the sink has their metric rows
    MetricSink committedSink;                // the sink set when they were committed: theirs

    void recordError(const Status &status)  // with mutex held
    {
        if (!status.ok() && firstError.ok())
            firstError = status;
    }
    void threadMain();
    size_t unwrittenRows() const
    {
        size_t rows = 0;
        for (const RunWriterBatch &batch : unwritten)
            rows += batch.size();
        return rows;
    }
    // One attempt to commit `unwritten`: written, kept for another try, or dropped with everything after (gave up).
    enum class Attempt { Written, Kept, GaveUp };
    Attempt writeOrKeep(SqliteConnection &db, quint64 ticket);
    // Hands the metric rows of `committed` to the sink; true when it failed just now (its warning event then waits in
    // `pending`).
    bool feedSink();
    Status writeFinalStatus(SqliteConnection &db);
};

RunWriter::State::Attempt RunWriter::State::writeOrKeep(SqliteConnection &db, quint64 ticket)
{
    db.clearLastError();
    const Status batchStatus = writeRunWriterBatches(db, runId, unwritten, markRunning);
    const size_t rows = unwrittenRows();
    const bool mayPass = db.lastErrorMayPass();
    std::lock_guard<std::mutex> lock(mutex);
    if (batchStatus.ok()) {
        written += qint64(rows);
        committed.swap(unwritten);  // `committed` was empty
        committedSink = metricSink;
        failingSince.reset();
        fault = Status::success();
        retrying = false;
        flushCompleted = ticket;
        return Attempt::Written;
    }
    const auto now = Clock::now();
    if (!failingSince)
        failingSince = now;
    const auto failingMs = std::chrono::duration_cast<std::chrono::milliseconds>(now - *failingSince).count();
    if (mayPass && failingMs < retryForMs) {
        fault = batchStatus;  // kept, in order, and tried again: no later row may be committed before these
        retrying = true;
        return Attempt::Kept;
    }
    Error lost = batchStatus.error();
    if (mayPass)
        lost.message += QStringLiteral(" (still failing after %1 s of retries)").arg(failingMs / 1000);
    recordError(lost);
    gaveUp = true;
    retrying = false;
    dropped += qint64(rows + pending.size());
    unwritten.clear();
    pending.clear();
    flushCompleted = flushRequested;
    return Attempt::GaveUp;
}

bool RunWriter::State::feedSink()
{
    MetricSink sink;
    sink.swap(committedSink);
    bool failed = false;
    for (const RunWriterBatch &batch : committed) {
        if (!sink || batch.metrics.empty())
            continue;
        const Status fed = sink(batch.metrics);
        if (fed.ok())
            continue;
        std::lock_guard<std::mutex> lock(mutex);
        metricSink = nullptr;
        sinkFailure = fed;
        sinkFailed = true;
        // Recorded with the next batch, at the last row the sink was given.
        if (!gaveUp)
            pending.events.push_back(RunEvent{batch.metrics.back().step, batch.metrics.back().time,
                                              eventKindName(EventKind::Warning), fed.error().toString()});
        failed = true;
        break;
    }
    committed.clear();
    return failed;
}

// The final status is worth a few tries: without it the run says "running" until a reader finds its process gone.
Status RunWriter::State::writeFinalStatus(SqliteConnection &db)
{
    RunStatus status;
    QString message, errorNode;
    {
        std::lock_guard<std::mutex> lock(mutex);
        status = finalStatus;
        message = finalMessage;
        errorNode = finalErrorNode;
        if (gaveUp && status != RunStatus::Failed) {
            // Rows were lost: whatever the training's outcome, the record is incomplete and must say so.
            status = RunStatus::Failed;
            message = QStringLiteral("the run database could not be written: %1").arg(firstError.error().message);
            errorNode.clear();
        }
    }
    Status ended;
    for (int attempt = 0; attempt < 3; ++attempt) {
        if (attempt > 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(500));
        db.clearLastError();
        ended = writeRunWriterFinalStatus(db, runId, status, message, errorNode, markRunning);
        if (ended.ok() || !db.lastErrorMayPass())
            break;
    }
    return ended;
}

void RunWriter::State::threadMain()
{
    SqliteConnection db;
    const Status started = openRunWriterConnection(db, path, runId, markRunning);
    {
        std::lock_guard<std::mutex> lock(mutex);
        startResult = started;
        if (started.ok()) {
            if (phase == Phase::Starting)
                phase = Phase::Running;
        } else {
            recordError(started);
            dropped += qint64(pending.size());
            pending.clear();
            finishResult = firstError;
            phase = Phase::Finished;
        }
    }
    done.notify_all();
    if (!started.ok()) {
        db.close();
        return;
    }

    const auto interval = std::chrono::milliseconds(intervalMs);
    const auto retryPause = std::chrono::milliseconds(std::min(intervalMs, 1000));
    auto deadline = Clock::now() + interval;
    for (;;) {
        quint64 ticket = 0;
        bool stop = false;
        {
            std::unique_lock<std::mutex> lock(mutex);
            if (retrying) {
                wake.wait_until(lock, deadline, [] { return false; });  // a pause between tries, whatever wakes us
            } else {
                wake.wait_until(lock, deadline, [this] {
                    return stopRequested || flushRequested > flushCompleted || firstMetricsPending ||
                           pending.size() >= size_t(kFlushRowThreshold);
                });
            }
            if (!pending.empty()) {
                unwritten.emplace_back();
                unwritten.back().swap(pending);
            }
            firstMetricsPending = false;
            ticket = flushRequested;
            stop = stopRequested;
        }
        const Attempt attempt = writeOrKeep(db, ticket);
        done.notify_all();
        const bool sinkFailedNow = feedSink();
        if (attempt == Attempt::GaveUp) {  // nothing more is written: wait for finish()
            std::unique_lock<std::mutex> lock(mutex);
            wake.wait(lock, [this] { return stopRequested; });
            break;  // what was appended meanwhile is counted as dropped below
        }
        if (stop && attempt == Attempt::Written && !sinkFailedNow)  // else once more, for the sink's warning
            break;
        deadline = Clock::now() + (attempt == Attempt::Written ? interval : retryPause);
    }

    const Status ended = writeFinalStatus(db);
    db.close();
    MetricSink released;  // closes what it writes, outside the lock
    {
        std::lock_guard<std::mutex> lock(mutex);
        released.swap(metricSink);
        recordError(ended);
        dropped += qint64(pending.size());  // appended while finishing, after the last batch was taken
        pending.clear();
        finishResult = firstError;
        phase = Phase::Finished;
    }
    done.notify_all();
}

RunWriter::RunWriter(const QString &dbPath, qint64 runId, int flushIntervalMs, int retryForMs) : d(std::make_unique<State>())
{
    d->path = QFileInfo(dbPath).absoluteFilePath();
    d->runId = runId;
    d->intervalMs = flushIntervalMs > 0 ? flushIntervalMs : 1000;
    d->retryForMs = std::max(0, retryForMs);
}

RunWriter::~RunWriter()
{
    bool unfinished = false;
    {
        std::lock_guard<std::mutex> lock(d->mutex);
        unfinished = d->phase == State::Phase::Running;
    }
    if (unfinished)
        finish(RunStatus::Interrupted, QStringLiteral("the run writer was destroyed before finish() was called"));
    if (d->thread.joinable())
        d->thread.join();
}

Status RunWriter::start()
{
    std::unique_lock<std::mutex> lock(d->mutex);
    if (d->phase != State::Phase::NotStarted)
        return Error(QStringLiteral("the writer of run %1 was already started or finished").arg(d->runId));
    d->phase = State::Phase::Starting;
    d->thread = std::thread([state = d.get()] { state->threadMain(); });
    d->done.wait(lock, [this] { return d->startResult.has_value(); });
    const Status result = *d->startResult;
    lock.unlock();
    if (!result.ok())
        d->thread.join();
    return result;
}

void RunWriter::append(size_t rows, const std::function<void(RunWriterBatch &)> &push)
{
    std::lock_guard<std::mutex> lock(d->mutex);
    if (d->phase == State::Phase::Finished || d->gaveUp) {
        d->dropped += qint64(rows);
        return;
    }
    const size_t before = d->pending.size();
    const size_t metricsBefore = d->pending.metrics.size();
    push(d->pending);
    const bool firstMetrics = !d->firstMetricsSeen && d->pending.metrics.size() > metricsBefore;
    if (firstMetrics)
        d->firstMetricsSeen = d->firstMetricsPending = true;
    if (firstMetrics || (before < size_t(kFlushRowThreshold) && d->pending.size() >= size_t(kFlushRowThreshold)))
        d->wake.notify_one();
}

void RunWriter::appendMetric(const MetricPoint &point)
{
    append(1, [&](RunWriterBatch &batch) { batch.metrics.push_back(point); });
}

void RunWriter::appendMetrics(const QList<MetricPoint> &points)
{
    append(size_t(points.size()),
           [&](RunWriterBatch &batch) { batch.metrics.insert(batch.metrics.end(), points.cbegin(), points.cend()); });
}

void RunWriter::appendEvent(const RunEvent &event)
{
    append(1, [&](RunWriterBatch &batch) { batch.events.push_back(event); });
}

void RunWriter::removeCheckpointRecord(const QString &path)
{
    append(1, [&](RunWriterBatch &batch) { batch.removedCheckpoints.push_back(path); });
}

void RunWriter::recordStage(const StageRecord &stage)
{
    append(1, [&](RunWriterBatch &batch) { batch.stages.push_back(stage); });
}

void RunWriter::recordCheckpoint(const CheckpointRecord &checkpoint)
{
    append(1, [&](RunWriterBatch &batch) { batch.checkpoints.push_back(checkpoint); });
}

Status RunWriter::flush()
{
    std::unique_lock<std::mutex> lock(d->mutex);
    if (d->phase != State::Phase::Running) {
        if (!d->firstError.ok())
            return d->firstError;
        return Error(QStringLiteral("the writer of run %1 in %2 is not running").arg(d->runId).arg(d->path));
    }
    if (d->gaveUp)
        return d->firstError;
    const quint64 ticket = ++d->flushRequested;
    d->wake.notify_one();
    waitReportingFaults(lock, [&] { return d->flushCompleted >= ticket || d->gaveUp || d->phase == State::Phase::Finished; });
    return d->firstError;
}

void RunWriter::setFaultReporter(std::function<void(const Status &)> reporter)
{
    std::lock_guard<std::mutex> lock(d->mutex);
    d->faultReporter = std::move(reporter);
}

void RunWriter::waitReportingFaults(std::unique_lock<std::mutex> &lock, const std::function<bool()> &ready)
{
    for (;;) {
        d->done.wait(lock, [&] { return ready() || (d->retrying && !d->faultReported && d->faultReporter); });
        if (ready())
            return;
        d->faultReported = true;  // once: the retries go on quietly until they succeed or the writer gives up
        const Status fault = d->fault;
        const auto reporter = d->faultReporter;
        lock.unlock();
        reporter(fault);
        lock.lock();
    }
}

Status RunWriter::finish(RunStatus status, const QString &message, const QString &errorNode)
{
    {
        std::lock_guard<std::mutex> lock(d->mutex);
        if (d->phase == State::Phase::Finished || d->phase == State::Phase::Finishing) {
            if (!d->firstError.ok())
                return d->firstError;
            return Error(QStringLiteral("the writer of run %1 was already finished").arg(d->runId));
        }
        d->finalStatus = status;
        d->finalMessage = message;
        d->finalErrorNode = errorNode;
        d->stopRequested = true;
        if (d->phase == State::Phase::NotStarted) {
            // Never started: the thread writes what is pending and the final status, without marking it running.
            d->markRunning = false;
            d->phase = State::Phase::Finishing;
            d->thread = std::thread([state = d.get()] { state->threadMain(); });
        } else {
            d->phase = State::Phase::Finishing;
        }
    }
    d->wake.notify_one();
    {
        std::unique_lock<std::mutex> lock(d->mutex);
        waitReportingFaults(lock, [&] { return d->phase == State::Phase::Finished; });
    }
    if (d->thread.joinable())
        d->thread.join();
    std::lock_guard<std::mutex> lock(d->mutex);
    return d->finishResult;
}

void RunWriter::setMetricSink(MetricSink sink)
{
    std::lock_guard<std::mutex> lock(d->mutex);
    if (d->phase != State::Phase::Finished)  // finished, nothing more is committed
        d->metricSink = std::move(sink);
}

Status RunWriter::sinkError() const
{
    if (!d->sinkFailed.load(std::memory_order_relaxed))
        return Status::success();
    std::lock_guard<std::mutex> lock(d->mutex);
    return d->sinkFailure;
}

Status RunWriter::lastError() const
{
    std::lock_guard<std::mutex> lock(d->mutex);
    return d->firstError;
}

Status RunWriter::currentFault() const
{
    if (!d->retrying.load(std::memory_order_relaxed))
        return Status::success();
    std::lock_guard<std::mutex> lock(d->mutex);
    return d->fault;
}

qint64 RunWriter::rowsWritten() const { return d->written.load(); }
qint64 RunWriter::rowsDropped() const { return d->dropped.load(); }
QString RunWriter::dbPath() const { return d->path; }
qint64 RunWriter::runId() const { return d->runId; }

} // namespace ty
