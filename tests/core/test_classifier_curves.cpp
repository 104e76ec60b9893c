// core/evaluation's classifier curves on cases worked out by hand: ties as one threshold, the areas, a class
// without samples, thinning, the JSON round trip and the report's curves (scikit-learn parity is
// test_classifier_curves_sklearn.cpp).

#include "test_suite.h"

#include "classification_scores.h"
#include "classifier_curves.h"

#include <QJsonArray>
#include <QtTest>

#include <cmath>
#include <limits>
#include <vector>

using namespace ty;

namespace {

// The area under a polyline by trapezoids.
double trapezoids(const CurvePoints &c)
{
    double area = 0;
    for (size_t i = 1; i < c.x.size(); ++i)
        area += (c.x[i] - c.x[i - 1]) * (c.y[i] + c.y[i - 1]) / 2;
    return area;
}

class TestClassifierCurves : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void tiesAreOneThreshold();
    void areaEqualsPairsRankedRight();
    void collinearPointsAreDropped();
    void undefinedClassHasAReason();
    void binaryTakesThePositiveClass();
    void thinningKeepsEndsAndShape();
    void notANumberRanksLowest();
    void reportCarriesTheCurves();
    void jsonRoundTrip();
};

// Scores 0.9, 0.8, 0.8, 0.3 of positives 1, 0, 1, 0: the two 0.8s are one threshold.
void TestClassifierCurves::tiesAreOneThreshold()
{
    const RankedScores r = rankScores({0.8, 0.3, 0.9, 0.8}, {false, false, true, true});
    QCOMPARE(r.thresholds, std::vector<double>({0.9, 0.8, 0.3}));
    QCOMPARE(r.truePositives, std::vector<double>({1, 2, 2}));
    QCOMPARE(r.falsePositives, std::vector<double>({0, 1, 2}));
    QCOMPARE(r.positives, 2);
    QCOMPARE(r.negatives, 2);
    // Trapezoids: 0 + 1 x (1 + 2) / 2 + 1 x (2 + 2) / 2 = 3.5 of 2 x 2: 0.875 (the tie counts one half).
    QCOMPARE(*rocAuc(r), 0.875);
    // Precision 1 at recall 1/2, then 2/3 at recall 1: 1/2 + 1/2 x 2/3.
    QVERIFY(std::abs(*averagePrecision(r) - (0.5 + 1.0 / 3.0)) < 1e-15);
    const CurvePoints roc = rocCurve(r);
    QCOMPARE(roc.x, std::vector<double>({0, 0, 0.5, 1}));
    QCOMPARE(roc.y, std::vector<double>({0, 0.5, 1, 1}));
    const CurvePoints pr = precisionRecallCurve(r);
    QCOMPARE(pr.x, std::vector<double>({0, 0.5, 1, 1}));
    QCOMPARE(pr.y, std::vector<double>({1, 1, 2.0 / 3.0, 0.5}));
}

// The ROC AUC is the share of (positive, negative) pairs ranked right, ties counting a half: counted here pair by
// pair on scores with many ties.
void TestClassifierCurves::areaEqualsPairsRankedRight()
{
    std::vector<double> scores;
    std::vector<bool> positive;
    for (int i = 0; i < 97; ++i) {
        scores.push_back(double((i * 37) % 11) / 10.0);
        positive.push_back((i * 13) % 7 < 3 + (i % 4 == 0));
    }
    double right = 0, pairs = 0;
    for (size_t a = 0; a < scores.size(); ++a)
        for (size_t b = 0; b < scores.size(); ++b)
            if (positive[a] && !positive[b]) {
                pairs += 1;
                right += scores[a] > scores[b] ? 1.0 : scores[a] == scores[b] ? 0.5 : 0.0;
            }
    const RankedScores r = rankScores(scores, positive);
    QVERIFY(std::abs(*rocAuc(r) - right / pairs) < 1e-12);
    // The curve's own trapezoids give the same area: dropping collinear points changes nothing.
    QVERIFY(std::abs(trapezoids(rocCurve(r)) - right / pairs) < 1e-12);
}

// Thresholds that continue a straight run at the same step are left out, as roc_curve's drop_intermediate.
void TestClassifierCurves::collinearPointsAreDropped()
{
    // Four negatives scored highest, one by one, then four positives: a vertical and a horizontal run.
    const RankedScores r = rankScores({8, 7, 6, 5, 4, 3, 2, 1}, {false, false, false, false, true, true, true, true});
    QCOMPARE(r.thresholds.size(), size_t(8));
    const CurvePoints roc = rocCurve(r);
    QCOMPARE(roc.x, std::vector<double>({0, 0.25, 1, 1}));
    QCOMPARE(roc.y, std::vector<double>({0, 0, 0, 1}));
    QCOMPARE(*rocAuc(r), 0.0);
}

void TestClassifierCurves::undefinedClassHasAReason()
{
    // Three classes; class 1 is never a label.
    const std::vector<double> p{0.7, 0.2, 0.1, 0.1, 0.3, 0.6, 0.5, 0.4, 0.1, 0.2, 0.2, 0.6};
    const std::vector<int64_t> labels{0, 2, 0, 2};
    const ClassifierCurves c = classifierCurves(p, labels, 3, {QStringLiteral("cat"), QStringLiteral("dog"), QStringLiteral("owl")});
    QCOMPARE(c.perClass.size(), 3);
    QVERIFY(!c.perClass[1].rocAuc);
    QVERIFY(!c.perClass[1].averagePrecision);
    QVERIFY2(c.perClass[1].reason.contains(QStringLiteral("no sample of class \"dog\"")), qPrintable(c.perClass[1].reason));
    QVERIFY(c.perClass[1].roc.x.empty());
    QCOMPARE(c.perClass[1].positives, 0);
    QCOMPARE(c.perClass[1].negatives, 4);
    // Class 0 (scores 0.7, 0.1, 0.5, 0.2 for labels 0, 2, 0, 2) and class 2 (0.1, 0.6, 0.1, 0.6) both separate perfectly.
    QCOMPARE(*c.perClass[0].rocAuc, 1.0);
    QCOMPARE(*c.perClass[2].rocAuc, 1.0);
    QCOMPARE(c.averagedClasses, 2);
    QCOMPARE(*c.rocAuc, 1.0);
    QVERIFY2(c.note.contains(QStringLiteral("2 of 3 classes")) && c.note.contains(QStringLiteral("\"dog\"")), qPrintable(c.note));
    QString reason;
    QCOMPARE(*headlineRocAuc(p, labels, 3, &reason), 1.0);
    // One class only: nothing to rank against.
    QVERIFY(!headlineRocAuc(p, {0, 0, 0, 0}, 3, &reason));
    QVERIFY2(!reason.isEmpty(), "no reason");
}

// Two classes: the headline is class 1's, as roc_auc_score(y, p[:, 1]).
void TestClassifierCurves::binaryTakesThePositiveClass()
{
    const std::vector<double> p{0.9, 0.1, 0.4, 0.6, 0.35, 0.65, 0.2, 0.8};
    const ClassifierCurves c = classifierCurves(p, {0, 1, 0, 1}, 2, {});
    QVERIFY(c.binary);
    QCOMPARE(c.averagedClasses, 1);
    // Class 1's scores 0.1, 0.6, 0.65, 0.8 for labels 0, 1, 0, 1: 3 of 4 pairs right.
    QCOMPARE(*c.rocAuc, 0.75);
    QCOMPARE(*c.rocAuc, *c.perClass[1].rocAuc);
    QCOMPARE(*c.averagePrecision, *c.perClass[1].averagePrecision);
    const ClassifierCurves none = classifierCurves(p, {0, 0, 0, 0}, 2, {});
    QVERIFY(!none.rocAuc);
    QVERIFY(!none.note.isEmpty());
}

void TestClassifierCurves::thinningKeepsEndsAndShape()
{
    // A smooth concave ROC curve of 5,001 points.
    CurvePoints curve;
    for (int i = 0; i <= 5000; ++i) {
        const double x = i / 5000.0;
        curve.x.push_back(x);
        curve.y.push_back(std::sqrt(x));
    }
    const CurvePoints thin = thinnedCurve(curve, 200);
    QCOMPARE(thin.x.size(), size_t(200));
    QCOMPARE(thin.x.front(), 0.0);
    QCOMPARE(thin.x.back(), 1.0);
    QVERIFY(std::is_sorted(thin.x.begin(), thin.x.end()));
    // Kept points are points of the curve, and the area moves by little (the exact area is 2/3).
    for (size_t i = 0; i < thin.x.size(); ++i)
        QCOMPARE(thin.y[i], std::sqrt(thin.x[i]));
    QVERIFY2(std::abs(trapezoids(thin) - trapezoids(curve)) < 1e-3, qPrintable(QString::number(trapezoids(thin) - trapezoids(curve))));
    // The steep start keeps more points than the flat end.
    const auto before = std::count_if(thin.x.begin(), thin.x.end(), [](double x) { return x < 0.1; });
    QVERIFY2(before > 20, qPrintable(QString::number(before)));
    // Short curves are untouched; at least the two ends stay.
    QCOMPARE(thinnedCurve(thin, 500).x, thin.x);
    QCOMPARE(thinnedCurve(curve, 1).x, std::vector<double>({0.0, 1.0}));
    QCOMPARE(curvePointsPerCurve(10), 200);
    QCOMPARE(curvePointsPerCurve(400), 50);
    QCOMPARE(curvePointsPerCurve(100000), 20);
}

void TestClassifierCurves::notANumberRanksLowest()
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const RankedScores r = rankScores({nan, 0.5, nan, 0.2}, {true, true, false, false});
    QCOMPARE(r.thresholds.size(), size_t(3));
    QCOMPARE(r.truePositives.back(), 2.0);
    // 0.5 (positive) beats 0.2 and both NaNs; the NaN positive ties the NaN negative and loses to 0.2.
    QCOMPARE(*rocAuc(r), (2 + 0.5) / 4.0);
}

// scoreClassification fills the curves from the softmax of the logits.
void TestClassifierCurves::reportCarriesTheCurves()
{
    const std::vector<float> logits{5, 1, 0, 1, 3, 0, 0, 4, 1, 0, 2, 1, 0, 0, 9, 2, 0, 1};
    const std::vector<int64_t> labels{0, 0, 1, 1, 2, 2};
    EvaluationReport r;
    scoreClassification(logits, labels, 3, {QStringLiteral("cat"), QStringLiteral("dog"), QStringLiteral("owl")}, 2, &r);
    QCOMPARE(r.curves.perClass.size(), 3);
    QCOMPARE(r.curves.perClass[1].name, QStringLiteral("dog"));
    QCOMPARE(r.curves.perClass[1].positives, 2);
    const ClassifierCurves direct = classifierCurves(softmaxRows(logits, 3), labels, 3, r.classes);
    QCOMPARE(*r.curves.rocAuc, *direct.rocAuc);
    // The confidences are the same softmax's.
    QCOMPARE(r.samples[0].confidence, softmaxRows(logits, 3)[0]);
    // Class "owl" (index 2, samples 4 and 5) against the rest, counted pair by pair.
    const std::vector<double> p = softmaxRows(logits, 3);
    double right = 0;
    for (int a : {4, 5})
        for (int b : {0, 1, 2, 3})
            right += p[size_t(a * 3 + 2)] > p[size_t(b * 3 + 2)] ? 1 : p[size_t(a * 3 + 2)] == p[size_t(b * 3 + 2)] ? 0.5 : 0;
    QCOMPARE(*r.curves.perClass[2].rocAuc, right / 8);
}

void TestClassifierCurves::jsonRoundTrip()
{
    EvaluationReport r;
    scoreClassification({5, 1, 0, 1, 3, 0, 0, 4, 1, 0, 2, 1, 3, 0, 1, 2, 0, 1}, {0, 0, 1, 1, 0, 0}, 3, {}, 1, &r);
    QVERIFY(!r.curves.perClass[2].rocAuc);  // class 2 never a label
    const QJsonObject json = evaluationToJson(r);
    QVERIFY(json.value(QStringLiteral("roc_auc")).isDouble());
    QCOMPARE(json.value(QStringLiteral("auc_average")).toString(), QStringLiteral("macro"));
    QCOMPARE(json.value(QStringLiteral("auc_classes")).toInt(), 2);
    QVERIFY(!json.value(QStringLiteral("auc_note")).toString().isEmpty());
    const QJsonArray curves = json.value(QStringLiteral("curves")).toArray();
    QCOMPARE(curves.size(), 3);
    QVERIFY(curves[2].toObject().value(QStringLiteral("roc_auc")).isNull());
    QVERIFY(!curves[2].toObject().value(QStringLiteral("reason")).toString().isEmpty());
    const EvaluationReport back = evaluationFromJson(json);
    QCOMPARE(back.curves.perClass.size(), 3);
    QCOMPARE(*back.curves.rocAuc, *r.curves.rocAuc);
    QCOMPARE(back.curves.averagedClasses, 2);
    QCOMPARE(back.curves.note, r.curves.note);
    for (int c = 0; c < 2; ++c) {
        const ClassCurves &a = r.curves.perClass[c], &b = back.curves.perClass[c];
        QCOMPARE(*b.rocAuc, *a.rocAuc);
        QCOMPARE(b.positives, a.positives);
        QCOMPARE(b.roc.x.size(), a.roc.x.size());
        QCOMPARE(b.precisionRecall.y.size(), a.precisionRecall.y.size());
        for (size_t i = 0; i < a.roc.x.size(); ++i)
            QVERIFY(std::abs(b.roc.y[i] - a.roc.y[i]) <= 5e-7);  // points to 6 decimals
    }
    QVERIFY(!back.curves.perClass[2].rocAuc);
    QCOMPARE(back.curves.perClass[2].reason, r.curves.perClass[2].reason);
    // An evaluation stored before the curves has none, and says nothing about them.
    QVERIFY(evaluationFromJson(QJsonObject{{QStringLiteral("task"), QStringLiteral("classification")}}).curves.empty());
}

} // namespace

TY_TEST_CLASS(TestClassifierCurves)

#include "test_classifier_curves.moc"
