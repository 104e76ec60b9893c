#include "detail/trained_model.h"

#include "dataset_loader.h"
#include "preset_dataset.h"
#include "preset_sections.h"
#include "detail/checkpoint.h"

namespace ty::detail {

namespace {

} // namespace

Result<std::unique_ptr<TrainedModel>> loadTrainedModel(const Preset &preset, const QString &weightsPath, const QString &device,
                                                       bool checkPresetHash)
{
    auto model = std::make_unique<TrainedModel>();
    model->settings = trainingSettings(preset);
    const Node *datasetNode = firstDatasetNode(preset);
    if (!datasetNode)
        return Error(QStringLiteral("the pipeline has no dataset node"));
    model->datasetNode = datasetNode->id;

    const QString deviceSetting = device.isEmpty() ? model->settings.device : device;
    if (deviceSetting == QStringLiteral("cuda") && !torch::cuda::is_available())
        return Error(QStringLiteral("device cuda was asked for, but no CUDA device is available to this LibTorch build"));
    model->device = deviceSetting != QStringLiteral("cpu") && torch::cuda::is_available() ? torch::Device(torch::kCUDA, 0)
                                                                                         : torch::Device(torch::kCPU);
    if (model->settings.threads > 0)
        torch::set_num_threads(model->settings.threads);

    Result<LoadedDataset> loaded = loadDataset(datasetRequest(preset, *datasetNode));
    if (!loaded) {
        Error e = loaded.error();
        if (e.node.isEmpty())
            e.node = datasetNode->id;
        return e;
    }
    model->data = std::move(loaded).value();
    model->pipeline = compilePipeline(preset, model->data.shape);
    for (const Issue &issue : model->pipeline.report.issues)
        if (issue.severity == Severity::Error)
            return Error::atNode(issue.node, issue.message, issue.port.isEmpty() ? issue.param : issue.port);
    if (Status weights = loadModelWeights(weightsPath, *model->pipeline.model, checkPresetHash ? presetHash(preset) : QString()); !weights)
        return weights.error();
    model->pipeline.model->to(model->device);
    model->pipeline.model->eval();
    return model;
}

} // namespace ty::detail
