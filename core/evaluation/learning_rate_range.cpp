#include "learning_rate_range.h"

#include <algorithm>
#include <cmath>

namespace ty {

double rangeTestRate(double minLr, double maxLr, int steps, int index)
{
    if (steps < 2)
        return minLr;
    return minLr * std::pow(maxLr / minLr, double(index) / double(steps - 1));
}

double SmoothedLoss::add(double loss)
{
    m_average = m_beta * m_average + (1 - m_beta) * loss;
    m_betaPower *= m_beta;
    ++m_count;
    return m_average / (1 - m_betaPower);
}

bool RangeTestCurve::add(double lr, double loss)
{
    const double smoothed = m_smoother.add(loss);
    m_points.push_back(RangeTestPoint{lr, loss, smoothed});
    if (!std::isfinite(smoothed) || !std::isfinite(loss)) {
        m_stopReason = QStringLiteral("the loss became %1 at lr %2")
                           .arg(std::isnan(loss) || std::isnan(smoothed) ? QStringLiteral("NaN") : QStringLiteral("infinite"))
                           .arg(lr, 0, 'g', 3);
        return false;
    }
    // A loss that can be negative has no multiple to run away to; such a curve only stops at a non-finite loss.
    if (m_minimum > 0 && std::isfinite(m_minimum) && smoothed > m_factor * m_minimum) {
        m_stopReason = QStringLiteral("the smoothed loss %1 exceeded %2 times its minimum %3 at lr %4")
                           .arg(smoothed, 0, 'g', 4).arg(m_factor).arg(m_minimum, 0, 'g', 4).arg(lr, 0, 'g', 3);
        return false;
    }
    m_minimum = std::min(m_minimum, smoothed);
    return true;
}

std::vector<RangeTestPoint> suggestionPoints(const RangeTestCurve &curve)
{
    std::vector<RangeTestPoint> points = curve.points();
    if (curve.stopped() && !points.empty())
        points.pop_back();
    return points;
}

namespace {

// The slope of the smoothed loss against log10(lr) at point i: central inside, one-sided at the ends.
double slopeAt(const std::vector<RangeTestPoint> &p, size_t i)
{
    const size_t a = i == 0 ? 0 : i - 1;
    const size_t b = i + 1 == p.size() ? i : i + 1;
    const double run = std::log10(p[b].lr) - std::log10(p[a].lr);
    return run > 0 ? (p[b].smoothed - p[a].smoothed) / run : 0.0;
}

// The index of the smallest smoothed loss (the first of equals).
size_t lowestPoint(const std::vector<RangeTestPoint> &points)
{
    size_t lowest = 0;
    for (size_t i = 1; i < points.size(); ++i)
        if (points[i].smoothed < points[lowest].smoothed)
            lowest = i;
    return lowest;
}

std::optional<RateSuggestion> steepestDescent(const std::vector<RangeTestPoint> &points)
{
    if (points.size() < 2)
        return std::nullopt;
    std::optional<RateSuggestion> best;
    double bestSlope = 0;
    // Up to the minimum: past it the loss is on its way out, and its smoothed value falling back after a spike
    // is no descent to train at.
    const size_t last = lowestPoint(points);
    for (size_t i = 0; i <= last; ++i) {
        const double slope = slopeAt(points, i);
        if (std::isfinite(slope) && slope < bestSlope) {
            bestSlope = slope;
            best = RateSuggestion{points[i].lr, int(i)};
        }
    }
    return best;
}

std::optional<RateSuggestion> valleyOf(const std::vector<RangeTestPoint> &points)
{
    if (points.size() < 2)
        return std::nullopt;
    const size_t lowest = lowestPoint(points);
    // Runs of falling points [start, end], end <= lowest; the longest wins, the earliest among equals.
    size_t bestStart = 0, bestEnd = 0, start = 0;
    for (size_t i = 1; i <= lowest; ++i) {
        if (!(points[i].smoothed < points[i - 1].smoothed))
            start = i;
        else if (i - start > bestEnd - bestStart) {
            bestStart = start;
            bestEnd = i;
        }
    }
    if (bestEnd == bestStart)
        return std::nullopt;
    const size_t middle = bestStart + (bestEnd - bestStart) / 2;
    return RateSuggestion{points[middle].lr, int(middle)};
}

} // namespace

RateSuggestions suggestRates(const std::vector<RangeTestPoint> &points)
{
    RateSuggestions s;
    s.steepest = steepestDescent(points);
    s.valley = valleyOf(points);
    return s;
}

} // namespace ty
