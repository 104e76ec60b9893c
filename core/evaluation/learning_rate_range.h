#pragma once
// The arithmetic of a learning-rate range test (trainyard-cli lrfind, docs/evaluation.md#learning-rate-finder):
// the exponentially growing rate of each step, the loss smoothed by a bias-corrected exponential moving average,
// the rule that stops the test when the smoothed loss runs away, and the two suggested rates read off the curve.
// Plain numbers in, no LibTorch; the engine feeds it one loss per step. Pure values; any thread.

#include <QJsonObject>
#include <QString>

#include <limits>
#include <optional>
#include <vector>

namespace ty {

// The rate of step `index` (0-based) of `steps`: minLr at the first, maxLr at the last, evenly spaced on a log
// scale between them (minLr * (maxLr / minLr)^(index / (steps - 1))). Needs 0 < minLr < maxLr and steps >= 2.
double rangeTestRate(double minLr, double maxLr, int steps, int index);

// The loss's exponential moving average with weight `beta` on the past, divided by 1 - beta^n after n values, so
// that the first values are not pulled towards the zero it starts from.
class SmoothedLoss {
public:
    explicit SmoothedLoss(double beta = 0.98) : m_beta(beta) {}
    double add(double loss);  // the smoothed value after this one; NaN or infinite once any value was
    int count() const { return m_count; }

private:
    double m_beta;
    double m_average = 0;
    double m_betaPower = 1;  // beta^count
    int m_count = 0;
};

struct RangeTestPoint {
    double lr = 0;
    double loss = 0;      // the step's own loss
    double smoothed = 0;  // SmoothedLoss after it
};

// The curve as it grows, and whether to go on: add() returns false once the smoothed loss is not finite or exceeds
// `divergeFactor` times the smallest smoothed loss so far (the point is kept; stopReason() says why it stopped).
class RangeTestCurve {
public:
    explicit RangeTestCurve(double beta = 0.98, double divergeFactor = 4.0) : m_smoother(beta), m_factor(divergeFactor) {}
    bool add(double lr, double loss);
    const std::vector<RangeTestPoint> &points() const { return m_points; }
    bool stopped() const { return !m_stopReason.isEmpty(); }
    QString stopReason() const { return m_stopReason; }
    double minimum() const { return m_minimum; }  // the smallest smoothed loss so far (infinity before any)

private:
    SmoothedLoss m_smoother;
    double m_factor;
    double m_minimum = std::numeric_limits<double>::infinity();
    std::vector<RangeTestPoint> m_points;
    QString m_stopReason;
};

// A suggested rate and the index of its point in the curve it was read from.
struct RateSuggestion {
    double lr = 0;
    int index = -1;
};

struct RateSuggestions {
    // Steepest descent: the rate where the smoothed loss falls fastest against log10(lr) (the most negative slope,
    // by central differences inside the curve and one-sided ones at its ends), at or before the curve's minimum:
    // after it, a smoothed loss falling back from a spike is no descent. None when no slope there is negative.
    std::optional<RateSuggestion> steepest;
    // Valley: the longest run of consecutive points whose smoothed loss keeps falling, among the runs that end at or
    // before the curve's minimum, and the rate halfway along it (the earlier middle point for an even length). A
    // rate there is well inside the descent, below the minimum where training turns unstable. None when no point
    // is lower than the one before it.
    std::optional<RateSuggestion> valley;
};

// Reads both suggestions off `points` (in step order; the rates increasing). A stopped test's last point, the one
// that ran away, should be left out by the caller (suggestionPoints()).
RateSuggestions suggestRates(const std::vector<RangeTestPoint> &points);

// The points suggestions are read from: a stopped curve without its last point, else all of them.
std::vector<RangeTestPoint> suggestionPoints(const RangeTestCurve &curve);

} // namespace ty
