#include "predictor.h"

#include "detail/trained_model.h"
#include "model_inputs.h"

namespace ty {

namespace {

Result<Predictions> predict(const Preset &preset, const PredictOptions &options, const PredictionSink &emit)
{
    Result<std::unique_ptr<detail::TrainedModel>> loaded =
        detail::loadTrainedModel(preset, options.weightsPath, options.device, options.checkPresetHash);
    if (!loaded)
        return loaded.error();
    const detail::TrainedModel &model = *loaded.value();
    const detail::CompiledPipeline &pipeline = model.pipeline;
    const TrainingSettings &settings = model.settings;
    const torch::Device device = model.device;
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
    ModelInputStream inputs(options.inputs, sampleFormatOf(model.data));
    if (Status checked = inputs.check(); !checked)  // before the first prediction, what can be found without reading
        return checked.error();
    const int64_t batch = std::max<int64_t>(1, settings.evalBatchSize);
    for (;;) {
        Result<ModelInputs> read = inputs.next(batch);
        if (!read)
            return read.error();
        const SampleArray &samples = read.value().samples;
        const int64_t count = samples.count;
        if (count == 0)
            break;
        std::vector<int64_t> sizes{count};
        sizes.insert(sizes.end(), samples.sampleShape.begin(), samples.sampleShape.end());
        const torch::Tensor x = torch::from_blob(const_cast<float *>(samples.floats.data()), sizes, torch::kFloat).to(device);
        const torch::Tensor output = pipeline.model->forward(x, scored->slot).to(torch::kCPU).reshape({count, -1});
        const torch::Tensor probabilities = out.classification ? torch::softmax(output.to(torch::kDouble), 1) : output.to(torch::kDouble);
        const auto [topValues, topIndices] = out.classification ? probabilities.topk(k, 1) : std::make_tuple(torch::Tensor(), torch::Tensor());
        for (int64_t i = 0; i < count; ++i) {
            Prediction p;
            p.input = read.value().names.value(int(i));
            if (out.classification) {
                for (int64_t j = 0; j < k; ++j) {
                    const int index = int(topIndices[i][j].item<int64_t>());
                    p.top.push_back(ClassProbability{index, out.classes.value(index), topValues[i][j].item<double>()});
                }
            } else {
                for (int64_t j = 0; j < probabilities.size(1); ++j)
                    p.values.push_back(probabilities[i][j].item<double>());
            }
            emit(p, out.classification);
        }
    }
    return out;
}

} // namespace

Result<Predictions> predictEach(const Preset &preset, const PredictOptions &options, const PredictionSink &emit)
{
    try {
        return predict(preset, options, emit);
    } catch (const std::exception &e) {
        return Error(QStringLiteral("prediction failed: %1").arg(QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0)));
    }
}

Result<Predictions> predictWithWeights(const Preset &preset, const PredictOptions &options)
{
    std::vector<Prediction> samples;
    Result<Predictions> predicted = predictEach(preset, options, [&](const Prediction &p, bool) { samples.push_back(p); });
    if (predicted)
        predicted.value().samples = std::move(samples);
    return predicted;
}

} // namespace ty
