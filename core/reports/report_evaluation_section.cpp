#include "report_charts.h"
#include "report_html.h"
#include "report_page.h"
#include "report_sections.h"

#include <QLocale>

namespace ty {

namespace {

constexpr int kMaxConfusionClasses = 40;  // a larger matrix is in the data only
constexpr int kMaxCurveClasses = 10;      // curves drawn one per class up to this many

QString auc(const std::optional<double> &value)
{
    return value ? QString::number(*value, 'f', 4) : QStringLiteral("-");
}

QString confusionTable(const EvaluationReport &e)
{
    const int n = int(e.classes.size());
    qint64 largest = 1;
    for (const qint64 v : e.confusion)
        largest = std::max(largest, v);
    QList<TableCell> header{QStringLiteral("true \u2193 / predicted \u2192")};
    for (const QString &name : e.classes)
        header.append(name);
    QList<QList<TableCell>> rows;
    for (int t = 0; t < n; ++t) {
        QList<TableCell> row{TableCell::markup(QStringLiteral("<b>") + htmlEscaped(e.classes[t]) + QStringLiteral("</b>"))};
        for (int p = 0; p < n; ++p) {
            const qint64 count = e.confusionAt(t, p);
            // Shaded by the share of the largest cell: blue on the diagonal, red off it.
            TableCell cell = TableCell::number(QString::number(count));
            if (count > 0)
                cell.style = QStringLiteral("background: rgba(%1, %2)")
                                 .arg(t == p ? QStringLiteral("33, 150, 243") : QStringLiteral("229, 57, 53"))
                                 .arg(0.15 + 0.7 * double(count) / double(largest), 0, 'f', 2);
            row.append(cell);
        }
        rows.append(row);
    }
    return dataTable(header, rows, QStringLiteral("confusion"));
}

QString perClassTable(const EvaluationReport &e)
{
    QList<QList<TableCell>> rows;
    const auto scoreRow = [&](const ClassScore &s, const QString &rocAuc, const QString &ap) {
        return QList<TableCell>{s.name,
                                TableCell::number(QString::number(s.precision, 'f', 4)),
                                TableCell::number(QString::number(s.recall, 'f', 4)),
                                TableCell::number(QString::number(s.f1, 'f', 4)),
                                TableCell::number(QString::number(s.support)),
                                TableCell::number(rocAuc),
                                TableCell::number(ap)};
    };
    for (int i = 0; i < e.perClass.size(); ++i) {
        const ClassCurves *curves = i < e.curves.perClass.size() ? &e.curves.perClass[i] : nullptr;
        rows.append(scoreRow(e.perClass[i], curves ? auc(curves->rocAuc) : QStringLiteral("-"),
                             curves ? auc(curves->averagePrecision) : QStringLiteral("-")));
    }
    rows.append(scoreRow(e.macroAverage, e.curves.binary ? QStringLiteral("-") : auc(e.curves.rocAuc),
                         e.curves.binary ? QStringLiteral("-") : auc(e.curves.averagePrecision)));
    rows.append(scoreRow(e.weightedAverage, QStringLiteral("-"), QStringLiteral("-")));
    return dataTable({QStringLiteral("class"), TableCell::number(QStringLiteral("precision")), TableCell::number(QStringLiteral("recall")),
                      TableCell::number(QStringLiteral("F1")), TableCell::number(QStringLiteral("support")),
                      TableCell::number(QStringLiteral("ROC AUC")), TableCell::number(QStringLiteral("average precision"))},
                     rows);
}

QString curveCharts(const ClassifierCurves &curves)
{
    QList<ChartSeries> roc, pr;
    for (const ClassCurves &c : curves.perClass) {
        if (curves.binary && c.index != 1)
            continue;  // two classes: the positive class's curves
        if (c.roc.x.empty() && c.precisionRecall.x.empty())
            continue;
        if (roc.size() >= kMaxCurveClasses)
            break;
        roc.append(ChartSeries{QStringLiteral("%1 (%2)").arg(c.name, auc(c.rocAuc)), c.roc.x, c.roc.y});
        pr.append(ChartSeries{QStringLiteral("%1 (%2)").arg(c.name, auc(c.averagePrecision)), c.precisionRecall.x, c.precisionRecall.y});
    }
    const QString scope = curves.binary ? QStringLiteral("positive class") : QStringLiteral("one-vs-rest");
    QString out = lineChartSvg(QStringLiteral("ROC (%1), AUC %2").arg(scope, auc(curves.rocAuc)), roc,
                               ChartAxes{QStringLiteral("false positive rate"), QStringLiteral("true positive rate"), true, true})
                  + lineChartSvg(QStringLiteral("Precision-recall (%1), average precision %2").arg(scope, auc(curves.averagePrecision)), pr,
                                 ChartAxes{QStringLiteral("recall"), QStringLiteral("precision"), true, false});
    if (curves.perClass.size() > kMaxCurveClasses && !curves.binary)
        out += paragraph(QStringLiteral("The first %1 of %2 classes are drawn; every class's curve is in the data.")
                             .arg(kMaxCurveClasses).arg(curves.perClass.size()),
                         QStringLiteral("note"));
    return out;
}

} // namespace

QString evaluationSectionBody(const EvaluationReport &e)
{
    const QLocale locale(QLocale::English);
    QList<QPair<QString, QString>> facts{
        {QStringLiteral("Split"), e.split},
        {QStringLiteral("Checkpoint"), e.checkpointStep >= 0 ? QStringLiteral("step %1").arg(e.checkpointStep) : QStringLiteral("-")},
        {QStringLiteral("Samples"), locale.toString(e.count)}};
    for (auto it = e.metrics.constBegin(); it != e.metrics.constEnd(); ++it)
        facts.append({it.key(), reportNumber(it.value(), 6)});
    for (auto it = e.undefinedMetrics.constBegin(); it != e.undefinedMetrics.constEnd(); ++it)
        facts.append({it.key(), QStringLiteral("undefined: ") + it.value()});
    if (!e.classification) {
        facts.append({QStringLiteral("Mean absolute error"), reportNumber(e.mae, 6)});
        facts.append({QStringLiteral("Root mean squared error"), reportNumber(e.rmse, 6)});
        facts.append({QStringLiteral("R\u00b2"), reportNumber(e.r2, 6)});
        return factsTable(facts);
    }
    facts.append({QStringLiteral("Accuracy"), QString::number(e.accuracy, 'f', 4)});
    if (e.topK > 1)
        facts.append({QStringLiteral("Top-%1 accuracy").arg(e.topK), QString::number(e.topKAccuracy, 'f', 4)});
    if (!e.curves.empty()) {
        facts.append({QStringLiteral("ROC AUC"), auc(e.curves.rocAuc) + (e.curves.binary ? QStringLiteral(" (positive class)")
                                                                                           : QStringLiteral(" (macro over %1 classes)").arg(e.curves.averagedClasses))});
        facts.append({QStringLiteral("Average precision"), auc(e.curves.averagePrecision)});
        if (!e.curves.note.isEmpty())
            facts.append({QStringLiteral("Note"), e.curves.note});
    }
    QString body = factsTable(facts) + QStringLiteral("<h3>Confusion matrix</h3>");
    body += e.classes.size() <= kMaxConfusionClasses && e.confusion.size() == size_t(e.classes.size() * e.classes.size())
                ? confusionTable(e)
                : paragraph(QStringLiteral("%1 classes: the matrix is in the data only.").arg(e.classes.size()), QStringLiteral("note"));
    body += QStringLiteral("<h3>Per class</h3>") + perClassTable(e);
    if (!e.curves.empty())
        body += QStringLiteral("<h3>ROC and precision-recall curves</h3>") + curveCharts(e.curves);
    return body;
}

} // namespace ty
