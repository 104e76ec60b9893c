// TrainingRun: the set-up of a run, in the order prepare() runs it: the plan of its stages, the device, streaming
// and the memory check, the data, the step counts, the first stage's model and optimizer, and the resumed
// checkpoint or the warm start.

#include "detail/training_run.h"

#include "available_memory.h"
#include "dataset_loader.h"
#include "detail/device_memory.h"
#include "memory_estimate.h"
#include "preset_dataset.h"
#include "preset_inspection.h"
#include "preset_sections.h"
#include "stage_inspection.h"

#include <algorithm>

namespace ty::detail {

bool TrainingRun::planRun(Error *failure)
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
    m_datasetNode = firstDatasetNode(m_preset);
    if (!m_datasetNode) {
        *failure = Error(QStringLiteral("the pipeline has no dataset node"));
        return false;
    }
    return true;
}

bool TrainingRun::chooseDevice(Error *failure)
{
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
    return true;
}

bool TrainingRun::decideStreaming(ShapeReport *estimate, Error *failure)
{
    // Streaming: asked for, or (auto) when the decoded data would take more than half of what the device has,
    // for the kinds that can stream. A streamed data set holds no samples in memory, so the estimate leaves them out.
    *estimate = inspectPresetShapes(m_preset);
    placeDataOn(estimate, m_device.is_cpu());
    const DatasetReader *reader = datasetReaders().find(m_datasetNode->block);
    const bool canStream = reader && reader->canStream;
    // The decoded data passes through host memory (as the CPU holds it) on its way to any device, so auto weighs
    // it against both.
    const qint64 available = availableDeviceMemory(m_device);
    const qint64 host = m_device.is_cpu() ? available : availableHostMemory();
    const bool tooBig = estimate->memory.known
                        && ((available > 0 && (estimate->memory.data > available / 2 || estimate->memory.total() > available))
                            || (host > 0 && estimate->memory.dataBytesOnCpu > host / 2));
    m_streaming = canStream && (m_settings.streaming == QStringLiteral("on") || (m_settings.streaming == QStringLiteral("auto") && tooBig));
    if (m_streaming && m_group) {
        *failure = Error::atField(QStringLiteral("training.streaming"),
                                  QStringLiteral("a distributed run holds its data in memory: streaming is not supported with more than one process "
                                                 "(set training.streaming to off)"));
        return false;
    }
    if (m_settings.streaming == QStringLiteral("on") && !canStream)
        m_notices << QStringLiteral("training.streaming is on, but %1 is read into memory: streaming applies to image folders and lists")
                         .arg(m_datasetNode->block);
    return true;
}

void TrainingRun::noteSettingsThatDoNotApply()
{
    if (m_settings.mixedPrecision) {
        if (m_device.is_cuda())
            m_precision = MixedPrecision(m_device);
        else
            m_notices << QStringLiteral("training.mixed_precision applies on CUDA: this run on %1 trains in float32")
                             .arg(QString::fromStdString(m_device.str()));
    }
    if (!m_group && std::any_of(m_stages.begin(), m_stages.end(), [](const StagePlan &stage) {
            return trainingSettings(stage.preset).syncBatchNorm;
        }))
        m_notices << QStringLiteral("training.sync_batch_norm applies to distributed runs: one process normalises each batch as a whole");
}

bool TrainingRun::checkMemory(ShapeReport *estimate, Error *failure)
{
    if (m_streaming) {
        estimate->memory.dataBytesOnCpu = estimate->memory.dataBytesOnGpu = 0;
        placeDataOn(estimate, m_device.is_cpu());
    }
    // The memory estimate against what the device has, from the dataset's headers, before the data or the
    // model takes any (docs/reliability.md).
    if (const Status fits = checkDeviceMemory(*estimate, m_device); !fits) {
        *failure = fits.error();
        return false;
    }
    return true;
}

bool TrainingRun::loadData(Error *failure)
{
    QElapsedTimer loadClock;
    loadClock.start();
    Result<LoadedDataset> loaded = loadDataset(datasetRequest(m_preset, *m_datasetNode, m_streaming));
    if (!loaded) {
        const Error &e = loaded.error();
        *failure = e;
        if (failure->node.isEmpty())
            failure->node = m_datasetNode->id;
        return false;
    }
    m_datasetShape = loaded.value().shape;
    m_train = toDevice(std::move(loaded.value().train), m_device);
    m_val = toDevice(std::move(loaded.value().val), m_device);
    m_test = toDevice(std::move(loaded.value().test), m_device);
    m_classNames = loaded.value().classNames;
    m_start.loadSeconds = loadClock.elapsed() / 1000.0;
    m_start.dataFingerprint = loaded.value().fingerprint;
    m_start.dataLoadedAhead = loaded.value().loadedAhead;
    return true;
}

CheckpointExpectations TrainingRun::planSteps()
{
    CheckpointExpectations expected{m_presetHash, m_train.size(), {}, m_options.runId};
    m_totalSteps = 0;
    for (const StagePlan &stage : m_stages) {
        const int64_t batch = trainingSettings(stage.preset).batchSize;
        expected.stages.push_back(StageLength{stage.epochs, (m_train.size() + batch - 1) / batch});
        m_totalSteps += expected.stages.back().epochs * expected.stages.back().stepsPerEpoch;
    }
    return expected;
}

bool TrainingRun::resumedStage(int *stage, Error *failure)
{
    *stage = 0;
    if (m_options.resumeCheckpoint.isEmpty())
        return true;
    const Result<int64_t> resumed = checkpointStage(m_options.resumeCheckpoint, int64_t(m_stages.size()));
    if (!resumed) {
        *failure = Error(resumed.error().toString());
        return false;
    }
    *stage = int(resumed.value());
    return true;
}

bool TrainingRun::compileStage(int stage, Error *failure)
{
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
    return true;
}

bool TrainingRun::restoreOrWarmStart(const CheckpointExpectations &expected, Error *failure)
{
    if (m_options.resumeCheckpoint.isEmpty())
        return warmStart(failure);
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
    return true;
}

void TrainingRun::describeStart()
{
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
    start.resumedAtStep = m_options.resumeCheckpoint.isEmpty() ? -1 : m_position.step;
}

} // namespace ty::detail
