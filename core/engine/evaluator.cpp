#include "evaluator.h"

#include "block_registry.h"
#include "dataset_loader.h"
#include "detail/checkpoint.h"
#include "detail/split_evaluation.h"
#include "preset_format.h"
#include "training_settings.h"

namespace ty {

namespace {

Error evaluationError(const QString &message, const QString &node = {}, const QString &field = {})
{
    Error e;
    e.message = message;
    e.node = node;
    e.field = field;
    return e;
}

Result<EvaluationReport> evaluate(const Preset &preset, const EvaluateOptions &options)
{
    const TrainingSettings settings = TrainingSettings::fromJson(preset.training);
    const BlockRegistry &registry = BlockRegistry::builtin();
    const Node *datasetNode = nullptr;
    for (const Node &node : preset.graph.nodes)
        if (const BlockDescriptor *b = registry.find(node.block); b && b->category == BlockCategory::Dataset && !datasetNode)
            datasetNode = &node;
    if (!datasetNode)
        return evaluationError(QStringLiteral("the pipeline has no dataset node"));
    const QStringList splits{QStringLiteral("test"), QStringLiteral("val"), QStringLiteral("train")};
    if (!splits.contains(options.split))
        return evaluationError(QStringLiteral("unknown split \"%1\" (known: %2)").arg(options.split.left(40), splits.join(QStringLiteral(", "))),
                               {}, QStringLiteral("--split"));

    const QString deviceSetting = options.device.isEmpty() ? settings.device : options.device;
    if (deviceSetting == QStringLiteral("cuda") && !torch::cuda::is_available())
        return evaluationError(QStringLiteral("device cuda was asked for, but no CUDA device is available to this LibTorch build"));
    const torch::Device device = deviceSetting != QStringLiteral("cpu") && torch::cuda::is_available() ? torch::Device(torch::kCUDA, 0)
                                                                                                      : torch::Device(torch::kCPU);
    if (settings.threads > 0)
        torch::set_num_threads(settings.threads);

    Result<LoadedDataset> loaded = loadDataset(DatasetRequest{datasetNode->block, datasetNode->id,
                                                              registry.find(datasetNode->block)->effectiveParams(datasetNode->params),
                                                              preset.baseDir()});
    if (!loaded) {
        Error e = loaded.error();
        if (e.node.isEmpty())
            e.node = datasetNode->id;
        return e;
    }
    detail::CompiledPipeline pipeline = detail::compilePipeline(preset, loaded.value().shape);
    for (const Issue &issue : pipeline.report.issues)
        if (issue.severity == Severity::Error)
            return evaluationError(issue.message, issue.node, issue.port.isEmpty() ? issue.param : issue.port);
    if (Status weights = detail::loadModelWeights(options.weightsPath, *pipeline.model,
                                                  options.checkPresetHash ? presetHash(preset) : QString()); !weights)
        return weights.error();

    const DataSplit &chosen = options.split == QStringLiteral("test") ? loaded.value().test
        : options.split == QStringLiteral("val")                      ? loaded.value().val
                                                                      : loaded.value().train;
    if (chosen.size() == 0)
        return evaluationError(QStringLiteral("the %1 split of this data set is empty").arg(options.split), datasetNode->id,
                               QStringLiteral("--split"));
    pipeline.model->to(device);
    EvaluationReport report = detail::evaluateSplit(pipeline, detail::toDevice(chosen, device), options.split,
                                                    loaded.value().classNames, settings.evalBatchSize, options.topK);
    report.checkpointStep = options.checkpointStep;
    return report;
}

} // namespace

Result<EvaluationReport> evaluateWeights(const Preset &preset, const EvaluateOptions &options)
{
    try {
        return evaluate(preset, options);
    } catch (const std::exception &e) {
        return evaluationError(QStringLiteral("evaluation failed: %1").arg(QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0)));
    }
}

} // namespace ty
