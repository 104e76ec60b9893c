#include "metric_plot.h"

#include "common/run_colors.h"
#include "log_axis_ticker.h"
#include "run_database.h"  // displayedRunId: T7 for a teammate's run in Both
#include "qcustomplot_include.h"

#include <QEvent>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace ty {

MetricPlot::MetricPlot(QWidget *parent)
    : QWidget(parent), m_plot(new QCustomPlot(this)), m_replotTimer(new QTimer(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);

    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->setNoAntialiasingOnDrag(true);
    // Solid curves are drawn a segment at a time: a noisy curve reduced to a few points per pixel column is one
    // long zigzag, and stroking it as one wide polyline costs Qt's rasterizer several times more.
    m_plot->setPlottingHint(QCP::phFastPolylines, true);
    m_plot->legend->setVisible(true);
    QFont legendFont = font();
    legendFont.setPointSizeF(legendFont.pointSizeF() * 0.85);
    m_plot->legend->setFont(legendFont);
    m_plot->addLayer(QStringLiteral("epochs"), m_plot->layer(QStringLiteral("main")), QCustomPlot::limAbove);
    // The legend goes in a row under the chart, so it never covers the curves.
    // An empty legend would cap the layout's column at its own width (a squeezed chart before the first
    // sample), so the row is in the layout only while the legend has items (syncLegendRow).
    m_legendRow = new QCPLayoutGrid;
    m_plot->plotLayout()->addElement(1, 0, m_legendRow);
    m_legendRow->setMargins(QMargins(5, 0, 5, 5));
    m_legendRow->addElement(0, 0, m_plot->legend);
    m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    m_plot->legend->setWrap(3);
    m_plot->legend->setBorderPen(Qt::NoPen);
    m_plot->plotLayout()->setRowStretchFactor(1, 0.001);
    syncLegendRow();
    m_plot->xAxis->setLabel(plotXAxisName(m_xAxis));

    // Hover items live on QCustomPlot's buffered "overlay" layer: moving them replots that layer only.
    m_hoverLine = new QCPItemStraightLine(m_plot);
    m_hoverLine->setLayer(QStringLiteral("overlay"));
    m_hoverLine->setVisible(false);
    m_hoverLabel = new QCPItemText(m_plot);
    m_hoverLabel->setLayer(QStringLiteral("overlay"));
    m_hoverLabel->setPositionAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_hoverLabel->setTextAlignment(Qt::AlignLeft);
    m_hoverLabel->setPadding(QMargins(6, 4, 6, 4));
    m_hoverLabel->setFont(legendFont);
    m_hoverLabel->setVisible(false);
    createEmptyNote();
    applyPalette();
    updateEmptyNote();

    connect(m_plot, &QCustomPlot::mouseMove, this, &MetricPlot::updateHover);
    connect(m_plot, &QCustomPlot::mouseWheel, this, &MetricPlot::userMovedView);
    connect(m_plot, &QCustomPlot::mouseDoubleClick, this, &MetricPlot::resetView);
    // Stage labels go left or right of their line by where the chart ends: decided once the replot has laid the
    // chart out at its current size (a resize replots without passing through replotNow()).
    connect(m_plot, &QCustomPlot::afterLayout, this, &MetricPlot::placeStageMarks);
    m_plot->installEventFilter(this);

    m_replotTimer->setSingleShot(true);
    m_replotTimer->setInterval(kReplotIntervalMs);
    connect(m_replotTimer, &QTimer::timeout, this, &MetricPlot::replotNow);
}

MetricPlot::~MetricPlot()
{
    // Give the legend row back to the layout, which deletes it (and the legend) with the plot.
    QCPLayoutGrid *layout = m_plot->plotLayout();
    if (!(layout->rowCount() > 1 && layout->hasElement(1, 0)))
        layout->addElement(1, 0, m_legendRow);
}


bool MetricPlot::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_plot && event->type() == QEvent::Leave)
        hideHover();
    return QWidget::eventFilter(watched, event);
}

QString MetricPlot::curveKey(qint64 runId, const QString &metric) const
{
    return QString::number(runId) + QLatin1Char('\n') + metric;
}

RunSeries *MetricPlot::series(qint64 runId)
{
    auto it = m_runs.find(runId);
    return it == m_runs.end() ? nullptr : &it.value();
}

void MetricPlot::addRun(qint64 runId, const QString &label, const QColor &color)
{
    if (!m_runs.contains(runId)) {
        RunSeries run;
        run.runId = runId;
        m_runs.insert(runId, run);
        m_colors.insert(runId, color.isValid() ? color : style::runColor(runId));
    } else if (color.isValid()) {
        m_colors.insert(runId, color);
    }
    m_runs[runId].label = label.isEmpty() ? QStringLiteral("#%1").arg(RunDatabase::displayedRunId(runId)) : label;
    rebuildRun(runId);
}

void MetricPlot::removeRun(qint64 runId)
{
    dropCurves(runId);
    dropStageMarks(runId);
    m_runs.remove(runId);
    m_colors.remove(runId);
    m_dirtyRuns.removeAll(runId);
    scheduleReplot();
}

void MetricPlot::clearRunData(qint64 runId)
{
    if (RunSeries *run = series(runId)) {
        run->metrics.clear();
        run->firstStepAfterEpoch1 = -1;
        run->lastStepOfEpoch1 = 0;
        rebuildRun(runId);
    }
}

void MetricPlot::clear()
{
    for (qint64 id : runIds())
        removeRun(id);
}

QList<qint64> MetricPlot::runIds() const { return m_runs.keys(); }

QColor MetricPlot::runColor(qint64 runId) const { return m_colors.value(runId); }

void MetricPlot::setStepsPerEpoch(qint64 runId, qint64 steps)
{
    RunSeries *run = series(runId);
    if (!run || run->stepsPerEpoch == steps)
        return;
    run->stepsPerEpoch = steps;
    if (m_xAxis == PlotXAxis::Epoch)
        rebuildRun(runId);
}

void MetricPlot::appendPoints(qint64 runId, const QList<MetricPoint> &rows)
{
    const QHash<QString, MetricSamples> byMetric = samplesByMetric(rows);
    for (auto it = byMetric.constBegin(); it != byMetric.constEnd(); ++it)
        appendSamples(runId, it.key(), it.value());
}

void MetricPlot::setMetrics(const QStringList &metrics)
{
    if (metrics == m_metrics)
        return;
    m_metrics = metrics;
    rebuildCurves();
    scheduleReplot();
}

QStringList MetricPlot::knownMetrics() const
{
    QStringList names;
    for (const RunSeries &run : m_runs)
        for (auto it = run.metrics.constBegin(); it != run.metrics.constEnd(); ++it)
            if (!names.contains(it.key()))
                names << it.key();
    std::sort(names.begin(), names.end());
    return names;
}

void MetricPlot::setXAxis(PlotXAxis axis)
{
    if (axis == m_xAxis)
        return;
    m_xAxis = axis;
    m_plot->xAxis->setLabel(plotXAxisName(axis));
    if (axis == PlotXAxis::WallTime) {
        auto ticker = QSharedPointer<QCPAxisTickerTime>::create();
        ticker->setTimeFormat(QStringLiteral("%h:%m:%s"));
        m_plot->xAxis->setTicker(ticker);
    } else {
        m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    }
    rebuildCurves();
    resetView();
}

void MetricPlot::setSmoothing(double weight)
{
    weight = std::clamp(weight, 0.0, 0.999);
    if (weight == m_smoothing)
        return;
    m_smoothing = weight;
    rebuildCurves();
}

void MetricPlot::setLogY(bool logarithmic)
{
    if (logarithmic == m_logY)
        return;
    m_logY = logarithmic;
    applyScale();
    resetView();
}

void MetricPlot::applyScale()
{
    if (m_logY) {
        m_plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
        m_plot->yAxis->setTicker(QSharedPointer<LogAxisTicker>::create());
        m_plot->yAxis->setNumberFormat(QStringLiteral("g"));
    } else {
        m_plot->yAxis->setScaleType(QCPAxis::stLinear);
        m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
        m_plot->yAxis->setNumberFormat(QStringLiteral("gbd"));
    }
}

void MetricPlot::setTitle(const QString &title)
{
    m_plot->yAxis->setLabel(title);
    scheduleReplot();
}

void MetricPlot::resetView()
{
    m_followData = true;
    scheduleReplot();
}

void MetricPlot::userMovedView() { m_followData = false; }

void MetricPlot::scheduleReplot()
{
    if (!m_replotTimer->isActive())
        m_replotTimer->start();
}

bool MetricPlot::replotPending() const { return m_replotTimer->isActive(); }

void MetricPlot::replotNow()
{
    m_replotTimer->stop();
    const QList<qint64> dirty = m_dirtyRuns;
    for (qint64 id : dirty)
        rebuildRun(id);
    m_replotTimer->stop();  // rebuildRun() scheduled again: this replot covers it
    if (m_followData)
        followData();
    placeStageMarks();
    syncLegendRow();
    updateEmptyNote();
    m_plot->replot();
    ++m_replots;
    Q_EMIT replotted();
}

void MetricPlot::syncLegendRow()
{
    QCPLayoutGrid *layout = m_plot->plotLayout();
    const bool shown = layout->rowCount() > 1 && layout->hasElement(1, 0);
    const bool wanted = m_plot->legend->itemCount() > 0;
    if (shown == wanted)
        return;
    if (wanted) {
        layout->addElement(1, 0, m_legendRow);
        layout->setRowStretchFactor(1, 0.001);
    } else {
        layout->take(m_legendRow);  // the row keeps the legend; the layout no longer owns the row
        layout->simplify();
    }
}

int MetricPlot::graphPointCount(qint64 runId, const QString &metric, bool smoothed) const
{
    const auto it = m_curves.constFind(curveKey(runId, metric));
    if (it == m_curves.constEnd())
        return 0;
    const QCPGraph *graph = smoothed ? it->smooth : it->raw;
    return graph ? graph->data()->size() : 0;
}

qint64 MetricPlot::sampleCount(qint64 runId, const QString &metric) const
{
    const auto run = m_runs.constFind(runId);
    if (run == m_runs.constEnd())
        return 0;
    const auto samples = run->metrics.constFind(metric);
    return samples == run->metrics.constEnd() ? 0 : qint64(samples->size());
}

} // namespace ty
