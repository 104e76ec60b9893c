#pragma once
// Bridges a training run to the run database and the terminal: every metric, event and checkpoint goes to
// the RunWriter (batched on its own thread); progress goes to stderr. Called on the training thread.

#include "cli.h"
#include "event_stream.h"
#include "run_writer.h"
#include "terminal_progress.h"
#include "trainer.h"

#include <memory>

namespace ty::cli {

class RunRecorder : public TrainObserver {
public:
    RunRecorder(RunWriter &writer, Io &io, bool quiet);
    ~RunRecorder() override;
    RunRecorder(const RunRecorder &) = delete;
    RunRecorder &operator=(const RunRecorder &) = delete;

    void onStarted(const TrainStart &start) override;
    void onMetrics(const QList<MetricSample> &samples) override;
    void onSpeed(const QList<MetricSample> &samples) override;  // recorded as metrics, speed/*
    void onEpochEnd(int epoch, qint64 step, const QMap<QString, double> &epochMetrics) override;
    bool onCheckpoint(const CheckpointInfo &checkpoint) override;
    void onCheckpointRemoved(const QString &path) override;
    void onStage(const StageStart &stage) override;
    void onEvent(const QString &kind, const QString &message, qint64 step) override;
    void onProgress(qint64 step, qint64 totalSteps, int epoch, double loss) override;
    bool stopRequested() override;

    const TrainStart &start() const { return m_start; }
    int currentStage() const { return m_stage; }  // -1 for a run without stages
    void clearProgress();  // erase the progress bar before the summary
    // Also report everything as JSON lines (--events); the run's id and database label the "started" event.
    void setEventStream(EventStream *events, qint64 runId, const QString &dbPath);

private:
    void reportWriteFault(const Status &fault);  // warns once on stderr while the writer retries rows it could not commit
    void reportSinkError(qint64 step);  // warns once (stderr, the event stream) when the live TensorBoard file stopped

    RunWriter &m_writer;
    Io &m_io;
    bool m_quiet;
    TrainStart m_start;
    std::unique_ptr<TerminalProgress> m_progress;
    double m_lastTime = 0;
    int m_stage = -1;
    EventStream *m_events = nullptr;
    qint64 m_runId = 0;
    bool m_faultReported = false;
    bool m_sinkErrorReported = false;
    QString m_dbPath;
};

} // namespace ty::cli
