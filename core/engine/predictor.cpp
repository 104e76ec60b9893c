#include "predictor.h"

#include "detail/trained_model.h"
#include "model_inputs.h"

namespace ty {

namespace {

Result<Predictions> predict(const Preset &preset, const PredictOptions &options)
{
    Result<std::unique_ptr<detail::TrainedModel>> loaded =
        detail::loadTrainedModel(preset, options.weightsPath, options.device, options.checkPresetHash);
    if (!loaded)
        return loaded.error();
    const detail::TrainedModel &model = *loaded.value();
    const detail::CompiledPipeline &pipeline = model.pipeline;
    const TrainingSettings &settings = model.settings;
    const torch::Device device = model.device;
    Result<ModelInputs> inputs = readModelInputs(options.inputs, sampleFormatOf(model.data));
    if (!inputs)
        return inputs.error();
    const detail::LossHead *scored = nullptr;
    for (const detail::LossHead &head : pipeline.losses)
        if (head.optimized && !scored)
            scored = &head;
    if (!scored)
        return Error(QStringLiteral("the pipeline has no loss whose input is the model's output"));

    Predictions out;
    out.classification = pipeline.plan.datasetShape.classification;
    out.classes = model.data.classNames;
    const int64_t classes = pipeline.plan.datasetShape.numClasses;
    while (out.classification && out.classes.size() < classes)
        out.classes << QString::number(out.classes.size());
    const int64_t k = std::clamp<int64_t>(options.topK, 1, std::max<int64_t>(1, classes));

    torch::NoGradGuard noGrad;
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
        return Error(QStringLiteral("prediction failed: %1").arg(QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0)));
    }
}

} // namespace ty
