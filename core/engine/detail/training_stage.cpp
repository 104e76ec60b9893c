// TrainingRun's stages, warm start, best and early-stopping metrics, and the checkpoints it keeps.

#include "detail/training_run.h"

#include "detail/optimizer_state.h"
#include "detail/tensor_codec.h"
#include "detail/warm_start.h"
#include "event_kinds.h"
#include "file_fingerprint.h"
#include "graph_validation.h"
#include "preset_sections.h"
#include "regular_file.h"

#include <ATen/CPUGeneratorImpl.h>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <map>

namespace ty::detail {

namespace {

// Restores the CPU generator's state when it goes out of scope: building a later stage's model draws initial
// weights that are then overwritten, and must not shift the random stream of the run (data order, dropout).
class GeneratorStateGuard {
public:
    GeneratorStateGuard() : m_state(at::detail::getDefaultCPUGenerator().get_state()) {}
    ~GeneratorStateGuard()
    {
        at::Generator generator = at::detail::getDefaultCPUGenerator();
        std::lock_guard<std::mutex> lock(generator.mutex());
        generator.set_state(m_state);
    }

private:
    torch::Tensor m_state;
};

} // namespace

bool TrainingRun::buildStage(int index, Error *failure)
{
    const StagePlan &stage = m_stages.at(index);
    TrainingSettings settings = trainingSettings(stage.preset);
    settings.device = m_settings.device;
    std::optional<GeneratorStateGuard> keepStream;
    if (m_builtStage >= 0)
        keepStream.emplace();
    CompiledPipeline next = compilePipeline(stage.preset, m_datasetShape);
    for (const Issue &issue : next.report.issues)
        if (issue.severity == Severity::Error) {
            failure->message = issue.message;
            failure->node = issue.node;
            failure->field = issue.port.isEmpty() ? issue.param : issue.port;
            return false;
        }
    if (!next.optimizerFactory) {
        failure->message = QStringLiteral("the pipeline has no optimizer");
        return false;
    }
    next.model->to(m_device);
    if (m_group && settings.syncBatchNorm) {
        if (!m_batchNormSync)
            m_batchNormSync = std::make_shared<BatchNormSync>(BatchNormSync{m_group});
        next.model->synchronizeBatchNorm(m_batchNormSync);
    }
    if (m_builtStage >= 0) {
        // The same tensors under the same names (inspectStages made sure): carry the trained values over.
        torch::NoGradGuard noGrad;
        std::map<QString, torch::Tensor> trained;
        for (auto &[name, tensor] : modelTensors(*m_pipeline.model))
            trained[name] = tensor;
        for (auto &[name, tensor] : modelTensors(*next.model))
            tensor.copy_(trained.at(name));
    }
    next.model->setFrozen(stage.frozen);
    next.model->train();
    std::unique_ptr<torch::optim::Optimizer> optimizer =
        next.optimizerFactory(next.plan.optimizerParams, next.model->trainableParameters());
    if (m_builtStage >= 0 && !stage.resetOptimizer) {
        const auto state = optimizerStateTensors(*m_optimizer, *m_pipeline.model);
        const std::map<QString, torch::Tensor> byName(state.begin(), state.end());
        if (const Status kept = restoreOptimizerState(*optimizer, *next.model, byName, /*apply=*/true); !kept)
            throw std::runtime_error(kept.error().message.toStdString());
    }
    m_reducer.reset();  // its hooks and buffers belong to the stage before's model
    m_pipeline = std::move(next);
    m_optimizer = std::move(optimizer);
    m_settings = settings;
    m_logged.emplace(m_device, m_pipeline.metrics.size());
    m_baseLr = m_pipeline.plan.optimizerParams.value(QStringLiteral("lr")).toDouble();
    m_stepsPerEpoch = (m_train.size() + m_settings.batchSize - 1) / m_settings.batchSize;
    m_stageSteps = m_stepsPerEpoch * stage.epochs;
    m_builtStage = index;
    return true;
}

void TrainingRun::beginNextStage()
{
    m_position.stage += 1;
    m_position.stageStartEpoch = m_position.epoch;
    m_position.stageStartStep = m_position.step;
    m_position.stopHasBest = false;
    m_position.stopBestMetric = 0;
    m_position.badEpochs = 0;
    m_position.plateau = PlateauState{};
    Error failure;
    if (!buildStage(int(m_position.stage), &failure))  // checked before training began: not the input's fault
        throw std::runtime_error(failure.message.toStdString());
    observer().onStage(stageStart());
}

StageStart TrainingRun::stageStart() const
{
    const StagePlan &stage = m_stages.at(int(m_position.stage));
    StageStart start;
    start.index = stage.index;
    start.name = stage.name;
    start.step = m_position.stageStartStep;
    start.epoch = int(m_position.stageStartEpoch);
    start.epochs = stage.epochs;
    start.frozen = stage.frozen;
    start.optimizerReset = stage.resetOptimizer;
    for (auto it = m_pipeline.report.nodes.constBegin(); it != m_pipeline.report.nodes.constEnd(); ++it)
        (stage.frozen.contains(it.key()) ? start.frozenParams : start.trainableParams) += it->paramCount;
    return start;
}

bool TrainingRun::warmStart(Error *failure)
{
    std::optional<TrainOptions::WarmStartSource> source = m_options.initFrom;
    if (!source) {
        const std::optional<InitFrom> init = initFrom(m_preset);
        if (!init)
            return true;
        if (init->fromRun()) {
            failure->message = QStringLiteral("init_from names run %1, which only the run database can resolve: "
                                              "start the run with trainyard-cli or the app").arg(init->run);
            failure->field = QStringLiteral("training.init_from.run");
            return false;
        }
        source = TrainOptions::WarmStartSource{init->file, init->nodes, init->strict, init->map};
    }
    const Result<WarmStartReport> copied =
        detail::warmStart(*m_pipeline.model, WeightImportRequest{source->path, source->map, source->nodes, source->strict});
    if (!copied) {
        *failure = copied.error();
        return false;
    }
    const WarmStartReport &report = copied.value();
    m_start.warmStart = QStringLiteral("%1 (%2 tensors) from %3").arg(report.copiedNodes.join(QStringLiteral(", ")))
                            .arg(report.copiedTensors).arg(QDir::toNativeSeparators(source->path));
    if (!report.skipped.isEmpty())
        m_start.warmStart += QStringLiteral("; not copied: ") + report.skipped.join(QStringLiteral("; "));
    m_start.importReport = report.import.toJson();
    m_start.importLines = report.import.lines();
    return true;
}

void TrainingRun::resolveBestMetric()
{
    const TrainingSettings &s = m_settings;
    if (!s.bestMetric.isEmpty()) {
        m_bestMetric = s.bestMetric;
        m_bestMaximize = s.bestMode == QStringLiteral("auto") ? metricHigherIsBetter(m_bestMetric, m_preset.graph)
                                                              : s.bestMode == QStringLiteral("max");
    } else if (!s.earlyStopMetric.isEmpty()) {
        m_bestMetric = s.earlyStopMetric;
        m_bestMaximize = s.earlyStopMode == QStringLiteral("max");
    } else {
        m_bestMetric = QStringLiteral("val/loss");
        m_bestMaximize = false;
    }
}

bool TrainingRun::checkBest(const QMap<QString, double> &epochMetrics)
{
    if (!epochMetrics.contains(m_bestMetric) || !std::isfinite(epochMetrics.value(m_bestMetric)))
        return false;
    const double value = epochMetrics.value(m_bestMetric);
    if (m_position.hasBest && !(m_bestMaximize ? value > m_position.bestMetric : value < m_position.bestMetric))
        return false;
    m_position.bestMetric = value;
    m_position.hasBest = true;
    return true;
}

bool TrainingRun::checkEarlyStop(const QMap<QString, double> &epochMetrics)
{
    const QString &metric = m_settings.earlyStopMetric;
    if (metric.isEmpty() || !epochMetrics.contains(metric) || !std::isfinite(epochMetrics.value(metric)))
        return false;
    const double value = epochMetrics.value(metric);
    const bool maximize = m_settings.earlyStopMode == QStringLiteral("max");
    if (!m_position.stopHasBest || (maximize ? value > m_position.stopBestMetric : value < m_position.stopBestMetric)) {
        m_position.stopBestMetric = value;
        m_position.stopHasBest = true;
        m_position.badEpochs = 0;
        return false;
    }
    ++m_position.badEpochs;
    return m_position.badEpochs >= m_settings.earlyStopPatience;
}

void TrainingRun::updatePlateau(const QMap<QString, double> &epochMetrics)
{
    if (!m_pipeline.epochSchedule)
        return;
    const QJsonObject &params = m_pipeline.plan.scheduleParams;
    const QString metric = params.value(QStringLiteral("metric")).toString();
    const QString mode = params.value(QStringLiteral("mode")).toString();
    const bool maximize = mode == QStringLiteral("auto") ? metricHigherIsBetter(metric, m_preset.graph) : mode == QStringLiteral("max");
    const auto value = epochMetrics.constFind(metric);
    if (value == epochMetrics.constEnd() || !std::isfinite(*value)) {
        if (!m_plateauMissingSaid)
            observer().onEvent(eventKindName(EventKind::Notice),
                               QStringLiteral("reduce on plateau watches %1, which this epoch did not report (a run without a "
                                              "validation split has no val/ figures): the learning rate stays").arg(metric),
                               m_position.step);
        m_plateauMissingSaid = true;
        return;
    }
    const double before = m_position.plateau.scale * m_baseLr;
    if (m_pipeline.epochSchedule(params, epochMetrics, m_baseLr, maximize, m_position.plateau))
        observer().onEvent(eventKindName(EventKind::LrReduced),
                           QStringLiteral("%1 did not improve for %2: learning rate %3 -> %4")
                               .arg(metric, params.value(QStringLiteral("patience")).toInt() == 0
                                                ? QStringLiteral("1 epoch")
                                                : QStringLiteral("%1 epochs").arg(params.value(QStringLiteral("patience")).toInt() + 1))
                               .arg(before, 0, 'g', 4).arg(m_position.plateau.scale * m_baseLr, 0, 'g', 4),
                           m_position.step);
}

void TrainingRun::listOwnedCheckpoints()
{
    m_periodicCheckpoints.clear();
    m_bestCheckpoint.reset();
    if (m_options.runFolder.isEmpty())
        return;
    // Records as written, the newest last; a path recorded twice (by an older version) counts by its newest record.
    QList<TrainOptions::OwnedCheckpoint> owned;
    QSet<QString> seen;
    for (auto it = m_options.ownedCheckpoints.crbegin(); it != m_options.ownedCheckpoints.crend(); ++it)
        if (!seen.contains(it->path)) {
            seen.insert(it->path);
            owned.prepend(*it);
        }
    std::stable_sort(owned.begin(), owned.end(), [](const auto &a, const auto &b) { return a.step < b.step; });
    for (const TrainOptions::OwnedCheckpoint &checkpoint : owned) {
        if (checkpoint.sha256.isEmpty())
            continue;  // recorded without a checksum (an older version): never deleted
        if (checkpoint.best)
            m_bestCheckpoint = checkpoint;
        else
            m_periodicCheckpoints.append(checkpoint);
    }
}

void TrainingRun::dropOldCheckpoints()
{
    const int keep = m_settings.checkpointKeep;
    while (keep > 0 && m_periodicCheckpoints.size() > keep)
        removeOwnCheckpoint(m_periodicCheckpoints.takeFirst());
}

Result<QString> TrainingRun::checkpointFolder() const
{
    const QString folder = QDir(m_options.runFolder).filePath(QStringLiteral("checkpoints"));
    for (const QString &own : {m_options.runFolder, folder})
        if (Status real = requireRealFolder(own); !real)  // never written through a link that may lead anywhere
            return real.error();
    return folder;
}

void TrainingRun::removeOwnCheckpoint(const TrainOptions::OwnedCheckpoint &checkpoint)
{
    const QFileInfo file(checkpoint.path);
    if (!file.exists() && !file.isSymLink()) {
        observer().onCheckpointRemoved(checkpoint.path);  // gone already: so is its record
        return;
    }
    auto warn = [&](const QString &why) {
        observer().onEvent(eventKindName(EventKind::Warning), QStringLiteral("%1 was left in place: %2").arg(checkpoint.path, why),
                           m_position.step);
    };
    const Result<QString> folder = checkpointFolder();
    if (!folder) {
        warn(folder.error().toString());
        return;
    }
    if (file.isSymLink() || QFileInfo(file.absolutePath()).canonicalFilePath() != QFileInfo(folder.value()).canonicalFilePath()) {
        warn(QStringLiteral("it is not in this run's own checkpoints folder %1").arg(folder.value()));
        return;
    }
    const Result<QString> sha256 = fingerprintFiles({checkpoint.path});
    if (!sha256 || sha256.value() != checkpoint.sha256) {
        warn(sha256 ? QStringLiteral("it is not the file this run wrote (its sha256 differs), so its record goes")
                    : sha256.error().toString());
        if (sha256)
            observer().onCheckpointRemoved(checkpoint.path);
        return;
    }
    if (!QFile::remove(checkpoint.path)) {
        warn(QStringLiteral("it could not be deleted"));
        return;
    }
    observer().onCheckpointRemoved(checkpoint.path);
}

} // namespace ty::detail
