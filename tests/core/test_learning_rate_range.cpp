// core/evaluation's learning-rate range test arithmetic on curves with known answers: the rate schedule, the
// bias-corrected smoothing, the stop rule, and both suggestions.

#include "test_suite.h"

#include "learning_rate_range.h"

#include <QtTest>

#include <cmath>
#include <limits>

using namespace ty;

namespace {

// A curve whose smoothed loss is `smoothed` exactly, at rates 10^(first + i * step).
std::vector<RangeTestPoint> curveOf(const std::vector<double> &smoothed, double first = -5, double step = 0.1)
{
    std::vector<RangeTestPoint> points;
    for (size_t i = 0; i < smoothed.size(); ++i)
        points.push_back(RangeTestPoint{std::pow(10.0, first + double(i) * step), smoothed[i], smoothed[i]});
    return points;
}

class TestLearningRateRange : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void ratesGrowGeometrically();
    void smoothingIsBiasCorrected();
    void stopsAtFourTimesTheMinimum();
    void stopsAtANonFiniteLoss();
    void steepestIsTheMostNegativeSlope();
    void steepestIgnoresFallsAfterTheMinimum();
    void valleyIsTheMiddleOfTheLongestFall();
    void valleyIgnoresFallsAfterTheMinimum();
    void flatCurveSuggestsNothing();
    void stoppedCurveDropsItsLastPoint();
};

void TestLearningRateRange::ratesGrowGeometrically()
{
    QCOMPARE(rangeTestRate(1e-6, 1.0, 7, 0), 1e-6);
    QVERIFY(std::abs(rangeTestRate(1e-6, 1.0, 7, 6) - 1.0) < 1e-12);
    // Seven steps over six decades: one decade per step.
    QVERIFY(std::abs(rangeTestRate(1e-6, 1.0, 7, 3) - 1e-3) < 1e-15);
    for (int i = 1; i < 7; ++i)
        QVERIFY(std::abs(rangeTestRate(1e-6, 1.0, 7, i) / rangeTestRate(1e-6, 1.0, 7, i - 1) - 10.0) < 1e-9);
}

void TestLearningRateRange::smoothingIsBiasCorrected()
{
    // A constant loss smooths to itself from the first value (no pull towards the zero it starts from).
    SmoothedLoss constant(0.98);
    for (int i = 0; i < 5; ++i)
        QVERIFY(std::abs(constant.add(2.5) - 2.5) < 1e-12);
    // Worked by hand with beta 0.5: averages 0.5, 0.5 * 0.5 + 0.5 * 3 = 1.75; divided by 0.5 and 0.75.
    SmoothedLoss half(0.5);
    QCOMPARE(half.add(1.0), 1.0);
    QVERIFY(std::abs(half.add(3.0) - 1.75 / 0.75) < 1e-12);
    QCOMPARE(half.count(), 2);
}

void TestLearningRateRange::stopsAtFourTimesTheMinimum()
{
    // beta 0 leaves the loss unsmoothed, so the rule reads on the losses themselves.
    RangeTestCurve curve(0.0, 4.0);
    QVERIFY(curve.add(1e-5, 2.0));
    QVERIFY(curve.add(1e-4, 1.0));
    QVERIFY(curve.add(1e-3, 0.5));
    QVERIFY(curve.add(1e-2, 2.0));   // exactly 4 x 0.5 goes on
    QVERIFY(!curve.stopped());
    QVERIFY(!curve.add(1e-1, 2.01));  // beyond it stops
    QVERIFY(curve.stopped());
    QCOMPARE(curve.points().size(), size_t(5));
    QCOMPARE(curve.minimum(), 0.5);
    QVERIFY2(curve.stopReason().contains(QStringLiteral("4 times")), qPrintable(curve.stopReason()));
}

void TestLearningRateRange::stopsAtANonFiniteLoss()
{
    RangeTestCurve curve;
    QVERIFY(curve.add(1e-3, 1.0));
    QVERIFY(!curve.add(1e-2, std::numeric_limits<double>::quiet_NaN()));
    QVERIFY2(curve.stopReason().contains(QStringLiteral("NaN")), qPrintable(curve.stopReason()));
    RangeTestCurve infinite;
    QVERIFY(!infinite.add(1e-3, std::numeric_limits<double>::infinity()));
    QVERIFY2(infinite.stopReason().contains(QStringLiteral("infinite")), qPrintable(infinite.stopReason()));
}

void TestLearningRateRange::steepestIsTheMostNegativeSlope()
{
    // Falls by 0.1 per point (0.1 decades apart), then by 0.5 from point 4 to 5, then rises. Central slopes:
    // -1 up to point 3, (1.1 - 1.7) / 0.2 = -3 at point 4, (1.1 - 1.6) / 0.2 = -2.5 at point 5: point 4 wins.
    const std::vector<double> s{2.0, 1.9, 1.8, 1.7, 1.6, 1.1, 1.1, 1.5, 3.0};
    const RateSuggestions r = suggestRates(curveOf(s));
    QVERIFY(r.steepest);
    QCOMPARE(r.steepest->index, 4);
    QVERIFY(std::abs(r.steepest->lr - std::pow(10.0, -5 + 0.4)) < 1e-15);
}

// As on the Fashion-MNIST MLP: after the minimum (point 3) a spike, then the smoothed loss falls back from it
// faster than anywhere in the descent. That fall is not a rate to train at; the descent's steepest point is.
void TestLearningRateRange::steepestIgnoresFallsAfterTheMinimum()
{
    const std::vector<double> s{2.0, 1.9, 1.6, 1.5, 1.8, 5.4, 4.0, 3.0, 6.0};
    const RateSuggestions r = suggestRates(curveOf(s));
    QVERIFY(r.steepest);
    // Central slopes before the minimum: -1 at 0 (one-sided), -2 at 1, -2 at 2, +1 at 3: point 1 is the first -2.
    QCOMPARE(r.steepest->index, 1);
}

void TestLearningRateRange::valleyIsTheMiddleOfTheLongestFall()
{
    // A short fall (0 to 2), a rise, then a fall of 8 steps from point 3 to point 11 (the minimum), then a rise.
    const std::vector<double> s{3.0, 2.9, 2.8, 3.5, 3.4, 3.3, 3.0, 2.6, 2.0, 1.5, 1.2, 1.0, 1.4, 2.5};
    const RateSuggestions r = suggestRates(curveOf(s));
    QVERIFY(r.valley);
    QCOMPARE(r.valley->index, 3 + 8 / 2);
    QCOMPARE(r.valley->lr, curveOf(s)[7].lr);
}

void TestLearningRateRange::valleyIgnoresFallsAfterTheMinimum()
{
    // The minimum is at 3; a longer fall after it (5 to 10) does not count.
    const std::vector<double> s{2.0, 1.5, 1.0, 0.5, 3.0, 9.0, 8.0, 7.0, 6.0, 5.0, 4.0};
    const RateSuggestions r = suggestRates(curveOf(s));
    QVERIFY(r.valley);
    QCOMPARE(r.valley->index, 1);  // the fall 0..3, halfway: 0 + 3 / 2
}

void TestLearningRateRange::flatCurveSuggestsNothing()
{
    const RateSuggestions r = suggestRates(curveOf({1.0, 1.0, 1.0, 1.0}));
    QVERIFY(!r.steepest);
    QVERIFY(!r.valley);
    QVERIFY(!suggestRates(curveOf({1.0})).steepest);
}

void TestLearningRateRange::stoppedCurveDropsItsLastPoint()
{
    RangeTestCurve curve(0.0);
    for (double loss : {3.0, 2.0, 1.0})
        QVERIFY(curve.add(1e-3, loss));
    QCOMPARE(suggestionPoints(curve).size(), size_t(3));
    QVERIFY(!curve.add(1e-2, 100.0));
    QCOMPARE(suggestionPoints(curve).size(), size_t(3));
    QCOMPARE(curve.points().size(), size_t(4));
}

} // namespace

TY_TEST_CLASS(TestLearningRateRange)
#include "test_learning_rate_range.moc"
