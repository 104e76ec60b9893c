#include "report_importance.h"

#include "report_html.h"
#include "report_page.h"
#include "report_svg.h"
#include "sweep_importance.h"

#include <algorithm>
#include <cmath>

namespace ty {

namespace {

// Each parameter's importance as a bar with its spread as a whisker, most important first.
QString importanceBars(const QList<ParameterImportance> &parameters)
{
    constexpr double kWidth = 640, kRow = 26, kLabel = 180, kTop = 10;
    double largest = 0;
    for (const ParameterImportance &p : parameters)
        largest = std::max(largest, p.importance + p.spread);
    if (!(largest > 0))
        largest = 1;
    const double plotW = kWidth - kLabel - 70;
    SvgWriter svg(kWidth, kTop * 2 + kRow * parameters.size(), QStringLiteral("Parameter importance"), QStringLiteral("chart"));
    svg.rect(0, 0, kWidth, kTop * 2 + kRow * parameters.size(), QStringLiteral("#fff"));
    for (int i = 0; i < parameters.size(); ++i) {
        const ParameterImportance &p = parameters[i];
        const double y = kTop + i * kRow;
        const double w = std::max(0.0, p.importance) / largest * plotW;
        svg.beginGroup(QStringLiteral("%1: importance %2 \u00b1 %3").arg(p.name, reportNumber(p.importance, 3), reportNumber(p.spread, 2)));
        svg.text(kLabel - 8, y + 16, p.name, QStringLiteral("end"), 11);
        svg.rect(kLabel, y + 4, w, kRow - 8, QStringLiteral("#1f77b4"));
        const double low = std::max(0.0, p.importance - p.spread) / largest * plotW, high = (p.importance + p.spread) / largest * plotW;
        svg.line(kLabel + low, y + kRow / 2, kLabel + high, y + kRow / 2, QStringLiteral("#333"), 1.2);
        svg.text(kLabel + std::max(w, high) + 6, y + 16, reportNumber(p.importance, 3), QStringLiteral("start"), 10, QStringLiteral("#333"));
        svg.endGroup();
    }
    return svg.finish();
}

} // namespace

QString importanceSectionBody(const SweepRecord &sweep, const QList<SweepTrialRow> &rows, QJsonObject *data)
{
    const SweepImportance importance = sweepImportance(sweep, rows);
    *data = sweepImportanceJson(importance);
    if (importance.parameters.isEmpty())
        return paragraph(QStringLiteral("No importance: %1.").arg(importance.absentReason), QStringLiteral("note"));
    QList<QList<TableCell>> table;
    for (const ParameterImportance &p : importance.parameters)
        table.append({p.name, parameterScaleName(p.scale), TableCell::number(reportNumber(p.importance, 3)),
                      TableCell::number(reportNumber(p.spread, 2)),
                      TableCell::number(p.spearman ? QString::number(*p.spearman, 'f', 3) : QStringLiteral("-"))});
    return paragraph(QStringLiteral("Over the %1 finished trials: the permutation importance of each searched parameter in a random "
                                    "forest that predicts %2 (about the share of its variance the parameter explains), its spread over "
                                    "%3 forests, and its Spearman correlation with %2.")
                         .arg(importance.finishedTrials)
                         .arg(sweep.metric)
                         .arg(ImportanceSettings().repeats))
           + importanceBars(importance.parameters)
           + dataTable({QStringLiteral("parameter"), QStringLiteral("scale"), TableCell::number(QStringLiteral("importance")),
                        TableCell::number(QStringLiteral("spread")), TableCell::number(QStringLiteral("Spearman"))},
                       table);
}

} // namespace ty
