// core/evaluation: classification and regression scores from known outputs, worked out by hand, and the report's
// JSON round trip.

#include "test_suite.h"
#include "core_test_support.h"

#include "classification_scores.h"
#include "regression_scores.h"

#include <QJsonArray>
#include <QtTest>

#include <cmath>
#include <limits>
#include <vector>

using namespace ty;

namespace {

class TestEvaluationScores : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void classificationScores();
    void topKCountsTiesInLabelOrder();
    void classNamesFallBackToIndices();
    void regressionScores();
    void jsonRoundTrip();
    void jsonNumbersBeyondRangeAreHeld();
};

// Three classes, six samples; true classes 0,0,1,1,2,2; predicted 0,1,1,1,2,0 (argmax of the logits below).
EvaluationReport sixSamples()
{
    const std::vector<float> logits{
        5, 1, 0,   // 0 -> 0
        1, 3, 0,   // 0 -> 1 (mistake; the label is second: in the top 2)
        0, 4, 1,   // 1 -> 1
        0, 2, 1,   // 1 -> 1
        0, 0, 9,   // 2 -> 2
        2, 0, 1,   // 2 -> 0 (mistake; the label is second)
    };
    EvaluationReport r;
    r.split = QStringLiteral("test");
    scoreClassification(logits, {0, 0, 1, 1, 2, 2}, 3, {QStringLiteral("cat"), QStringLiteral("dog"), QStringLiteral("owl")}, 2, &r);
    return r;
}

void TestEvaluationScores::classificationScores()
{
    const EvaluationReport r = sixSamples();
    QCOMPARE(r.count, qint64(6));
    QCOMPARE(r.accuracy, 4.0 / 6.0);
    QCOMPARE(r.topK, 2);
    QCOMPARE(r.topKAccuracy, 1.0);
    QCOMPARE(r.confusion, (std::vector<qint64>{1, 1, 0, 0, 2, 0, 1, 0, 1}));
    QCOMPARE(r.perClass.size(), 3);
    // cat: predicted twice, right once; true twice, found once.
    QCOMPARE(r.perClass[0].name, QStringLiteral("cat"));
    QCOMPARE(r.perClass[0].precision, 0.5);
    QCOMPARE(r.perClass[0].recall, 0.5);
    QCOMPARE(r.perClass[0].f1, 0.5);
    QCOMPARE(r.perClass[0].support, qint64(2));
    // dog: predicted three times, right twice; recall 1.
    QCOMPARE(r.perClass[1].precision, 2.0 / 3.0);
    QCOMPARE(r.perClass[1].recall, 1.0);
    QVERIFY(std::abs(r.perClass[1].f1 - 0.8) < 1e-12);
    // owl: precision 1, recall 0.5.
    QCOMPARE(r.perClass[2].precision, 1.0);
    QCOMPARE(r.perClass[2].recall, 0.5);
    QVERIFY(std::abs(r.macroAverage.precision - (0.5 + 2.0 / 3.0 + 1.0) / 3.0) < 1e-12);
    QVERIFY(std::abs(r.weightedAverage.recall - r.accuracy) < 1e-12);  // weighted recall is accuracy
    // The mistakes, most confident first: sample 1 (softmax of 3 over 1,3,0) before sample 5 (2 over 2,0,1).
    const QList<EvaluatedSample> worst = r.worst(10);
    QCOMPARE(worst.size(), 2);
    QCOMPARE(worst[0].index, qint64(1));
    QCOMPARE(worst[1].index, qint64(5));
    QVERIFY(std::abs(worst[0].confidence - std::exp(3.0) / (std::exp(1.0) + std::exp(3.0) + 1.0)) < 1e-9);
    QCOMPARE(r.className(worst[0].predicted), QStringLiteral("dog"));
    QCOMPARE(r.worst(1).size(), 1);
}

void TestEvaluationScores::topKCountsTiesInLabelOrder()
{
    EvaluationReport r;
    // All equal: argmax is class 0; with k = 1 only label 0 is "in the top 1", like torch's topk on ties.
    scoreClassification({1, 1, 1, 1, 1, 1}, {0, 2}, 3, {}, 1, &r);
    QCOMPARE(r.accuracy, 0.5);
    QCOMPARE(r.topKAccuracy, 0.5);
    scoreClassification({1, 1, 1}, {2}, 3, {}, 99, &r);
    QCOMPARE(r.topK, 3);
    QCOMPARE(r.topKAccuracy, 1.0);
}

void TestEvaluationScores::classNamesFallBackToIndices()
{
    EvaluationReport r;
    scoreClassification({0, 1, 1, 0}, {1, 1}, 2, {QStringLiteral("no")}, 1, &r);
    QCOMPARE(r.classes, (QStringList{QStringLiteral("no"), QStringLiteral("1")}));
    QCOMPARE(r.perClass[0].precision, 0.0);  // never predicted: 0, not NaN
    QCOMPARE(r.perClass[0].support, qint64(0));
}

void TestEvaluationScores::regressionScores()
{
    EvaluationReport r;
    // Two columns; residuals (1, 0), (0, -2), (0, 0).
    scoreRegression({2, 1, 3, 0, 5, 6}, {1, 1, 3, 2, 5, 6}, 2, &r);
    QVERIFY(!r.classification);
    QCOMPARE(r.count, qint64(3));
    QCOMPARE(r.mae, 3.0 / 6.0);
    QCOMPARE(r.rmse, std::sqrt(5.0 / 6.0));
    // Column means 3 and 3: SS_tot = (4 + 0 + 4) + (4 + 1 + 9) = 22.
    QCOMPARE(r.r2, 1.0 - 5.0 / 22.0);
    const QList<EvaluatedSample> worst = r.worst(2);
    QCOMPARE(worst[0].index, qint64(1));
    QCOMPARE(worst[0].confidence, 2.0);
    QCOMPARE(worst[1].index, qint64(0));
}

void TestEvaluationScores::jsonRoundTrip()
{
    EvaluationReport r = sixSamples();
    r.checkpointStep = 120;
    r.metrics.insert(QStringLiteral("accuracy"), r.accuracy);
    const QJsonObject json = evaluationToJson(r, 1);
    QCOMPARE(json.value(QStringLiteral("confusion")).toArray().at(1).toArray().at(1).toInt(), 2);
    QCOMPARE(json.value(QStringLiteral("mistakes")).toArray().size(), 1);
    QCOMPARE(json.value(QStringLiteral("mistakes")).toArray().at(0).toObject().value(QStringLiteral("label")).toString(), QStringLiteral("cat"));
    QCOMPARE(json.value(QStringLiteral("per_class")).toArray().at(2).toObject().value(QStringLiteral("class")).toString(), QStringLiteral("owl"));
    const EvaluationReport back = evaluationFromJson(json);
    QCOMPARE(back.confusion, r.confusion);
    QCOMPARE(back.classes, r.classes);
    QCOMPARE(back.checkpointStep, qint64(120));
    QCOMPARE(back.perClass[1].recall, 1.0);
    QCOMPARE(back.macroAverage.f1, r.macroAverage.f1);
    QCOMPARE(back.metrics.value(QStringLiteral("accuracy")), r.accuracy);
    // Only the worst sample listed comes back, as the report's one sample.
    QCOMPARE(back.worst(10).size(), 1);
    QCOMPARE(back.worst(10).first().index, qint64(1));
    QCOMPARE(back.worst(10).first().predicted, 1.0);
}

} // namespace

// The JSON comes back from the run database, which may be damaged: counts beyond qint64 are held at its ends
// instead of being converted with undefined behaviour.
void TestEvaluationScores::jsonNumbersBeyondRangeAreHeld()
{
    const EvaluationReport back = evaluationFromJson(QJsonObject{
        {QStringLiteral("count"), 1e300},
        {QStringLiteral("checkpoint_step"), -1e300},
        {QStringLiteral("classes"), QJsonArray{QStringLiteral("a")}},
        {QStringLiteral("confusion"), QJsonArray{QJsonArray{1e19}}},
        {QStringLiteral("mistakes"), QJsonArray{QJsonObject{{QStringLiteral("index"), 1e300}}}}});
    QCOMPARE(back.count, std::numeric_limits<qint64>::max());
    QCOMPARE(back.checkpointStep, std::numeric_limits<qint64>::min());
    QCOMPARE(back.confusion, std::vector<qint64>({std::numeric_limits<qint64>::max()}));
    QCOMPARE(back.samples.size(), size_t(1));
    QCOMPARE(back.samples.front().index, std::numeric_limits<qint64>::max());
}

TY_TEST_CLASS(TestEvaluationScores)

#include "test_evaluation_scores.moc"
