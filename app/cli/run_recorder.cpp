#include "run_recorder.h"

#include "event_kinds.h"

namespace ty::cli {

RunRecorder::RunRecorder(RunWriter &writer, Io &io, bool quiet) : m_writer(writer), m_io(io), m_quiet(quiet)
{
    if (io.terminal && !quiet)
        m_progress = std::make_unique<TerminalProgress>(io.err);
    m_writer.setFaultReporter([this](const Status &fault) { reportWriteFault(fault); });
}

RunRecorder::~RunRecorder()
{
    m_writer.setFaultReporter({});
}

void RunRecorder::setEventStream(EventStream *events, qint64 runId, const QString &dbPath)
{
    m_events = events;
    m_runId = runId;
    m_dbPath = dbPath;
}

void RunRecorder::onStarted(const TrainStart &start)
{
    m_start = start;
    m_stage = start.stages > 0 ? start.stage : -1;
    if (m_events)
        m_events->started(m_runId, m_dbPath, start);
    m_writer.appendEvent(RunEvent{std::max<qint64>(0, start.resumedAtStep), 0, QStringLiteral("started"),
                                  QStringLiteral("device %1, %2 training / %3 validation / %4 test samples, %5 steps, data sha256 %6")
                                      .arg(start.device).arg(start.trainSamples).arg(start.valSamples)
                                      .arg(start.testSamples).arg(start.totalSteps).arg(start.dataFingerprint)});
    if (start.resumedAtStep >= 0 && m_events)
        m_events->note(eventKindName(EventKind::Resumed), QStringLiteral("resumed from the checkpoint at step %1").arg(start.resumedAtStep),
                       start.resumedAtStep);
    if (start.resumedAtStep >= 0)
        m_writer.appendEvent(RunEvent{start.resumedAtStep, 0, eventKindName(EventKind::Resumed),
                                      QStringLiteral("resumed from the checkpoint at step %1").arg(start.resumedAtStep)});
    if (!m_quiet && start.resumedAtStep >= 0)
        m_io.err << "resuming at step " << start.resumedAtStep << " of " << start.totalSteps << "\n";
    if (!m_quiet)
        m_io.err << "training on " << start.device << ": " << start.trainSamples << " training, " << start.valSamples
                 << " validation, " << start.testSamples << " test samples; " << start.parameters << " parameters; "
                 << (start.stages > 0   ? QStringLiteral("%1 epochs in %2 stages, %3 steps").arg(start.epochs).arg(start.stages).arg(start.totalSteps)
                     : start.epochs > 0 ? QStringLiteral("%1 epochs of %2 steps").arg(start.epochs).arg(start.stepsPerEpoch)
                                        : QStringLiteral("0 epochs: the loaded weights are evaluated, not trained"))
                 << " (data read in " << QString::number(start.loadSeconds, 'f', 2) << " s"
                 << (start.dataLoadedAhead ? ", decoded while LibTorch loaded)\n" : ")\n");

    m_io.err.flush();
}

void RunRecorder::onMetrics(const QList<MetricSample> &samples)
{
    QList<MetricPoint> points;
    points.reserve(samples.size());
    for (const MetricSample &s : samples)
        points.append(MetricPoint{s.name, s.step, s.epoch, s.time, s.value});
    if (!samples.isEmpty())
        m_lastTime = samples.last().time;
    m_writer.appendMetrics(points);
    if (m_events && !samples.isEmpty())
        m_events->metrics(samples);
}

void RunRecorder::onSpeed(const QList<MetricSample> &samples)
{
    QList<MetricPoint> points;
    points.reserve(samples.size());
    for (const MetricSample &s : samples)
        points.append(MetricPoint{s.name, s.step, s.epoch, s.time, s.value});
    m_writer.appendMetrics(points);
    if (m_events && !samples.isEmpty())
        m_events->metrics(samples);
}

void RunRecorder::onEpochEnd(int epoch, qint64 step, const QMap<QString, double> &epochMetrics)
{
    if (m_events)
        m_events->epoch(epoch, step, epochMetrics);
    if (m_quiet)
        return;
    if (m_progress)
        m_progress->clear();
    m_io.err << "epoch " << epoch << "/" << m_start.epochs;
    for (auto it = epochMetrics.constBegin(); it != epochMetrics.constEnd(); ++it)
        m_io.err << "  " << it.key() << " " << QString::number(it.value(), 'f', 4);
    m_io.err << "  (" << formatDuration(m_lastTime) << ")\n";
    m_io.err.flush();
}

void RunRecorder::clearProgress()
{
    if (m_progress)
        m_progress->clear();
}

bool RunRecorder::onCheckpoint(const CheckpointInfo &checkpoint)
{
    // Every row before the checkpoint is committed before the checkpoint is recorded, so a resume from the
    // last recorded checkpoint never lacks rows it will not regenerate. flush() waits while a write fault is
    // retried; when the writer gave up, the checkpoint stays unrecorded (the run ends failed, and a resume starts
    // from the last checkpoint whose rows are all there).
    if (!m_writer.flush().ok())
        return false;
    m_writer.recordCheckpoint(CheckpointRecord{checkpoint.step, checkpoint.epoch, checkpoint.path, checkpoint.sha256, checkpoint.best});
    m_writer.appendEvent(RunEvent{checkpoint.step, m_lastTime, QStringLiteral("checkpoint"), checkpoint.path});
    if (m_events)
        m_events->checkpoint(checkpoint);
    return true;
}

void RunRecorder::onCheckpointRemoved(const QString &path)
{
    m_writer.removeCheckpointRecord(path);
}

void RunRecorder::onStage(const StageStart &stage)
{
    m_stage = stage.index;
    m_writer.recordStage(StageRecord{stage.index, stage.name, stage.step, -1, stage.epoch, stage.epochs, stage.frozen});
    QString message = QStringLiteral("stage %1/%2 \"%3\": %4 epochs, %5 trainable / %6 frozen parameters")
                          .arg(stage.index + 1).arg(m_start.stages).arg(stage.name).arg(stage.epochs)
                          .arg(stage.trainableParams).arg(stage.frozenParams);
    if (!stage.frozen.isEmpty())
        message += QStringLiteral(" (frozen: %1)").arg(stage.frozen.join(QStringLiteral(", ")));
    if (stage.index > 0)
        message += stage.optimizerReset ? QStringLiteral(", optimizer reset") : QStringLiteral(", optimizer state kept");
    onEvent(eventKindName(EventKind::Stage), message, stage.step);
}

void RunRecorder::onEvent(const QString &kind, const QString &message, qint64 step)
{
    m_writer.appendEvent(RunEvent{step, m_lastTime, kind, message});
    if (m_events)
        m_events->note(kind, message, step);
    if (m_quiet)
        return;
    if (m_progress)
        m_progress->clear();
    m_io.err << kind << ": " << message << "\n";
    m_io.err.flush();
}

void RunRecorder::onProgress(qint64 step, qint64 totalSteps, int epoch, double loss)
{
    reportWriteFault(m_writer.currentFault());
    reportSinkError(step);
    if (m_progress)
        m_progress->update(step, totalSteps, epoch, m_start.epochs, loss);
}

void RunRecorder::reportWriteFault(const Status &fault)
{
    if (fault.ok() || m_faultReported)
        return;
    m_faultReported = true;  // once a run: the retries go on quietly until they succeed or the run fails
    if (m_progress)
        m_progress->clear();
    m_io.err << "warning: " << fault.error().message << "; the rows are kept in memory and written again every second\n";
    m_io.err.flush();
}

void RunRecorder::reportSinkError(qint64 step)
{
    if (m_sinkErrorReported)
        return;
    const Status stopped = m_writer.sinkError();
    if (stopped.ok())
        return;
    m_sinkErrorReported = true;  // the writer recorded it as the run's `warning` event already
    if (m_events)
        m_events->note(eventKindName(EventKind::Warning), stopped.error().toString(), step);
    if (m_quiet)
        return;
    if (m_progress)
        m_progress->clear();
    m_io.err << "warning: " << stopped.error().toString() << "\n";
    m_io.err.flush();
}

bool RunRecorder::stopRequested()
{
    // Training that cannot be recorded is not worth continuing: stop at once when the database fails.
    return stopFlag().load(std::memory_order_relaxed) || !m_writer.lastError().ok();
}

} // namespace ty::cli
