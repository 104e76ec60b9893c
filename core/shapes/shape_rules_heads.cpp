// Shape rules of the loss.* and metric.* heads: whether a head can compare the network's predictions with the
// dataset's targets. A problem is a sentence shown on the head's input port; empty means it can.

#include "shape_rules.h"

namespace ty {

namespace {

// One logit per class, against class labels (cross entropy, accuracy).
QString classLogitsProblem(const SampleShape &pred, const DatasetShape &data, const QJsonObject &)
{
    if (!data.classification)
        return QStringLiteral("needs class labels, but the dataset has regression targets");
    if (pred != SampleShape{data.numClasses})
        return QStringLiteral("expects [%1] logits per sample (%1 classes), got %2").arg(data.numClasses).arg(shapeText(pred));
    return QString();
}

QString topKProblem(const SampleShape &pred, const DatasetShape &data, const QJsonObject &params)
{
    const QString logits = classLogitsProblem(pred, data, params);
    if (!logits.isEmpty())
        return logits;
    if (params.value(QStringLiteral("k")).toInt() > data.numClasses)
        return QStringLiteral("k is larger than the number of classes (%1)").arg(data.numClasses);
    return QString();
}

// One logit per target column, against 0/1 targets (or the labels of exactly two classes).
QString binaryLogitsProblem(const SampleShape &pred, const DatasetShape &data, const QJsonObject &)
{
    if (data.classification && data.numClasses != 2)
        return QStringLiteral("needs two classes or 0/1 targets, but the dataset has %1 classes").arg(data.numClasses);
    const int64_t width = data.classification ? 1 : data.targetWidth;
    if (pred != SampleShape{width})
        return QStringLiteral("expects [%1] logits per sample, got %2").arg(width).arg(shapeText(pred));
    return QString();
}

// One prediction per target column, against regression targets (mse, l1, huber, mae).
QString regressionProblem(const SampleShape &pred, const DatasetShape &data, const QJsonObject &)
{
    if (data.classification)
        return QStringLiteral("needs regression targets, but the dataset has class labels (use loss.cross_entropy)");
    if (pred != SampleShape{data.targetWidth})
        return QStringLiteral("expects [%1] predictions per sample (the target width), got %2").arg(data.targetWidth).arg(shapeText(pred));
    return QString();
}

// A distribution per sample in log-probabilities, against class labels or against target columns that are
// probabilities (KL divergence).
QString distributionProblem(const SampleShape &pred, const DatasetShape &data, const QJsonObject &)
{
    const int64_t width = data.classification ? data.numClasses : data.targetWidth;
    if (pred != SampleShape{width})
        return QStringLiteral("expects [%1] log-probabilities per sample (%2), got %3")
            .arg(width)
            .arg(data.classification ? QStringLiteral("%1 classes").arg(width) : QStringLiteral("the target width"))
            .arg(shapeText(pred));
    return QString();
}

} // namespace

void addHeadShapeRules(ShapeRules &rules)
{
    rules.heads.add(QStringLiteral("loss.cross_entropy"), classLogitsProblem);
    rules.heads.add(QStringLiteral("loss.bce_with_logits"), binaryLogitsProblem);
    rules.heads.add(QStringLiteral("loss.mse"), regressionProblem);
    rules.heads.add(QStringLiteral("loss.l1"), regressionProblem);
    rules.heads.add(QStringLiteral("loss.huber"), regressionProblem);
    rules.heads.add(QStringLiteral("metric.accuracy"), classLogitsProblem);
    rules.heads.add(QStringLiteral("metric.top_k_accuracy"), topKProblem);
    rules.heads.add(QStringLiteral("loss.nll"), classLogitsProblem);
    rules.heads.add(QStringLiteral("loss.kl_div"), distributionProblem);
    rules.heads.add(QStringLiteral("metric.mae"), regressionProblem);
    rules.heads.add(QStringLiteral("metric.rmse"), regressionProblem);
    rules.heads.add(QStringLiteral("metric.r2"), regressionProblem);
    for (const char *perClass : {"metric.precision", "metric.recall", "metric.f1", "metric.auc"})
        rules.heads.add(QString::fromLatin1(perClass), classLogitsProblem);
}

} // namespace ty
