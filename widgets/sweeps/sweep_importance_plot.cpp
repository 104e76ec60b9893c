// The sweep view's importance chart: a horizontal bar per searched key, most important at the top, with its
// spread as an error bar and its Spearman correlation in the key's label; or why there is none.

#include "plots/qcustomplot_include.h"
#include "sweep_plots.h"

#include <algorithm>

namespace ty {

QString importanceLabel(const ParameterImportance &parameter)
{
    const QString rho = parameter.spearman ? QString::number(*parameter.spearman, 'f', 2) : QStringLiteral("–");
    return QObject::tr("%1  (ρ %2)").arg(parameter.name, rho);
}

void drawParameterImportance(QCustomPlot *plot, const SweepImportance &importance)
{
    plot->clearGraphs();
    plot->clearPlottables();
    plot->clearItems();
    plot->xAxis->setLabel(QObject::tr("permutation importance ± spread"));
    plot->yAxis->setLabel(QString());
    QSharedPointer<QCPAxisTickerText> names(new QCPAxisTickerText);
    const QList<ParameterImportance> &parameters = importance.parameters;
    if (parameters.isEmpty()) {
        plot->yAxis->setTicker(names);
        plot->yAxis->setRange(0, 1);
        plot->xAxis->setRange(0, 1);
        auto *note = new QCPItemText(plot);
        note->setObjectName(QStringLiteral("note"));
        note->position->setType(QCPItemPosition::ptAxisRectRatio);
        note->position->setCoords(0.5, 0.5);
        note->setPositionAlignment(Qt::AlignCenter);
        // A line per clause: the chart is narrow beside the trials' table.
        QString reason = importance.absentReason.isEmpty() ? QObject::tr("No sweep chosen") : importance.absentReason;
        note->setText(reason.replace(QStringLiteral("; "), QStringLiteral(";\n")));
        note->setTextAlignment(Qt::AlignCenter);
        note->setColor(plot->palette().color(QPalette::PlaceholderText));
        plot->replot();
        return;
    }
    auto *bars = new QCPBars(plot->yAxis, plot->xAxis);
    bars->setName(QStringLiteral("importance"));
    bars->setWidth(0.6);
    bars->setPen(Qt::NoPen);
    bars->setBrush(QColor(0x1f, 0x6f, 0xd0, 200));
    auto *spread = new QCPErrorBars(plot->yAxis, plot->xAxis);
    spread->setName(QStringLiteral("spread"));
    spread->setDataPlottable(bars);
    spread->setPen(QPen(QColor(0x30, 0x30, 0x30), 1.2));
    QVector<double> keys, values, errors;
    double high = 0, low = 0;
    const int n = int(parameters.size());
    // In the order of the keys, which is the bars' (error bars pair with them by index): the most important at the top.
    for (int key = 0; key < n; ++key) {
        const ParameterImportance &p = parameters.at(n - 1 - key);
        keys.append(key);
        values.append(p.importance);
        errors.append(p.spread);
        names->addTick(key, importanceLabel(p));
        high = std::max(high, p.importance + p.spread);
        low = std::min(low, p.importance - p.spread);
    }
    bars->setData(keys, values);
    spread->setData(errors);
    plot->yAxis->setTicker(names);
    plot->yAxis->setRange(-0.6, n - 0.4);
    plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    plot->xAxis->setRange(std::min(0.0, low * 1.1), std::max(0.05, high * 1.1));
    plot->replot();
}

} // namespace ty
