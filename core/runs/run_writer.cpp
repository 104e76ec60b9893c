#include "run_writer.h"

#include "run_sqlite.h"
#include "run_writer_sql.h"

#include <QFileInfo>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

namespace ty {

struct RunWriter::State {
    enum class Phase { NotStarted, Starting, Running, Finishing, Finished };

    QString path;
    qint64 runId = 0;
    int intervalMs = 1000;

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
    RunStatus finalStatus = RunStatus::Finished;
    QString finalMessage, finalErrorNode;
    Status finishResult;
    Status firstError;
    std::atomic<qint64> written{0};
    std::atomic<qint64> dropped{0};
    std::thread thread;

    void recordError(const Status &status)  // with mutex held
    {
        if (!status.ok() && firstError.ok())
            firstError = status;
    }
    void threadMain();
};

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
    auto deadline = std::chrono::steady_clock::now() + interval;
    for (;;) {
        RunWriterBatch batch;
        quint64 ticket = 0;
        bool stop = false;
        {
            std::unique_lock<std::mutex> lock(mutex);
            wake.wait_until(lock, deadline, [this] {
                return stopRequested || flushRequested > flushCompleted || firstMetricsPending ||
                       pending.size() >= size_t(kFlushRowThreshold);
            });
            batch.swap(pending);
            firstMetricsPending = false;
            ticket = flushRequested;
            stop = stopRequested;
        }
        const Status batchStatus = writeRunWriterBatch(db, runId, batch, markRunning);
        {
            std::lock_guard<std::mutex> lock(mutex);
            if (batchStatus.ok()) {
                written += qint64(batch.size());
            } else {
                recordError(batchStatus);
                dropped += qint64(batch.size());
            }
            flushCompleted = ticket;
        }
        done.notify_all();
        if (stop)
            break;
        deadline = std::chrono::steady_clock::now() + interval;
    }

    RunStatus status;
    QString message, errorNode;
    {
        std::lock_guard<std::mutex> lock(mutex);
        status = finalStatus;
        message = finalMessage;
        errorNode = finalErrorNode;
    }
    const Status ended = writeRunWriterFinalStatus(db, runId, status, message, errorNode);
    db.close();
    {
        std::lock_guard<std::mutex> lock(mutex);
        recordError(ended);
        dropped += qint64(pending.size());  // appended while finishing, after the last batch was taken
        pending.clear();
        finishResult = firstError;
        phase = Phase::Finished;
    }
    done.notify_all();
}

RunWriter::RunWriter(const QString &dbPath, qint64 runId, int flushIntervalMs) : d(std::make_unique<State>())
{
    d->path = QFileInfo(dbPath).absoluteFilePath();
    d->runId = runId;
    d->intervalMs = flushIntervalMs > 0 ? flushIntervalMs : 1000;
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
    if (d->phase == State::Phase::Finished) {
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
    const quint64 ticket = ++d->flushRequested;
    d->wake.notify_one();
    d->done.wait(lock, [&] { return d->flushCompleted >= ticket || d->phase == State::Phase::Finished; });
    return d->firstError;
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
    if (d->thread.joinable())
        d->thread.join();
    std::lock_guard<std::mutex> lock(d->mutex);
    return d->finishResult;
}

Status RunWriter::lastError() const
{
    std::lock_guard<std::mutex> lock(d->mutex);
    return d->firstError;
}

qint64 RunWriter::rowsWritten() const { return d->written.load(); }
qint64 RunWriter::rowsDropped() const { return d->dropped.load(); }
QString RunWriter::dbPath() const { return d->path; }
qint64 RunWriter::runId() const { return d->runId; }

} // namespace ty
