#include "evaluator.h"

#include "detail/split_evaluation.h"
#include "detail/trained_model.h"

namespace ty {

namespace {

Result<EvaluationReport> evaluate(const Preset &preset, const EvaluateOptions &options)
{
    const QStringList splits{QStringLiteral("test"), QStringLiteral("val"), QStringLiteral("train")};
    if (!splits.contains(options.split))
        return Error::atField(QStringLiteral("--split"), QStringLiteral("unknown split \"%1\" (known: %2)").arg(options.split.left(40), splits.join(QStringLiteral(", "))));
    Result<std::unique_ptr<detail::TrainedModel>> loaded =
        detail::loadTrainedModel(preset, options.weightsPath, options.device, options.checkPresetHash);
    if (!loaded)
        return loaded.error();
    detail::TrainedModel &model = *loaded.value();
    DataSplit &chosen = options.split == QStringLiteral("test") ? model.data.test
        : options.split == QStringLiteral("val")                      ? model.data.val
                                                                      : model.data.train;
    if (chosen.size() == 0)
        return Error::atNode(model.datasetNode, QStringLiteral("the %1 split of this data set is empty").arg(options.split), QStringLiteral("--split"));
    EvaluationReport report = detail::evaluateSplit(model.pipeline, detail::toDevice(std::move(chosen), model.device), options.split,
                                                    model.data.classNames, model.settings.evalBatchSize, options.topK);
    report.checkpointStep = options.checkpointStep;
    return report;
}

} // namespace

Result<EvaluationReport> evaluateWeights(const Preset &preset, const EvaluateOptions &options)
{
    try {
        return evaluate(preset, options);
    } catch (const std::exception &e) {
        return Error(QStringLiteral("evaluation failed: %1").arg(QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0)));
    }
}

} // namespace ty
