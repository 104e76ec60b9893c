// MetricPlot: the stage boundaries of runs trained in stages, a dashed vertical line in the run's colour with
// the stage's name at the top, where each stage after the first begins.

#include "metric_plot.h"

#include "qcustomplot_include.h"

#include <QFontMetricsF>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ty {

namespace {

const QString kLinesLayer = QStringLiteral("stageLines");    // under the curves
const QString kLabelsLayer = QStringLiteral("stageLabels");  // over them

void ensureLayers(QCustomPlot *plot)
{
    if (!plot->layer(kLinesLayer))
        plot->addLayer(kLinesLayer, plot->layer(QStringLiteral("grid")), QCustomPlot::limAbove);
    if (!plot->layer(kLabelsLayer))
        plot->addLayer(kLabelsLayer, plot->layer(QStringLiteral("epochs")), QCustomPlot::limAbove);
}

bool sameStages(const QList<MetricPlot::StageMark> &marks, const QList<StageRecord> &stages)
{
    int i = 0;
    for (const StageRecord &stage : stages) {
        if (stage.startStep <= 0)
            continue;
        if (i >= marks.size() || marks.at(i).name != stage.name || marks.at(i).step != stage.startStep)
            return false;
        ++i;
    }
    return i == marks.size();
}

} // namespace

void MetricPlot::setStages(qint64 runId, const QList<StageRecord> &stages)
{
    if (!m_runs.contains(runId) || sameStages(m_stageMarks.value(runId), stages))
        return;
    dropStageMarks(runId);
    ensureLayers(m_plot);
    const QColor color = m_colors.value(runId);
    QFont font = this->font();  // the legend's is smaller: a stage's name is read from afar
    font.setBold(true);
    QList<StageMark> marks;
    for (const StageRecord &stage : stages) {
        if (stage.startStep <= 0)
            continue;  // the first stage begins with the curve itself
        StageMark mark;
        mark.name = stage.name;
        mark.step = stage.startStep;
        mark.line = new QCPItemStraightLine(m_plot);
        mark.line->setLayer(kLinesLayer);
        mark.line->setPen(QPen(color, 1.4, Qt::DashLine));
        mark.label = new QCPItemText(m_plot);
        mark.label->setLayer(kLabelsLayer);
        mark.label->setText(stage.name);
        mark.label->setFont(font);
        // Darker on a light chart, lighter on a dark one, on a veil of the chart's own background.
        const bool darkChart = m_background.lightness() < 128;
        mark.label->setColor(darkChart ? color.lighter(125) : color.darker(135));
        QColor veil = m_background;
        veil.setAlphaF(0.85);
        mark.label->setBrush(veil);
        mark.label->setPadding(QMargins(3, 1, 3, 1));
        mark.label->setPositionAlignment(Qt::AlignTop | Qt::AlignLeft);
        for (QCPItemPosition *position : {mark.line->point1, mark.line->point2, mark.label->position}) {
            position->setTypeX(QCPItemPosition::ptPlotCoords);
            position->setTypeY(QCPItemPosition::ptAxisRectRatio);  // top to bottom, on a log axis too
        }
        marks.append(mark);
    }
    if (marks.isEmpty())
        m_stageMarks.remove(runId);
    else
        m_stageMarks.insert(runId, marks);
    scheduleReplot();
}

void MetricPlot::dropStageMarks(qint64 runId)
{
    for (const StageMark &mark : m_stageMarks.take(runId)) {
        m_plot->removeItem(mark.line);
        m_plot->removeItem(mark.label);
    }
}

double MetricPlot::stageKey(const RunSeries &run, qint64 step) const
{
    switch (m_xAxis) {
    case PlotXAxis::Step: return double(step);
    case PlotXAxis::Epoch: return double(step) / double(run.effectiveStepsPerEpoch());
    case PlotXAxis::WallTime: break;
    }
    // The time of the last step before the stage: from the metric with the most samples (train/loss, usually).
    const MetricSamples *densest = nullptr;
    for (const MetricSamples &samples : run.metrics)
        if (!densest || samples.size() > densest->size())
            densest = &samples;
    if (!densest || densest->size() == 0)
        return std::numeric_limits<double>::quiet_NaN();
    const auto after = std::upper_bound(densest->steps.begin(), densest->steps.end(), step);
    if (after == densest->steps.end())
        return std::numeric_limits<double>::quiet_NaN();  // the stage's first step is not in yet
    const size_t i = size_t(after - densest->steps.begin());
    return i == 0 ? densest->times[0] : densest->times[i - 1];
}

void MetricPlot::placeStageMarks()
{
    // Runs with marks get a row each for their labels, so two runs' labels at the same step do not overlap.
    int row = 0;
    for (auto it = m_stageMarks.begin(); it != m_stageMarks.end(); ++it, ++row) {
        const RunSeries *run = series(it.key());
        for (StageMark &mark : it.value()) {
            const double x = run ? stageKey(*run, mark.step) : std::numeric_limits<double>::quiet_NaN();
            const bool known = std::isfinite(x);
            mark.line->setVisible(known);
            mark.label->setVisible(known);
            if (!known)
                continue;
            mark.line->point1->setCoords(x, 0.0);
            mark.line->point2->setCoords(x, 1.0);
            mark.label->position->setCoords(x, 0.015 + 0.075 * row);
            // Right of the line, unless that runs off the chart (a stage that just began): then left of it.
            const double width = QFontMetricsF(mark.label->font()).horizontalAdvance(mark.name) + 8;
            const bool fitsRight = m_plot->xAxis->coordToPixel(x) + width <= m_plot->axisRect()->right();
            mark.label->setPositionAlignment(Qt::AlignTop | (fitsRight ? Qt::AlignLeft : Qt::AlignRight));
        }
    }
}

} // namespace ty
