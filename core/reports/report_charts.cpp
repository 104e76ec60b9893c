#include "report_charts.h"

#include "report_html.h"
#include "report_svg.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ty {

namespace {

constexpr double kWidth = 640, kPlotHeight = 214;
constexpr double kLeft = 64, kRight = 16, kTitle = 30, kLegendRow = 16, kBottom = 40;

struct Range {
    double low = std::numeric_limits<double>::infinity(), high = -std::numeric_limits<double>::infinity();
    void add(double v)
    {
        if (std::isfinite(v)) {
            low = std::min(low, v);
            high = std::max(high, v);
        }
    }
    bool empty() const { return !(low <= high); }
    // A range with room: a single value gets a span around it.
    void widen()
    {
        if (empty()) {
            low = 0;
            high = 1;
        } else if (low == high) {
            const double pad = low == 0 ? 1 : std::abs(low) * 0.1;
            low -= pad;
            high += pad;
        }
    }
};

QString tickText(double value, double step)
{
    if (std::abs(value) < step * 1e-9)
        return QStringLiteral("0");
    const double magnitude = std::max(std::abs(value), step);
    if (magnitude >= 1e5 || magnitude < 1e-3)
        return QString::number(value, 'g', 3);
    const int decimals = std::max(0, int(std::ceil(-std::log10(step) - 1e-9)));
    return QString::number(value, 'f', decimals);
}

// Where each legend entry goes: rows under the title, as many as the labels need.
std::vector<QPointF> legendPlaces(const QList<ChartSeries> &series, int *rows)
{
    std::vector<QPointF> places;
    double x = kLeft;
    int row = 0;
    for (const ChartSeries &s : series) {
        const double width = 34 + 6.2 * double(std::min<qsizetype>(s.label.size(), 40));
        if (x > kLeft && x + width > kWidth - kRight) {
            x = kLeft;
            ++row;
        }
        places.emplace_back(x, kTitle + 8 + row * kLegendRow);
        x += width;
    }
    *rows = series.isEmpty() ? 0 : row + 1;
    return places;
}

} // namespace

QString seriesColor(int index)
{
    static const char *const colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                         "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
    return QString::fromLatin1(colors[((index % 10) + 10) % 10]);
}

std::vector<double> niceTicks(double low, double high, int count)
{
    if (!(std::isfinite(low) && std::isfinite(high)) || high <= low)
        return {low};
    const double raw = (high - low) / std::max(1, count);
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    const double fraction = raw / power;
    const double step = (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10) * power;
    std::vector<double> ticks;
    for (double t = std::ceil(low / step - 1e-9) * step; t <= high + step * 1e-9 && ticks.size() < 50; t += step)
        ticks.push_back(t);
    return ticks;
}

QString lineChartSvg(const QString &title, const QList<ChartSeries> &series, const ChartAxes &axes)
{
    Range xr, yr;
    if (axes.unitSquare) {
        xr = {0, 1};
        yr = {0, 1};
    } else {
        for (const ChartSeries &s : series)
            for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
                if (std::isfinite(s.y[i])) {
                    xr.add(s.x[i]);
                    yr.add(s.y[i]);
                }
        xr.widen();
        yr.widen();
        const double pad = (yr.high - yr.low) * 0.04;
        yr.low -= pad;
        yr.high += pad;
    }
    int legendRows = 0;
    const std::vector<QPointF> legend = legendPlaces(series, &legendRows);
    const double top = kTitle + std::max(1, legendRows) * kLegendRow;
    const double height = top + kPlotHeight + kBottom;
    const double plotW = kWidth - kLeft - kRight, plotH = kPlotHeight;
    const auto px = [&](double x) { return kLeft + (x - xr.low) / (xr.high - xr.low) * plotW; };
    const auto py = [&](double y) { return top + plotH - (y - yr.low) / (yr.high - yr.low) * plotH; };

    SvgWriter svg(kWidth, height, title, QStringLiteral("chart"));
    svg.rect(0, 0, kWidth, height, QStringLiteral("#fff"));
    svg.text(kLeft, 16, title, QStringLiteral("start"), 13, QStringLiteral("#222"), true);
    // Grid and ticks.
    const std::vector<double> xTicks = niceTicks(xr.low, xr.high, 6), yTicks = niceTicks(yr.low, yr.high, 5);
    const double xStep = xTicks.size() > 1 ? xTicks[1] - xTicks[0] : 1, yStep = yTicks.size() > 1 ? yTicks[1] - yTicks[0] : 1;
    for (const double t : yTicks) {
        svg.line(kLeft, py(t), kLeft + plotW, py(t), QStringLiteral("#e4e4e4"));
        svg.text(kLeft - 6, py(t) + 4, tickText(t, yStep), QStringLiteral("end"), 10, QStringLiteral("#555"));
    }
    for (const double t : xTicks) {
        svg.line(px(t), top, px(t), top + plotH, QStringLiteral("#f0f0f0"));
        svg.text(px(t), top + plotH + 14, tickText(t, xStep), QStringLiteral("middle"), 10, QStringLiteral("#555"));
    }
    svg.rect(kLeft, top, plotW, plotH, QString(), QStringLiteral("#999"));
    svg.text(kLeft + plotW / 2, height - 6, axes.xLabel, QStringLiteral("middle"), 11, QStringLiteral("#333"));
    svg.verticalText(14, top + plotH / 2, axes.yLabel);
    if (axes.chanceDiagonal)
        svg.line(px(0), py(0), px(1), py(1), QStringLiteral("#aaa"), 1, true);
    if (series.isEmpty())
        svg.text(kLeft + plotW / 2, top + plotH / 2, QStringLiteral("no values"), QStringLiteral("middle"), 12, QStringLiteral("#777"));
    // Each series, broken where a value is missing; a lone point is a dot.
    for (int k = 0; k < series.size(); ++k) {
        const ChartSeries &s = series[k];
        const QString color = seriesColor(k);
        std::vector<QPointF> run;
        const auto flush = [&] {
            if (s.dots)
                for (const QPointF &p : run)
                    svg.circle(p.x(), p.y(), 3.5, color);
            else if (run.size() == 1)
                svg.circle(run.front().x(), run.front().y(), 2.5, color);
            else
                svg.polyline(run, color, 1.5, s.dashed);
            run.clear();
        };
        for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
            if (std::isfinite(s.x[i]) && std::isfinite(s.y[i]))
                run.emplace_back(px(s.x[i]), py(std::clamp(s.y[i], yr.low, yr.high)));
            else
                flush();
        }
        flush();
    }
    // The legend under the title, in rows.
    for (int k = 0; k < series.size(); ++k) {
        const QPointF at = legend[size_t(k)];
        if (series[k].dots)
            svg.circle(at.x() + 9, at.y(), 3.5, seriesColor(k));
        else
            svg.line(at.x(), at.y(), at.x() + 18, at.y(), seriesColor(k), 2.5, series[k].dashed);
        svg.text(at.x() + 22, at.y() + 4, series[k].label, QStringLiteral("start"), 10, QStringLiteral("#333"));
    }
    return svg.finish();
}

} // namespace ty
