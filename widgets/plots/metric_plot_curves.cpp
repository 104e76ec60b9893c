// MetricPlot: the curves (one raw and one smoothed graph per run and metric), filled from the kept samples
// as they arrive, rebuilt when the axis, smoothing or shown metrics change, and the view that follows them.

#include "metric_plot.h"

#include "qcustomplot_include.h"
#include "summarized_graph.h"

#include <algorithm>
#include <cmath>

namespace ty {

namespace {

const Qt::PenStyle kMetricStyles[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine};

} // namespace

void MetricPlot::appendSamples(qint64 runId, const QString &metric, const MetricSamples &samples)
{
    if (samples.size() == 0)
        return;
    if (!m_runs.contains(runId))
        addRun(runId, QString());
    RunSeries &run = m_runs[runId];
    const auto existing = run.metrics.constFind(metric);
    const size_t before = existing == run.metrics.constEnd() ? 0 : existing->size();
    const bool epochKeysMoved = run.append(metric, samples);
    if (!m_known.contains(metric)) {
        m_known = knownMetrics();
        Q_EMIT knownMetricsChanged(m_known);
    }
    if (epochKeysMoved && m_xAxis == PlotXAxis::Epoch) {
        if (!m_dirtyRuns.contains(runId))
            m_dirtyRuns.append(runId);  // every key of the run moves: rebuilt once, at the next tick
    } else if (m_metrics.contains(metric) && !m_dirtyRuns.contains(runId)) {
        const QString key = curveKey(runId, metric);
        const bool existed = m_curves.contains(key);
        Curve &curve = m_curves[key];
        if (!existed)
            styleCurve(runId, metric, curve);
        fillCurve(runId, curve, run.metrics[metric], existed ? before : 0);
    }
    scheduleReplot();
}

void MetricPlot::fillCurve(qint64 runId, Curve &curve, const MetricSamples &samples, size_t from)
{
    const RunSeries &run = m_runs[runId];
    QVector<QCPGraphData> raw;
    QVector<QCPGraphData> smooth;
    // Filling an empty graph hands these vectors to it: with room for the appends of a live run that follow,
    // which then copy nothing (untouched capacity costs address space, not memory; see MetricSamples::append).
    const int count = int(samples.size() - from);
    raw.reserve(curve.raw->data()->isEmpty() ? count + count / 2 : count);
    if (curve.smooth)
        smooth.reserve(raw.capacity());
    bool sorted = true;
    double previous = -std::numeric_limits<double>::infinity();
    for (size_t i = from; i < samples.size(); ++i) {
        const double key = run.key(samples, i, m_xAxis);
        if (std::isnan(key))
            continue;
        sorted = sorted && key >= previous;
        previous = key;
        const double value = samples.values[i];
        if (std::isfinite(value)) {
            curve.minValue = std::min(curve.minValue, value);
            curve.maxValue = std::max(curve.maxValue, value);
            if (value > 0)
                curve.minPositive = std::min(curve.minPositive, value);
        }
        raw.append(QCPGraphData(key, value));
        if (curve.smooth)
            smooth.append(QCPGraphData(key, curve.smoother.next(value)));
    }
    curve.raw->data()->add(raw, sorted);
    if (curve.smooth)
        curve.smooth->data()->add(smooth, sorted);
}

void MetricPlot::styleCurve(qint64 runId, const QString &metric, Curve &curve)
{
    const QColor color = m_colors.value(runId);
    const int metricIndex = std::max(0, int(m_metrics.indexOf(metric)));
    const Qt::PenStyle style = kMetricStyles[metricIndex % 4];
    const bool perEpoch = !isPerStepMetric(metric);
    if (!curve.raw) {
        curve.raw = new SummarizedGraph(m_plot->xAxis, m_plot->yAxis);
        curve.raw->setAdaptiveSampling(true);
    }
    if (m_smoothing > 0 && !perEpoch && !curve.smooth) {  // a point per epoch is not smoothed
        curve.smooth = new SummarizedGraph(m_plot->xAxis, m_plot->yAxis);
        curve.smooth->setAdaptiveSampling(true);
    }
    curve.smoother = EmaSmoother(m_smoothing);
    QColor faint = color;
    faint.setAlpha(55);
    curve.raw->setPen(QPen(curve.smooth ? faint : perEpoch ? color.darker(115) : color,
                           curve.smooth ? 1.0 : perEpoch ? 2.2 : 1.6, style));
    if (perEpoch) {
        // Rings filled with the background stand out over the step curves of the same colour.
        curve.raw->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(color.darker(115), 2), m_background, 8));
        curve.raw->setLayer(QStringLiteral("epochs"));  // a few points each: never hidden under the step curves
    }
    // Several metrics: "#3 val/loss" (the run's number, as in the run lists, keeps legend entries short); one
    // metric: the run's whole label.
    const QString &label = m_runs[runId].label;
    const QString shortLabel = label.startsWith(QLatin1Char('#')) ? label.section(QLatin1Char(' '), 0, 0) : label;
    const QString name = m_metrics.size() > 1 ? QStringLiteral("%1 %2").arg(shortLabel, metric) : label;
    QCPGraph *shown = curve.smooth ? curve.smooth : curve.raw;
    shown->setName(name);
    if (curve.smooth) {
        curve.smooth->setPen(QPen(color, 2.0, style));
        curve.raw->removeFromLegend();
    }
}

void MetricPlot::dropCurves(qint64 runId)
{
    const QString prefix = QString::number(runId) + QLatin1Char('\n');
    for (auto it = m_curves.begin(); it != m_curves.end();) {
        if (it.key().startsWith(prefix)) {
            m_plot->removeGraph(it->raw);
            if (it->smooth)
                m_plot->removeGraph(it->smooth);
            it = m_curves.erase(it);
        } else {
            ++it;
        }
    }
}

void MetricPlot::rebuildRun(qint64 runId)
{
    dropCurves(runId);
    m_dirtyRuns.removeAll(runId);
    const RunSeries *run = series(runId);
    if (!run)
        return;
    for (const QString &metric : std::as_const(m_metrics)) {
        const auto samples = run->metrics.constFind(metric);
        if (samples == run->metrics.constEnd() || samples->size() == 0)
            continue;
        Curve &curve = m_curves[curveKey(runId, metric)];
        styleCurve(runId, metric, curve);
        fillCurve(runId, curve, *samples, 0);
    }
    scheduleReplot();
}

void MetricPlot::rebuildCurves()
{
    for (qint64 id : runIds())
        rebuildRun(id);
}

void MetricPlot::followData()
{
    double xLow = std::numeric_limits<double>::infinity(), xHigh = -xLow;
    double yLow = xLow, yHigh = -xLow;
    for (const Curve &curve : std::as_const(m_curves)) {
        const QSharedPointer<QCPGraphDataContainer> data = curve.raw->data();
        if (data->isEmpty())
            continue;
        xLow = std::min(xLow, data->constBegin()->key);  // keys are sorted
        xHigh = std::max(xHigh, (data->constEnd() - 1)->key);
        yLow = std::min(yLow, m_logY ? curve.minPositive : curve.minValue);
        yHigh = std::max(yHigh, curve.maxValue);
    }
    if (!std::isfinite(xLow) || !std::isfinite(xHigh))
        return;
    m_plot->xAxis->setRange(xLow, xHigh + std::max(1e-9, (xHigh - xLow) * 0.02));
    if (!std::isfinite(yLow) || !std::isfinite(yHigh) || yHigh < yLow)
        return;
    if (m_logY) {
        m_plot->yAxis->setRange(yLow / 1.25, yHigh * 1.25);
    } else {
        const double pad = yHigh > yLow ? (yHigh - yLow) * 0.05 : std::max(1e-9, std::abs(yLow) * 0.05);
        m_plot->yAxis->setRange(yLow - pad, yHigh + pad);
    }
}

} // namespace ty
