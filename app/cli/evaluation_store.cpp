#include "evaluation_store.h"

#include "evaluation_records.h"
#include "run_database.h"

namespace ty::cli {

Result<qint64> storeEvaluation(const QString &dbPath, qint64 runId, const EvaluationReport &report)
{
    Result<std::unique_ptr<RunDatabase>> opened = RunDatabase::open(dbPath);
    if (!opened)
        return opened.error();
    return opened.value()->addEvaluation(evaluationRecordOf(runId, report), evaluationSampleRowsOf(report));
}

namespace {

QString fixed(double v, int decimals = 4) { return QString::number(v, 'f', decimals); }

QString scoreLine(const ClassScore &s, int nameWidth)
{
    return QStringLiteral("  %1  %2  %3  %4  %5\n")
        .arg(s.name.left(nameWidth), -nameWidth)
        .arg(fixed(s.precision), 9)
        .arg(fixed(s.recall), 6)
        .arg(fixed(s.f1), 6)
        .arg(s.support, 7);
}

// ROC AUC and average precision, and what they average; empty for an evaluation without curves.
QString curvesLine(const ClassifierCurves &c)
{
    if (c.empty())
        return QString();
    const auto figure = [](const std::optional<double> &v) { return v ? fixed(*v) : QStringLiteral("none"); };
    QString text = QStringLiteral("  ROC AUC %1   average precision %2 (%3)\n")
                       .arg(figure(c.rocAuc), figure(c.averagePrecision),
                            c.binary ? QStringLiteral("class \"%1\" against \"%2\"").arg(c.perClass.value(1).name, c.perClass.value(0).name)
                                     : QStringLiteral("one-vs-rest, macro over %1 classes").arg(c.averagedClasses));
    if (!c.note.isEmpty())
        text += QStringLiteral("  (%1)\n").arg(c.note);
    return text;
}

} // namespace

QString evaluationText(const EvaluationReport &r, int worst)
{
    QString text = QStringLiteral("%1 split, %2 samples, weights of step %3\n").arg(r.split).arg(r.count).arg(r.checkpointStep);
    if (!r.classification) {
        text += QStringLiteral("  MAE %1   RMSE %2   R² %3\n").arg(fixed(r.mae), fixed(r.rmse), fixed(r.r2));
        text += QStringLiteral("largest residuals (sample: target, predicted, residual)\n");
        for (const EvaluatedSample &s : r.worst(worst))
            text += QStringLiteral("  #%1: %2, %3, %4\n").arg(s.index).arg(s.label).arg(s.predicted).arg(fixed(s.confidence));
        return text;
    }
    text += QStringLiteral("  accuracy %1   top-%2 accuracy %3").arg(fixed(r.accuracy)).arg(r.topK).arg(fixed(r.topKAccuracy));
    if (r.metrics.contains(QStringLiteral("loss")))
        text += QStringLiteral("   loss %1").arg(fixed(r.metrics.value(QStringLiteral("loss"))));
    text += QLatin1Char('\n');
    text += curvesLine(r.curves);
    int nameWidth = 12;
    for (const QString &name : r.classes)
        nameWidth = std::max(nameWidth, int(std::min<qsizetype>(name.size(), 24)));
    text += QStringLiteral("  %1  precision  recall      f1  support\n").arg(QStringLiteral("class"), -nameWidth);
    for (const ClassScore &s : r.perClass)
        text += scoreLine(s, nameWidth);
    text += scoreLine(r.macroAverage, nameWidth) + scoreLine(r.weightedAverage, nameWidth);
    text += QStringLiteral("confusion matrix (rows: true class, columns: predicted, in class order)\n");
    const int n = int(r.classes.size());
    for (int t = 0; t < n; ++t) {
        text += QStringLiteral("  %1").arg(r.classes[t].left(nameWidth), -nameWidth);
        for (int p = 0; p < n; ++p)
            text += QStringLiteral(" %1").arg(r.confusionAt(t, p), 6);
        text += QLatin1Char('\n');
    }
    const QList<EvaluatedSample> mistakes = r.worst(worst);
    if (!mistakes.isEmpty()) {
        text += QStringLiteral("most confident mistakes (sample: true -> predicted, confidence)\n");
        for (const EvaluatedSample &s : mistakes)
            text += QStringLiteral("  #%1: %2 -> %3, %4\n").arg(s.index).arg(r.className(s.label), r.className(s.predicted), fixed(s.confidence));
    }
    return text;
}

} // namespace ty::cli
