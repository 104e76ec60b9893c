// MetricPlot: colours of everything that is not a run (background, axes, grid, text, legend, read-out) taken from
// the widget's palette, so the chart follows the app's light or dark scheme, and again whenever it changes.

#include "metric_plot.h"

#include "plot_palette.h"
#include "qcustomplot_include.h"

#include <QEvent>

namespace ty {

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
    m_background = pal.color(QPalette::Base);
    const QColor text = pal.color(QPalette::Text);
    applyPlotPalette(m_plot, {m_plot->xAxis, m_plot->yAxis, m_plot->xAxis2, m_plot->yAxis2}, pal, true);
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
