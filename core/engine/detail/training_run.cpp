#include "detail/training_run.h"

#include "dataset_loader.h"
#include "event_kinds.h"
#include "preset_dataset.h"
#include "detail/batch_stream.h"
#include "detail/device_memory.h"
#include "detail/optimization.h"
#include "detail/split_evaluation.h"
#include "stage_inspection.h"
#include "preset_format.h"
#include "preset_inspection.h"
#include "available_memory.h"
#include "memory_estimate.h"

#include <QDir>
#include <QFile>
#include <algorithm>
#include <cmath>
#include <optional>

namespace ty::detail {

TrainingRun::TrainingRun(const Preset &preset, const TrainOptions &options)
    : m_preset(preset), m_options(options),
      m_settings(TrainingSettings::fromJson(preset.training)), m_presetHash(presetHash(preset))
{
    if (!options.device.isEmpty())
        m_settings.device = options.device;
    if (options.group)
        m_group = &options.group->collectives();
}

namespace {

} // namespace

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
    // The training section first (stages, init_from): their errors name the stage and key.
    for (const Issue &issue : trainingSectionIssues(m_preset))
        if (issue.severity == Severity::Error) {
            *failure = Error::atNode(issue.node, issue.message);
            failure->field = issue.param;
            return false;
        }
    m_stages = planStages(m_preset);
    m_totalEpochs = totalEpochs(m_stages);
    const Node *datasetNode = firstDatasetNode(m_preset);
    if (!datasetNode) {
        *failure = Error(QStringLiteral("the pipeline has no dataset node"));
        return false;
    }

    if (m_settings.device == QStringLiteral("cuda") && !torch::cuda::is_available()) {
        *failure = Error(QStringLiteral("training.device is cuda, but no CUDA device is available to this LibTorch build"));
        return false;
    }
    // A distributed run's processes on one machine take one GPU each, by LOCAL_RANK.
    const int gpu = m_options.group && torch::cuda::is_available()
                        ? m_options.group->setup().localRank % int(torch::cuda::device_count()) : 0;
    m_device = (m_settings.device != QStringLiteral("cpu") && torch::cuda::is_available()) ? torch::Device(torch::kCUDA, int8_t(gpu))
                                                                                            : torch::Device(torch::kCPU);
    if (m_options.threads > 0 || m_settings.threads > 0)
        torch::set_num_threads(m_options.threads > 0 ? m_options.threads : m_settings.threads);
    at::globalContext().setDeterministicAlgorithms(m_settings.deterministic, /*warn_only=*/false);
    // cuDNN's autotuner times the algorithms of each convolution shape once and keeps the fastest; not in a
    // deterministic run, whose algorithms must not depend on timings.
    at::globalContext().setBenchmarkCuDNN(m_device.is_cuda() && !m_settings.deterministic);

    // Streaming: asked for, or (auto) when the decoded data would take more than half of what the device has,
    // for the kinds that can stream. A streamed data set holds no samples in memory, so the estimate leaves them out.
    ShapeReport estimate = inspectPresetShapes(m_preset);
    placeDataOn(&estimate, m_device.is_cpu());
    const DatasetReader *reader = datasetReaders().find(datasetNode->block);
    const bool canStream = reader && reader->canStream;
    // The decoded data passes through host memory (as the CPU holds it) on its way to any device, so auto weighs
    // it against both.
    const qint64 available = availableDeviceMemory(m_device);
    const qint64 host = m_device.is_cpu() ? available : availableHostMemory();
    const bool tooBig = estimate.memory.known
                        && ((available > 0 && (estimate.memory.data > available / 2 || estimate.memory.total() > available))
                            || (host > 0 && estimate.memory.dataBytesOnCpu > host / 2));
    m_streaming = canStream && (m_settings.streaming == QStringLiteral("on") || (m_settings.streaming == QStringLiteral("auto") && tooBig));
    if (m_streaming && m_group) {
        *failure = Error::atField(QStringLiteral("training.streaming"),
                                  QStringLiteral("a distributed run holds its data in memory: streaming is not supported with more than one process "
                                                 "(set training.streaming to off)"));
        return false;
    }
    if (m_settings.streaming == QStringLiteral("on") && !canStream)
        m_notices << QStringLiteral("training.streaming is on, but %1 is read into memory: streaming applies to image folders and lists")
                         .arg(datasetNode->block);
    if (m_settings.mixedPrecision) {
        if (m_device.is_cuda())
            m_precision = MixedPrecision(m_device);
        else
            m_notices << QStringLiteral("training.mixed_precision applies on CUDA: this run on %1 trains in float32")
                             .arg(QString::fromStdString(m_device.str()));
    }
    if (!m_group && std::any_of(m_stages.begin(), m_stages.end(), [](const StagePlan &stage) {
            return TrainingSettings::fromJson(stage.preset.training).syncBatchNorm;
        }))
        m_notices << QStringLiteral("training.sync_batch_norm applies to distributed runs: one process normalises each batch as a whole");
    if (m_streaming) {
        estimate.memory.dataBytesOnCpu = estimate.memory.dataBytesOnGpu = 0;
        placeDataOn(&estimate, m_device.is_cpu());
    }
    // The memory estimate against what the device has, from the dataset's headers, before the data or the
    // model takes any (docs/reliability.md).
    if (const Status fits = checkDeviceMemory(estimate, m_device); !fits) {
        *failure = fits.error();
        return false;
    }

    QElapsedTimer loadClock;
    loadClock.start();
    Result<LoadedDataset> loaded = loadDataset(datasetRequest(m_preset, *datasetNode, m_streaming));
    if (!loaded) {
        const Error &e = loaded.error();
        *failure = e;
        if (failure->node.isEmpty())
            failure->node = datasetNode->id;
        return false;
    }
    m_datasetShape = loaded.value().shape;
    m_train = toDevice(std::move(loaded.value().train), m_device);
    m_val = toDevice(std::move(loaded.value().val), m_device);
    m_test = toDevice(std::move(loaded.value().test), m_device);
    m_classNames = loaded.value().classNames;
    const double loadSeconds = loadClock.elapsed() / 1000.0;

    CheckpointExpectations expected{m_presetHash, m_train.size(), {}, m_options.runId};
    m_totalSteps = 0;
    for (const StagePlan &stage : m_stages) {
        const int64_t batch = TrainingSettings::fromJson(stage.preset.training).batchSize;
        expected.stages.push_back(StageLength{stage.epochs, (m_train.size() + batch - 1) / batch});
        m_totalSteps += expected.stages.back().epochs * expected.stages.back().stepsPerEpoch;
    }
    int stage = 0;
    if (!m_options.resumeCheckpoint.isEmpty()) {
        const Result<int64_t> resumedStage = checkpointStage(m_options.resumeCheckpoint, int64_t(m_stages.size()));
        if (!resumedStage) {
            *failure = Error(resumedStage.error().toString());
            return false;
        }
        stage = int(resumedStage.value());
    }
    torch::manual_seed(uint64_t(m_settings.seed));  // before compiling: weight initialisation draws from it
    if (!buildStage(stage, failure))
        return false;
    ShapeReport staged = m_pipeline.report;
    inspectStages(m_stages, m_datasetShape, &staged);
    for (const Issue &issue : staged.issues)
        if (issue.severity == Severity::Error) {
            *failure = Error::atNode(issue.node, issue.message);
            failure->field = issue.param;
            return false;
        }
    resolveBestMetric();
    if (!m_options.resumeCheckpoint.isEmpty()) {
        Result<TrainingPosition> position = loadCheckpoint(m_options.resumeCheckpoint, *m_pipeline.model, *m_optimizer, expected);
        if (!position) {
            *failure = Error(position.error().toString());
            return false;
        }
        m_position = position.value();
        if (m_position.permutation.defined())
            m_position.permutation = m_position.permutation.to(m_device);
        m_clockOffset = m_position.elapsedSeconds;
        if (m_position.lossScale > 0)
            m_precision.restore(m_position.lossScale, m_position.lossScaleGrowth);
    } else if (!warmStart(failure)) {
        return false;
    }

    TrainStart &start = m_start;
    start.device = QString::fromStdString(m_device.str());
    start.cpuThreads = torch::get_num_threads();
    start.trainSamples = m_train.size();
    start.valSamples = m_val.size();
    start.testSamples = m_test.size();
    start.stepsPerEpoch = m_stepsPerEpoch;
    start.totalSteps = m_totalSteps;
    start.epochs = m_totalEpochs;
    start.stages = m_stages.front().implicit ? 0 : int(m_stages.size());
    start.stage = int(m_position.stage);
    start.parameters = m_pipeline.report.totalParams;
    start.dataFingerprint = loaded.value().fingerprint;
    start.loadSeconds = loadSeconds;
    start.dataLoadedAhead = loaded.value().loadedAhead;
    start.resumedAtStep = m_options.resumeCheckpoint.isEmpty() ? -1 : m_position.step;
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
        publishEvaluation(QStringLiteral("test"), testReport->metrics);
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
    return publishEvaluation(prefix, pass.metrics);
}

QMap<QString, double> TrainingRun::publishEvaluation(const QString &prefix, const QMap<QString, double> &metrics)
{
    QMap<QString, double> out;
    const double t = elapsed();
    const int epoch = int(std::min<int64_t>(m_position.epoch + 1, m_totalEpochs));
    QList<MetricSample> samples;
    samples.append(MetricSample{prefix + QStringLiteral("/loss"), m_position.step, epoch, t, metrics.value(QStringLiteral("loss"))});
    for (const MetricHead &metric : m_pipeline.metrics)
        samples.append(MetricSample{prefix + QLatin1Char('/') + metric.nodeId, m_position.step, epoch, t, metrics.value(metric.nodeId)});
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
