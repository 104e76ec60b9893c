// MetricPlot: colours of everything that is not a run (background, axes, grid, text, legend, read-out) taken from
// the widget's palette, so the chart follows the app's light or dark scheme, and again whenever it changes.

#include "metric_plot.h"

#include "common/canvas_style.h"
#include "qcustomplot_include.h"

#include <QEvent>

namespace ty {

namespace {

QColor withAlpha(QColor color, double alpha)
{
    color.setAlphaF(alpha);
    return color;
}

} // namespace

void MetricPlot::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange) {
        applyPalette();
        rebuildCurves();  // the per-epoch markers are filled with the background
        scheduleReplot();
    }
}

void MetricPlot::applyPalette()
{
    if (!m_hoverLabel)
        return;  // a palette change while the constructor runs: the constructor applies it at its end
    const QPalette pal = palette();
    const bool dark = style::isDark(pal);
    m_background = pal.color(QPalette::Base);
    const QColor text = pal.color(QPalette::Text);
    m_plot->setBackground(m_background);
    m_plot->axisRect()->setBackground(m_background);
    for (QCPAxis *axis : {m_plot->xAxis, m_plot->yAxis, m_plot->xAxis2, m_plot->yAxis2}) {
        const QPen line(withAlpha(text, dark ? 0.55 : 0.7), 1);
        axis->setBasePen(line);
        axis->setTickPen(line);
        axis->setSubTickPen(line);
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
        axis->grid()->setPen(QPen(withAlpha(text, dark ? 0.16 : 0.14), 1, Qt::DotLine));
        axis->grid()->setSubGridPen(QPen(withAlpha(text, dark ? 0.07 : 0.06), 1, Qt::DotLine));
        axis->grid()->setZeroLinePen(QPen(withAlpha(text, dark ? 0.3 : 0.25), 1));
    }
    m_plot->legend->setBrush(m_background);
    m_plot->legend->setTextColor(text);
    m_plot->legend->setSelectedTextColor(text);
    m_hoverLine->setPen(QPen(withAlpha(text, 0.4), 1, Qt::DashLine));
    m_hoverLabel->setBrush(withAlpha(m_background, 0.9));
    m_hoverLabel->setPen(QPen(withAlpha(text, 0.25)));
    m_hoverLabel->setColor(text);
    for (const QList<StageMark> &marks : std::as_const(m_stageMarks))
        for (const StageMark &mark : marks)
            mark.label->setBrush(withAlpha(m_background, 0.85));
}

} // namespace ty
