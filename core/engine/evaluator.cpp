#include "evaluator.h"

#include "detail/split_evaluation.h"
#include "detail/trained_model.h"

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
    const QStringList splits{QStringLiteral("test"), QStringLiteral("val"), QStringLiteral("train")};
    if (!splits.contains(options.split))
        return evaluationError(QStringLiteral("unknown split \"%1\" (known: %2)").arg(options.split.left(40), splits.join(QStringLiteral(", "))),
                               {}, QStringLiteral("--split"));
    Result<std::unique_ptr<detail::TrainedModel>> loaded =
        detail::loadTrainedModel(preset, options.weightsPath, options.device, options.checkPresetHash);
    if (!loaded)
        return loaded.error();
    detail::TrainedModel &model = *loaded.value();
    const DataSplit &chosen = options.split == QStringLiteral("test") ? model.data.test
        : options.split == QStringLiteral("val")                      ? model.data.val
                                                                      : model.data.train;
    if (chosen.size() == 0)
        return evaluationError(QStringLiteral("the %1 split of this data set is empty").arg(options.split), model.datasetNode,
                               QStringLiteral("--split"));
    EvaluationReport report = detail::evaluateSplit(model.pipeline, detail::toDevice(chosen, model.device), options.split,
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
        return evaluationError(QStringLiteral("evaluation failed: %1").arg(QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0)));
    }
}

} // namespace ty
