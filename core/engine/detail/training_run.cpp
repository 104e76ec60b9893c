// TrainingRun: prepare() (its steps in training_setup.cpp), the run's loop over epochs and stages, an epoch's loop
// over steps (each step in training_step.cpp), the reading of logged metrics, evaluation and checkpoints.

#include "detail/training_run.h"

#include "event_kinds.h"
#include "detail/batch_stream.h"
#include "detail/split_evaluation.h"
#include "memory_estimate.h"
#include "preset_sections.h"

#include <QDir>
#include <algorithm>
#include <cmath>
#include <optional>

namespace ty::detail {

TrainingRun::TrainingRun(const Preset &preset, const TrainOptions &options)
    : m_preset(preset), m_options(options),
      m_settings(trainingSettings(preset)), m_presetHash(presetHash(preset))
{
    if (!options.device.isEmpty())
        m_settings.device = options.device;
    if (options.group)
        m_group = &options.group->collectives();
}

TrainResult TrainingRun::fail(const QString &message, const QString &node)
{
    TrainResult result;
    result.outcome = TrainOutcome::Failed;
    result.message = message;
    result.errorNode = node;
    result.steps = m_position.step;
    result.epochs = int(m_position.epoch);
    result.lastMetrics = m_last;
    return result;
}

bool TrainingRun::prepare(Error *failure)
{
    // Each step in training_setup.cpp. The memory estimate is checked before the data or the model takes any.
    ShapeReport estimate;
    if (!planRun(failure) || !chooseDevice(failure) || !decideStreaming(&estimate, failure))
        return false;
    noteSettingsThatDoNotApply();
    if (!checkMemory(&estimate, failure) || !loadData(failure))
        return false;
    const CheckpointExpectations expected = planSteps();
    int stage = 0;
    if (!resumedStage(&stage, failure) || !compileStage(stage, failure) || !restoreOrWarmStart(expected, failure))
        return false;
    describeStart();
    return true;
}

TrainResult TrainingRun::run(TrainObserver &observerRef)
{
    m_observerPtr = &observerRef;
    observer().onStarted(m_start);
    for (const QString &notice : m_notices)
        observer().onEvent(eventKindName(EventKind::Notice), notice, m_position.step);
    if (m_group) {
        const DistributedSetup &setup = m_options.group->setup();
        observer().onEvent(eventKindName(EventKind::Distributed),
                           QStringLiteral("%1 processes (%2, started by %3), each training its share of every batch of %4; rank %5 records")
                               .arg(setup.worldSize).arg(m_options.group->backend(), setup.launcher).arg(m_settings.batchSize).arg(setup.rank),
                           m_position.step);
    }
    if (m_train.streamed())
        observer().onEvent(eventKindName(EventKind::Streaming),
                           QStringLiteral("the samples are read from %1 batch by batch (%2 decoded), not held in memory")
                               .arg(m_train.store->path(), byteSizeText(m_train.store->count() * m_train.store->sampleSize())),
                           m_position.step);
    if (!m_start.warmStart.isEmpty())
        observer().onEvent(eventKindName(EventKind::InitFrom), QStringLiteral("weights copied: %1").arg(m_start.warmStart), m_position.step);
    if (m_options.resumeCheckpoint.isEmpty() && !m_stages.front().implicit)
        observer().onStage(stageStart());
    listOwnedCheckpoints();
    m_timing.emplace(m_device, m_group != nullptr);
    TrainResult ending;
    m_clock.start();
    while (m_position.epoch - m_position.stageStartEpoch < m_stages.at(int(m_position.stage)).epochs) {
        if (!trainEpoch(&ending))
            return ending;
        const int epoch = int(m_position.epoch);  // 0-based epoch just finished
        QMap<QString, double> epochMetrics = evaluate(m_val, QStringLiteral("val"));
        epochMetrics.insert(QStringLiteral("train/loss"), m_last.value(QStringLiteral("train/loss")));
        m_position.epoch += 1;
        m_position.batchInEpoch = 0;
        m_position.permutation = torch::Tensor();
        const bool improved = checkBest(epochMetrics);
        const bool stopEarly = checkEarlyStop(epochMetrics);
        observer().onEpochEnd(epoch + 1, m_position.step, epochMetrics);
        updatePlateau(epochMetrics);  // after the epoch's report, which its event follows
        if (improved)
            bestCheckpoint();
        const StagePlan &stage = m_stages.at(int(m_position.stage));
        const bool stageDone = stopEarly || m_position.epoch - m_position.stageStartEpoch >= stage.epochs;
        const bool lastStage = m_position.stage + 1 >= m_stages.size();
        if (stopEarly)
            observer().onEvent(eventKindName(EventKind::EarlyStop),
                               QStringLiteral("%1 did not improve for %2 epochs%3").arg(m_settings.earlyStopMetric).arg(m_settings.earlyStopPatience)
                                   .arg(stage.implicit ? QString() : QStringLiteral(": stage \"%1\" ends").arg(stage.name)),
                               m_position.step);
        if (stageDone && lastStage)
            break;
        if (stageDone) {
            // The next stage's model and optimizer are built before the checkpoint, which therefore resumes there.
            beginNextStage();
            checkpoint();
        } else if (m_settings.checkpointEvery > 0 && m_position.epoch % m_settings.checkpointEvery == 0) {
            checkpoint();
        }
    }
    std::shared_ptr<EvaluationReport> testReport;
    if (m_test.size() > 0) {
        // One pass over the test split gives the run's test metrics and its evaluation (confusion matrix,
        // per-class scores), so the evaluation is there without recomputing.
        shareRankZeroBuffers();
        testReport = std::make_shared<EvaluationReport>(
            evaluateSplit(m_pipeline, m_test, QStringLiteral("test"), m_classNames, m_settings.evalBatchSize, 5, true, m_group));
        testReport->checkpointStep = m_position.step;
        m_pipeline.model->train();
        publishEvaluation(QStringLiteral("test"), *testReport);
    }
    finishProfile();  // a window reaching past the last step ends with the run
    checkpoint();
    TrainResult result;
    result.outcome = TrainOutcome::Finished;
    result.streamed = m_train.streamed();
    result.streamedBatches = m_streamedBatches;
    result.dataWaitSeconds = m_dataWaitSeconds;
    result.trainSeconds = m_trainSeconds;
    if (result.streamed && m_trainSeconds > 0)
        observer().onEvent(eventKindName(EventKind::Streaming),
                           QStringLiteral("%1 batches read from disk; the steps waited %2 s for them, %3 % of %4 s of training")
                               .arg(m_streamedBatches).arg(m_dataWaitSeconds, 0, 'f', 3)
                               .arg(100.0 * m_dataWaitSeconds / m_trainSeconds, 0, 'f', 2).arg(m_trainSeconds, 0, 'f', 1),
                           m_position.step);
    result.steps = m_position.step;
    result.epochs = int(m_position.epoch);
    result.lastMetrics = m_last;
    result.finalCheckpoint = m_lastCheckpoint;
    result.testEvaluation = std::move(testReport);
    return result;
}

bool TrainingRun::trainEpoch(TrainResult *ending)
{
    ensurePermutation();
    m_pipeline.model->train();
    m_timing->restartRate();  // the validation before is not training
    const int64_t n = m_train.size();
    const int64_t batch = m_settings.batchSize;
    // The last step of each log interval is timed, phase by phase, for the speed report. On a GPU a timed step
    // waits for the device after each phase, losing the overlap of launching and running for a step or two: there
    // the last step of every interval ending at a multiple of kCudaTimedEvery steps of the epoch (rounded up to a
    // multiple of log_every) is timed, and in a shorter epoch that of its last whole interval.
    const int64_t logEvery = m_settings.logEvery;
    const int64_t timedEvery = m_device.is_cuda() ? (kCudaTimedEvery + logEvery - 1) / logEvery * logEvery : logEvery;
    const int64_t timedInShortEpoch = m_stepsPerEpoch < timedEvery ? m_stepsPerEpoch / logEvery * logEvery : -1;
    // A streamed split reads the rest of the epoch's batches, in the permutation's order, ahead of the steps.
    std::optional<BatchStream> stream;
    if (m_train.streamed())
        stream.emplace(m_train, m_position.permutation.slice(0, m_position.batchInEpoch * batch), batch, m_device);
    QElapsedTimer epochClock;
    epochClock.start();
    const auto account = [&] {
        m_trainSeconds += epochClock.nsecsElapsed() / 1e9;
        epochClock.restart();
        if (stream) {
            m_dataWaitSeconds += stream->waitSeconds();
            stream.reset();
        }
    };
    for (; m_position.batchInEpoch < m_stepsPerEpoch; ++m_position.batchInEpoch) {
        if (m_group ? m_stopAgreed : observer().stopRequested()) {
            account();
            if (!flushPending(ending, true))
                return false;
            checkpoint();
            *ending = fail(QStringLiteral("stopped at step %1").arg(m_position.step));
            ending->outcome = TrainOutcome::Stopped;
            ending->finalCheckpoint = m_lastCheckpoint;
            return false;
        }
        applyScheduledRate();
        if (m_settings.profileFrom > 0 && m_position.step + 1 == m_settings.profileFrom)
            startProfile();
        const int64_t inEpoch = m_position.batchInEpoch + 1;
        const int64_t begin = m_position.batchInEpoch * batch;
        m_timing->beginStep(inEpoch % timedEvery == 0 || inEpoch == timedInShortEpoch, std::min(n, begin + batch) - begin);
        const StepBatch step = stepBatch(stream ? &*stream : nullptr);
        StepSums sums = forwardBackward(step);
        optimizerStep();

        m_logged->add(LoggedSteps::Step{m_position.step + 1, int(m_position.epoch) + 1, elapsed(), step.count, sums.loss,
                                        std::move(sums.metrics)});
        ++m_position.step;
        // Read intervals end at fixed batches of the epoch (every log_every-th and the last), wherever the run
        // (or its resumption) started, so a resumed run logs at exactly the steps of an uninterrupted one.
        if ((m_position.batchInEpoch + 1) % m_settings.logEvery == 0 && !flushPending(ending, false)) {
            account();
            return false;
        }
        if (m_timing->timed()) {
            m_timing->lap(StepTiming::Logging);
            observer().onSpeed(m_timing->report(m_position.step, int(m_position.epoch) + 1, elapsed()));
        }
        if (m_profile && m_position.step >= m_settings.profileTo)
            finishProfile();
    }
    account();
    return flushPending(ending, true);
}

bool TrainingRun::flushPending(TrainResult *ending, bool wait)
{
    const double lr = m_optimizer->param_groups().front().options().get_lr();
    for (const LoggedSteps::Interval &interval : m_logged->take(lr, wait))
        if (!publish(interval, ending))
            return false;
    return true;
}

bool TrainingRun::publish(const LoggedSteps::Interval &interval, TrainResult *ending)
{
    QList<MetricSample> samples;
    samples.reserve(int(interval.steps.size() * (1 + m_pipeline.metrics.size())));
    for (size_t i = 0; i < interval.steps.size(); ++i) {
        const LoggedSteps::Step &p = interval.steps[i];
        const double loss = interval.losses[i];
        if (!std::isfinite(loss)) {
            observer().onMetrics(samples);
            const QString message = QStringLiteral("the loss became %1 at step %2 (epoch %3)")
                                        .arg(std::isnan(loss) ? QStringLiteral("NaN") : QStringLiteral("infinite"))
                                        .arg(p.step).arg(p.epoch);
            observer().onEvent(eventKindName(EventKind::Diverged), message, p.step);
            *ending = fail(message);
            ending->outcome = TrainOutcome::Diverged;
            ending->finalCheckpoint = m_lastCheckpoint;
            return false;
        }
        samples.append(MetricSample{QStringLiteral("train/loss"), p.step, p.epoch, p.time, loss});
        for (size_t m = 0; m < m_pipeline.metrics.size(); ++m)
            samples.append(MetricSample{QStringLiteral("train/") + m_pipeline.metrics[m].nodeId, p.step, p.epoch, p.time,
                                        m_pipeline.metrics[m].metric.value(interval.metricStatistics(m, i), interval.metricWidths[m], double(p.batch))});
    }
    const LoggedSteps::Step &last = interval.steps.back();
    // The learning rate at the read points only: an interval cut short by a stop adds no row, so the rows of a
    // stopped and resumed run are those of an uninterrupted one.
    const int64_t epochStart = m_position.stageStartStep + (int64_t(last.epoch - 1) - m_position.stageStartEpoch) * m_stepsPerEpoch;
    const int64_t batchesDone = last.step - epochStart;
    if (batchesDone % m_settings.logEvery == 0 || batchesDone == m_stepsPerEpoch)
        samples.append(MetricSample{QStringLiteral("train/lr"), last.step, last.epoch, last.time, interval.lr});
    for (const MetricSample &s : samples)
        m_last.insert(s.name, s.value);
    observer().onMetrics(samples);
    observer().onProgress(last.step, m_totalSteps, last.epoch, m_last.value(QStringLiteral("train/loss")));
    return true;
}

QMap<QString, double> TrainingRun::evaluate(const DeviceSplit &split, const QString &prefix)
{
    if (split.size() == 0)
        return {};
    shareRankZeroBuffers();
    // The run's metrics only: validation after every epoch scores no outputs.
    const EvaluationReport pass = evaluateSplit(m_pipeline, split, prefix, {}, m_settings.evalBatchSize, 1, /*score=*/false, m_group);
    m_pipeline.model->train();
    return publishEvaluation(prefix, pass);
}

QMap<QString, double> TrainingRun::publishEvaluation(const QString &prefix, const EvaluationReport &pass)
{
    const QMap<QString, double> &metrics = pass.metrics;
    QMap<QString, double> out;
    const double t = elapsed();
    const int epoch = int(std::min<int64_t>(m_position.epoch + 1, m_totalEpochs));
    QList<MetricSample> samples;
    samples.append(MetricSample{prefix + QStringLiteral("/loss"), m_position.step, epoch, t, metrics.value(QStringLiteral("loss"))});
    for (const MetricHead &metric : m_pipeline.metrics)
        samples.append(MetricSample{prefix + QLatin1Char('/') + metric.nodeId, m_position.step, epoch, t, metrics.value(metric.nodeId)});
    for (const MetricHead &metric : m_pipeline.passMetrics) {
        const QString name = prefix + QLatin1Char('/') + metric.nodeId;
        if (metrics.contains(metric.nodeId)) {
            samples.append(MetricSample{name, m_position.step, epoch, t, metrics.value(metric.nodeId)});
        } else if (!m_undefinedSaid.contains(name)) {
            m_undefinedSaid << name;
            observer().onEvent(eventKindName(EventKind::Notice),
                               QStringLiteral("%1 has no value: %2").arg(name, pass.undefinedMetrics.value(metric.nodeId)), m_position.step);
        }
    }
    for (const MetricSample &s : samples) {
        out.insert(s.name, s.value);
        m_last.insert(s.name, s.value);
    }
    observer().onMetrics(samples);
    return out;
}

std::optional<std::pair<QString, QString>> TrainingRun::writeCheckpoint(const QString &prefix)
{
    if (m_options.runFolder.isEmpty())
        return std::nullopt;
    const Result<QString> folder = checkpointFolder();
    if (!folder) {
        observer().onEvent(eventKindName(EventKind::Warning), QStringLiteral("no checkpoint written: %1").arg(folder.error().toString()),
                           m_position.step);
        return std::nullopt;
    }
    const QString path = QDir(folder.value()).filePath(QStringLiteral("%1step-%2.safetensors").arg(prefix).arg(m_position.step, 8, 10, QLatin1Char('0')));
    m_position.elapsedSeconds = elapsed();
    m_position.lossScale = m_precision.scale();
    m_position.lossScaleGrowth = m_precision.growthTracker();
    const Result<QString> sha256 = saveCheckpoint(path, *m_pipeline.model, *m_optimizer, m_position, m_presetHash, m_options.runId);
    if (!sha256) {
        observer().onEvent(eventKindName(EventKind::Warning), sha256.error().toString(), m_position.step);
        return std::nullopt;
    }
    return std::make_pair(path, sha256.value());
}

void TrainingRun::bestCheckpoint()
{
    const auto written = writeCheckpoint(QStringLiteral("best-"));
    if (!written)
        return;
    const auto &[path, sha256] = *written;
    if (!observer().onCheckpoint(CheckpointInfo{path, m_position.step, int(m_position.epoch), sha256, true}))
        return;  // not recorded: the best that is recorded stays
    // One best file at a time: the earlier one goes, with its record.
    if (m_bestCheckpoint && m_bestCheckpoint->path != path)
        removeOwnCheckpoint(*m_bestCheckpoint);
    m_bestCheckpoint = TrainOptions::OwnedCheckpoint{path, sha256, m_position.step, true};
}

void TrainingRun::checkpoint()
{
    const auto written = writeCheckpoint(QString());
    if (!written)
        return;
    const auto &[path, sha256] = *written;
    m_lastCheckpoint = path;
    if (!observer().onCheckpoint(CheckpointInfo{path, m_position.step, int(m_position.epoch), sha256}))
        return;  // not recorded: every recorded checkpoint stays, for a resume
    m_periodicCheckpoints.erase(std::remove_if(m_periodicCheckpoints.begin(), m_periodicCheckpoints.end(),
                                               [&](const TrainOptions::OwnedCheckpoint &c) { return c.path == path; }),
                                m_periodicCheckpoints.end());
    m_periodicCheckpoints.append(TrainOptions::OwnedCheckpoint{path, sha256, m_position.step, false});
    dropOldCheckpoints();
}

} // namespace ty::detail
