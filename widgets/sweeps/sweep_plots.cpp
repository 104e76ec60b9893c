#include "sweep_plots.h"

#include "common/run_colors.h"
#include "plots/qcustomplot_include.h"
#include "run_database.h"

#include <algorithm>
#include <cmath>

namespace ty {

namespace {

// How one key's values map onto [0, 1].
struct KeyScale {
    bool numeric = true;
    bool log = false;
    double low = 0, high = 1;
    QStringList categories;

    static KeyScale of(const QStringList &values)
    {
        KeyScale scale;
        QList<double> numbers;
        for (const QString &text : values) {
            bool ok = false;
            const double v = text.toDouble(&ok);
            if (!ok) {
                scale.numeric = false;
                break;
            }
            numbers.append(v);
        }
        if (!scale.numeric || numbers.isEmpty()) {
            scale.numeric = false;
            for (const QString &text : values)
                if (!scale.categories.contains(text))
                    scale.categories.append(text);
            std::sort(scale.categories.begin(), scale.categories.end());
            return scale;
        }
        scale.low = *std::min_element(numbers.begin(), numbers.end());
        scale.high = *std::max_element(numbers.begin(), numbers.end());
        scale.log = scale.low > 0 && scale.high / scale.low > 10;
        return scale;
    }
    double position(const QString &text) const
    {
        if (!numeric) {
            const int i = int(categories.indexOf(text));
            return categories.size() > 1 ? double(i) / double(categories.size() - 1) : 0.5;
        }
        const double v = text.toDouble();
        const double a = log ? std::log10(low) : low, b = log ? std::log10(high) : high, x = log ? std::log10(v) : v;
        return b > a ? (x - a) / (b - a) : 0.5;
    }
    QString lowText() const { return numeric ? QString::number(low, 'g', 3) : categories.value(0); }
    QString highText() const { return numeric ? QString::number(high, 'g', 3) : categories.value(categories.size() - 1); }
};

QPen trialPen(const SweepRecord &sweep, const SweepTrialRow &row, const QColor &color)
{
    QPen pen(color, row.runId != 0 && row.runId == sweep.bestRun ? 3.0 : 1.4);
    if (row.status == QLatin1String("pruned"))
        pen.setStyle(Qt::DashLine);
    return pen;
}

// Better trials darker: the rank among the trials with a value, 0 the best.
QColor rankColor(int rank, int count)
{
    const double t = count > 1 ? double(rank) / double(count - 1) : 0.0;
    return QColor::fromHsvF(0.58, 0.85 - 0.6 * t, 0.65 + 0.25 * t);
}

void resetPlot(QCustomPlot *plot)
{
    plot->clearGraphs();
    plot->clearPlottables();
    plot->clearItems();
    plot->xAxis->setScaleType(QCPAxis::stLinear);
    plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    plot->yAxis->setScaleType(QCPAxis::stLinear);
    plot->yAxis->setTickLabels(true);
    plot->xAxis->setLabel(QString());
    plot->yAxis->setLabel(QString());
}

// A note in the middle of a chart that has nothing to show: why not.
void addNote(QCustomPlot *plot, const QString &text)
{
    auto *note = new QCPItemText(plot);
    note->setObjectName(QStringLiteral("note"));
    note->position->setType(QCPItemPosition::ptAxisRectRatio);
    note->position->setCoords(0.5, 0.5);
    note->setPositionAlignment(Qt::AlignCenter);
    note->setTextAlignment(Qt::AlignCenter);
    note->setPadding(QMargins(6, 4, 6, 4));
    note->setText(text);
    note->setColor(plot->palette().color(QPalette::PlaceholderText));
}

QString noValuesYet(const SweepRecord &sweep)
{
    return sweep.id == 0 ? QObject::tr("No sweep chosen") : QObject::tr("No trial has a value of %1 yet").arg(sweep.metric);
}

QList<SweepTrialRow> withValues(const QList<SweepTrialRow> &rows)
{
    QList<SweepTrialRow> out;
    for (const SweepTrialRow &row : rows)
        if (row.value)
            out.append(row);
    return out;
}

} // namespace

void drawParallelCoordinates(QCustomPlot *plot, const SweepRecord &sweep, const QList<SweepTrialRow> &rows)
{
    resetPlot(plot);
    const QStringList keys = sweepKeys(rows);
    const QList<SweepTrialRow> ranked = withValues(rows);
    QList<KeyScale> scales;
    for (const QString &key : keys) {
        QStringList values;
        for (const SweepTrialRow &row : rows)
            values.append(sweepTrialValue(row.sets, key));
        scales.append(KeyScale::of(values));
    }
    QStringList metricValues;
    for (const SweepTrialRow &row : ranked)
        metricValues.append(QString::number(*row.value, 'g', 17));
    const KeyScale metricScale = KeyScale::of(metricValues);
    const int axes = int(keys.size()) + 1;

    // Draw worst first, so the best lines lie on top.
    for (int rank = int(ranked.size()) - 1; rank >= 0; --rank) {
        const SweepTrialRow &row = ranked.at(rank);
        auto *curve = new QCPCurve(plot->xAxis, plot->yAxis);
        QVector<double> x, y;
        for (int i = 0; i < keys.size(); ++i) {
            x.append(i);
            y.append(scales.at(i).position(sweepTrialValue(row.sets, keys.at(i))));
        }
        x.append(axes - 1);
        y.append(metricScale.numeric ? metricScale.position(QString::number(*row.value, 'g', 17)) : 0.5);
        curve->setData(x, y);
        curve->setPen(trialPen(sweep, row, rankColor(rank, int(ranked.size()))));
        curve->setName(QStringLiteral("trial %1").arg(row.trial));
    }
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int i = 0; i < axes; ++i) {
        const bool metric = i == axes - 1;
        ticker->addTick(i, metric ? sweep.metric : keys.at(i));
        auto *line = new QCPItemStraightLine(plot);
        line->point1->setCoords(i, 0);
        line->point2->setCoords(i, 1);
        line->setPen(QPen(QColor(0x90, 0x90, 0x90), 1));
        const KeyScale &scale = metric ? metricScale : scales.at(i);
        for (const bool top : {false, true}) {
            auto *label = new QCPItemText(plot);
            label->position->setCoords(i, top ? 1.04 : -0.04);
            label->setText(top ? scale.highText() : scale.lowText());
            label->setColor(plot->xAxis->tickLabelColor());
            QFont font = label->font();
            font.setPointSizeF(font.pointSizeF() * 0.85);
            label->setFont(font);
        }
    }
    plot->xAxis->setTicker(ticker);
    if (ranked.isEmpty())
        addNote(plot, noValuesYet(sweep));
    plot->xAxis->setRange(-0.3, axes - 0.7);
    plot->yAxis->setRange(-0.1, 1.1);
    plot->yAxis->setTickLabels(false);
    plot->yAxis->setTicks(false);
    plot->replot();
}

void drawMetricAgainstKey(QCustomPlot *plot, const SweepRecord &sweep, const QList<SweepTrialRow> &rows, const QString &key)
{
    resetPlot(plot);
    plot->yAxis->setTicks(true);
    const QList<SweepTrialRow> ranked = withValues(rows);
    QStringList values;
    for (const SweepTrialRow &row : ranked)
        values.append(sweepTrialValue(row.sets, key));
    const KeyScale scale = KeyScale::of(values);
    QVector<double> x, y, bestX, bestY;
    for (const SweepTrialRow &row : ranked) {
        const QString text = sweepTrialValue(row.sets, key);
        const double position = scale.numeric ? text.toDouble() : double(scale.categories.indexOf(text));
        (row.runId == sweep.bestRun ? bestX : x).append(position);
        (row.runId == sweep.bestRun ? bestY : y).append(*row.value);
    }
    QCPGraph *all = plot->addGraph();
    all->setLineStyle(QCPGraph::lsNone);
    all->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(0x1f, 0x6f, 0xd0), QColor(0x1f, 0x6f, 0xd0, 90), 8));
    all->setData(x, y);
    QCPGraph *best = plot->addGraph();
    best->setLineStyle(QCPGraph::lsNone);
    best->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssStar, QColor(0xd3, 0x7a, 0x00), 14));
    best->setData(bestX, bestY);
    if (scale.numeric) {
        if (scale.log) {
            plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
            plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
            plot->xAxis->setRange(scale.low / 2, scale.high * 2);
        } else {
            const double pad = scale.high > scale.low ? (scale.high - scale.low) * 0.1 : 1;
            plot->xAxis->setRange(scale.low - pad, scale.high + pad);
        }
    } else {
        QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
        for (int i = 0; i < scale.categories.size(); ++i)
            ticker->addTick(i, scale.categories.at(i));
        plot->xAxis->setTicker(ticker);
        plot->xAxis->setRange(-0.5, scale.categories.size() - 0.5);
    }
    plot->xAxis->setLabel(key);
    plot->yAxis->setLabel(sweep.metric);
    if (ranked.isEmpty())
        addNote(plot, noValuesYet(sweep));
    if (!ranked.isEmpty()) {
        double low = *ranked.first().value, high = low;
        for (const SweepTrialRow &row : ranked) {
            low = std::min(low, *row.value);
            high = std::max(high, *row.value);
        }
        const double pad = high > low ? (high - low) * 0.1 : 0.05;
        plot->yAxis->setRange(low - pad, high + pad);
    }
    plot->replot();
}

void drawTrialCurves(QCustomPlot *plot, const RunDatabase &db, const SweepRecord &sweep, const QList<SweepTrialRow> &rows)
{
    resetPlot(plot);
    plot->yAxis->setTicks(true);
    bool any = false;
    double low = 0, high = 0;
    int lastEpoch = 1;
    int longest = 0;  // the most epochs a trial has a value for
    for (const SweepTrialRow &row : rows) {
        if (row.runId == 0)
            continue;
        const Result<QList<MetricPoint>> points = db.metrics(row.runId, sweep.metric);
        if (!points)
            continue;
        QMap<int, double> byEpoch;
        for (const MetricPoint &point : points.value())
            if (std::isfinite(point.value))
                byEpoch.insert(point.epoch, point.value);
        QCPGraph *graph = plot->addGraph();
        graph->setName(QStringLiteral("trial %1").arg(row.trial));
        graph->setPen(trialPen(sweep, row, style::runColor(row.runId)));
        // A dot at each epoch: a trial of one epoch is a single point, which a line alone does not draw.
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 6));
        longest = std::max(longest, int(byEpoch.size()));
        for (auto it = byEpoch.cbegin(); it != byEpoch.cend(); ++it) {
            graph->addData(it.key(), it.value());
            low = any ? std::min(low, it.value()) : it.value();
            high = any ? std::max(high, it.value()) : it.value();
            lastEpoch = std::max(lastEpoch, it.key());
            any = true;
        }
    }
    // Trials of one epoch have a point each: the axis says why there is no curve (a note would cover the points).
    plot->xAxis->setLabel(any && longest == 1 ? QObject::tr("epoch\n(one per trial: a point each, no curve)") : QObject::tr("epoch"));
    plot->yAxis->setLabel(sweep.metric);
    if (!any)
        addNote(plot, sweep.id == 0 ? noValuesYet(sweep) : QObject::tr("No trial has reported %1 yet").arg(sweep.metric));
    QSharedPointer<QCPAxisTickerFixed> wholeEpochs(new QCPAxisTickerFixed);
    wholeEpochs->setTickStep(1);
    wholeEpochs->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    plot->xAxis->setTicker(wholeEpochs);
    plot->xAxis->setRange(0.5, lastEpoch + 0.5);
    const double pad = high > low ? (high - low) * 0.08 : 0.05;
    plot->yAxis->setRange(low - pad, high + pad);
    plot->replot();
}

} // namespace ty
