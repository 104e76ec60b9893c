#pragma once
// The charts of the HTML reports as inline SVG (report_svg.h): metric curves over steps or epochs, and the ROC and
// precision-recall curves of an evaluation. The caller thins long series first (report_series.h); a chart draws
// every point it is given. Pure functions; any thread.

#include <QList>
#include <QString>

#include <vector>

namespace ty {

struct ChartSeries {
    QString label;
    std::vector<double> x, y;  // equal lengths; points with a non-finite y break the line
    bool dashed = false;
    bool dots = false;  // a dot per point, no line (a sweep's trials)
};

struct ChartAxes {
    QString xLabel, yLabel;
    bool unitSquare = false;  // both axes 0 to 1 (ROC, precision-recall)
    bool chanceDiagonal = false;  // the dotted line from (0, 0) to (1, 1) of a ROC chart
};

// A chart 640 units wide with its title, a legend (in as many rows as it needs), ticks on both axes and each series
// in its own colour.
QString lineChartSvg(const QString &title, const QList<ChartSeries> &series, const ChartAxes &axes);

// The colour of the i-th series of a chart (ten, then again).
QString seriesColor(int index);

// About `count` round tick values covering [low, high] (1, 2 or 5 times a power of ten apart).
std::vector<double> niceTicks(double low, double high, int count = 5);

} // namespace ty
