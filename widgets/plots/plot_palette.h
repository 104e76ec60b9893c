#pragma once
// The colours of a chart's frame (background, axes, ticks, labels, grid) from a widget's palette, so that every
// QCustomPlot of the app follows its light or dark scheme alike; the callers colour their own legends and curves.

#include <QColor>
#include <QList>

class QCPAxis;
class QCustomPlot;
class QPalette;

namespace ty {

QColor withAlpha(QColor color, double alpha);

// `axes` of `plot` in the palette's text colour on its Base background; `zeroLine`: the grid marks 0 with a
// stronger line (MetricPlot's values may cross 0; curves on [0, 1] need none).
void applyPlotPalette(QCustomPlot *plot, const QList<QCPAxis *> &axes, const QPalette &palette, bool zeroLine);

// The whole frame of a chart in the palette's colours: applyPlotPalette on its bottom and left axes, its legend,
// and the titles (QCPTextElement) of its layout.
void applyChartPalette(QCustomPlot *plot, const QPalette &palette);

} // namespace ty
