#include "text_generator.h"

#include "detail/trained_model.h"
#include "block_registry.h"
#include "portable_random.h"
#include "text_dataset.h"

namespace ty {

namespace {

// The prompt's last `window` characters as ids, padded in front with the line break (or a space) when shorter:
// a window of the word list starts after a line break just as often.
Result<std::vector<int64_t>> contextOf(const QString &prompt, const QStringList &vocabulary, int64_t window)
{
    Result<std::vector<int64_t>> ids = characterIds(prompt, vocabulary);
    if (!ids)
        return Error::atField(QStringLiteral("--text"), ids.error().message);
    std::vector<int64_t> context = ids.value();
    if (int64_t(context.size()) < window) {
        int64_t pad = vocabulary.indexOf(QStringLiteral("\\n"));
        if (pad < 0)
            pad = vocabulary.indexOf(QStringLiteral("space"));
        if (pad < 0)
            return Error::atField(QStringLiteral("--text"), QStringLiteral("the model reads %1 characters at once and its vocabulary has no line "
                                                                        "break or space to pad a shorter text with: give at least %1").arg(window));
        context.insert(context.begin(), size_t(window - int64_t(context.size())), pad);
    }
    return std::vector<int64_t>(context.end() - window, context.end());
}

// One draw from softmax(logits / temperature); the most probable class when temperature is 0.
int64_t sampleNext(const torch::Tensor &logits, double temperature, PortableRandom &random)
{
    if (temperature <= 0)
        return logits.argmax().item<int64_t>();
    const torch::Tensor p = torch::softmax(logits.to(torch::kDouble) / temperature, 0).contiguous();
    const double *probability = p.data_ptr<double>();
    const double u = random.uniform();
    double sum = 0;
    for (int64_t i = 0; i < p.size(0); ++i) {
        sum += probability[i];
        if (u < sum)
            return i;
    }
    return p.size(0) - 1;
}

Result<TextGeneration> generate(const Preset &preset, const TextGenerationOptions &options)
{
    Result<std::unique_ptr<detail::TrainedModel>> loaded =
        detail::loadTrainedModel(preset, options.weightsPath, options.device, options.checkPresetHash);
    if (!loaded)
        return loaded.error();
    const detail::TrainedModel &model = *loaded.value();
    const Node *data = preset.graph.node(model.datasetNode);
    const BlockDescriptor *dataBlock = data ? BlockRegistry::builtin().find(data->block) : nullptr;
    if (!dataBlock || !dataBlock->yieldsTextWindows)
        return Error::atField(QStringLiteral("--text"), QStringLiteral("needs a model trained on text (dataset.text); this one reads %1")
                                                            .arg(data ? data->block : QStringLiteral("no data set")));
    const detail::LossHead *scored = nullptr;
    for (const detail::LossHead &head : model.pipeline.losses)
        if (head.optimized && !scored)
            scored = &head;
    if (!scored)
        return Error(QStringLiteral("the pipeline has no loss whose input is the model's output"));

    TextGeneration out;
    const QStringList &vocabulary = model.data.classNames;
    out.window = int(model.data.shape.sampleShape.at(0));
    out.prompt = data->params.value(QStringLiteral("lowercase")).toBool() ? options.prompt.toLower() : options.prompt;
    Result<std::vector<int64_t>> context = contextOf(out.prompt, vocabulary, out.window);
    if (!context)
        return context.error();
    std::vector<int64_t> window = context.value();

    torch::NoGradGuard noGrad;
    PortableRandom random(options.seed, 7);
    const auto logitsAfter = [&](const std::vector<int64_t> &ids) {
        const torch::Tensor x = torch::tensor(std::vector<float>(ids.begin(), ids.end())).reshape({1, int64_t(ids.size())});
        return model.pipeline.model->forward(x.to(model.device), scored->slot).to(torch::kCPU).reshape({-1});
    };
    const torch::Tensor first = logitsAfter(window);
    const int64_t k = std::clamp<int64_t>(options.topK, 1, first.size(0));
    const auto [topValues, topIndices] = torch::softmax(first.to(torch::kDouble), 0).topk(k);
    for (int64_t j = 0; j < k; ++j) {
        const int index = int(topIndices[j].item<int64_t>());
        out.next.push_back(ClassProbability{index, vocabulary.value(index), topValues[j].item<double>()});
    }
    torch::Tensor logits = first;
    for (int i = 0; i < options.length; ++i) {
        const int64_t id = sampleNext(logits, options.temperature, random);
        const char32_t c = characterOfClassName(vocabulary.value(int(id)));
        out.continuation += QString::fromUcs4(&c, 1);
        window.erase(window.begin());
        window.push_back(id);
        if (i + 1 < options.length)
            logits = logitsAfter(window);
    }
    return out;
}

} // namespace

Result<TextGeneration> generateText(const Preset &preset, const TextGenerationOptions &options)
{
    try {
        return generate(preset, options);
    } catch (const std::exception &e) {
        return Error(QStringLiteral("generating text failed: %1").arg(QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0)));
    }
}

} // namespace ty
