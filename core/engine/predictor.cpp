#include "predictor.h"

#include "block_registry.h"
#include "dataset_loader.h"
#include "detail/checkpoint.h"
#include "detail/compiled_pipeline.h"
#include "model_inputs.h"
#include "training_settings.h"

namespace ty {

namespace {

Error predictionError(const QString &message, const QString &node = {}, const QString &field = {})
{
    Error e;
    e.message = message;
    e.node = node;
    e.field = field;
    return e;
}

Result<Predictions> predict(const Preset &preset, const PredictOptions &options)
{
    const TrainingSettings settings = TrainingSettings::fromJson(preset.training);
    const BlockRegistry &registry = BlockRegistry::builtin();
    const Node *datasetNode = nullptr;
    for (const Node &node : preset.graph.nodes)
        if (const BlockDescriptor *b = registry.find(node.block); b && b->category == BlockCategory::Dataset && !datasetNode)
            datasetNode = &node;
    if (!datasetNode)
        return predictionError(QStringLiteral("the pipeline has no dataset node"));
    const QString deviceSetting = options.device.isEmpty() ? settings.device : options.device;
    if (deviceSetting == QStringLiteral("cuda") && !torch::cuda::is_available())
        return predictionError(QStringLiteral("device cuda was asked for, but no CUDA device is available to this LibTorch build"));
    const torch::Device device = deviceSetting != QStringLiteral("cpu") && torch::cuda::is_available() ? torch::Device(torch::kCUDA, 0)
                                                                                                      : torch::Device(torch::kCPU);
    Result<LoadedDataset> loaded = loadDataset(DatasetRequest{datasetNode->block, datasetNode->id,
                                                              registry.find(datasetNode->block)->effectiveParams(datasetNode->params),
                                                              preset.baseDir()});
    if (!loaded) {
        Error e = loaded.error();
        if (e.node.isEmpty())
            e.node = datasetNode->id;
        return e;
    }
    Result<ModelInputs> inputs = readModelInputs(options.inputs, sampleFormatOf(loaded.value()));
    if (!inputs)
        return inputs.error();
    detail::CompiledPipeline pipeline = detail::compilePipeline(preset, loaded.value().shape);
    for (const Issue &issue : pipeline.report.issues)
        if (issue.severity == Severity::Error)
            return predictionError(issue.message, issue.node, issue.port.isEmpty() ? issue.param : issue.port);
    if (Status weights = detail::loadModelWeights(options.weightsPath, *pipeline.model,
                                                  options.checkPresetHash ? presetHash(preset) : QString()); !weights)
        return weights.error();
    const detail::LossHead *scored = nullptr;
    for (const detail::LossHead &head : pipeline.losses)
        if (head.optimized && !scored)
            scored = &head;
    if (!scored)
        return predictionError(QStringLiteral("the pipeline has no loss whose input is the model's output"));

    Predictions out;
    out.classification = pipeline.plan.datasetShape.classification;
    out.classes = loaded.value().classNames;
    const int64_t classes = pipeline.plan.datasetShape.numClasses;
    while (out.classification && out.classes.size() < classes)
        out.classes << QString::number(out.classes.size());
    const int64_t k = std::clamp<int64_t>(options.topK, 1, std::max<int64_t>(1, classes));

    torch::NoGradGuard noGrad;
    pipeline.model->to(device);
    pipeline.model->eval();
    const SampleArray &samples = inputs.value().samples;
    std::vector<int64_t> sizes{samples.count};
    sizes.insert(sizes.end(), samples.sampleShape.begin(), samples.sampleShape.end());
    const torch::Tensor x = torch::from_blob(const_cast<float *>(samples.floats.data()), sizes, torch::kFloat).to(device, false, true);
    const int64_t n = samples.count;
    for (int64_t begin = 0; begin < n; begin += settings.evalBatchSize) {
        const int64_t count = std::min<int64_t>(settings.evalBatchSize, n - begin);
        const torch::Tensor output = pipeline.model->forward(x.narrow(0, begin, count), scored->slot).to(torch::kCPU).reshape({count, -1});
        const torch::Tensor probabilities = out.classification ? torch::softmax(output.to(torch::kDouble), 1) : output.to(torch::kDouble);
        const auto [topValues, topIndices] = out.classification ? probabilities.topk(k, 1) : std::make_tuple(torch::Tensor(), torch::Tensor());
        for (int64_t i = 0; i < count; ++i) {
            Prediction p;
            p.input = inputs.value().names.value(int(begin + i));
            if (out.classification) {
                for (int64_t j = 0; j < k; ++j) {
                    const int index = int(topIndices[i][j].item<int64_t>());
                    p.top.push_back(ClassProbability{index, out.classes.value(index), topValues[i][j].item<double>()});
                }
            } else {
                for (int64_t j = 0; j < probabilities.size(1); ++j)
                    p.values.push_back(probabilities[i][j].item<double>());
            }
            out.samples.push_back(std::move(p));
        }
    }
    return out;
}

} // namespace

Result<Predictions> predictWithWeights(const Preset &preset, const PredictOptions &options)
{
    try {
        return predict(preset, options);
    } catch (const std::exception &e) {
        return predictionError(QStringLiteral("prediction failed: %1").arg(QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0)));
    }
}

} // namespace ty
