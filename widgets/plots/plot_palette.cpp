#include "plot_palette.h"

#include "common/canvas_style.h"
#include "qcustomplot_include.h"

namespace ty {

QColor withAlpha(QColor color, double alpha)
{
    color.setAlphaF(alpha);
    return color;
}

void applyPlotPalette(QCustomPlot *plot, const QList<QCPAxis *> &axes, const QPalette &palette, bool zeroLine)
{
    const bool dark = style::isDark(palette);
    const QColor background = palette.color(QPalette::Base), text = palette.color(QPalette::Text);
    plot->setBackground(background);
    plot->axisRect()->setBackground(background);
    const QPen line(withAlpha(text, dark ? 0.55 : 0.7), 1);
    for (QCPAxis *axis : axes) {
        axis->setBasePen(line);
        axis->setTickPen(line);
        axis->setSubTickPen(line);
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
        axis->grid()->setPen(QPen(withAlpha(text, dark ? 0.16 : 0.14), 1, Qt::DotLine));
        axis->grid()->setSubGridPen(QPen(withAlpha(text, dark ? 0.07 : 0.06), 1, Qt::DotLine));
        axis->grid()->setZeroLinePen(zeroLine ? QPen(withAlpha(text, dark ? 0.3 : 0.25), 1) : QPen(Qt::NoPen));
    }
}

void applyChartPalette(QCustomPlot *plot, const QPalette &palette)
{
    applyPlotPalette(plot, {plot->xAxis, plot->yAxis}, palette, false);
    const QColor text = palette.color(QPalette::Text);
    plot->legend->setBrush(withAlpha(palette.color(QPalette::Base), 0.85));
    plot->legend->setTextColor(text);
    plot->legend->setBorderPen(QPen(withAlpha(text, 0.4), 1));
    for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
        if (auto *title = qobject_cast<QCPTextElement *>(plot->plotLayout()->elementAt(i)))
            title->setTextColor(text);
}

} // namespace ty
