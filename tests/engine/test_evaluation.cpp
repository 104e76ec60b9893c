// Evaluation: every finished run is scored on its test split; evaluateWeights() on the run's checkpoint gives the
// same scores and the accuracy the run recorded; weights that do not fit are refused; real Fashion-MNIST data
// carries its class names into the report.

#include "required_data.h"
#include "engine_fixtures.h"
#include "evaluator.h"
#include "test_engine_classes.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace ty;

void TestEvaluation::finishedRunIsScoredOnItsTestSplit()
{
    QTemporaryDir dir;
    const Preset preset = test::classifierPreset(QStringLiteral("blobs"), QStringLiteral("optimizer.adam"), 0.01, 2);
    test::RecordingObserver observer;
    const TrainResult result = Trainer::train(preset, TrainOptions{dir.path(), QString()}, observer);
    QCOMPARE(int(result.outcome), int(TrainOutcome::Finished));
    QVERIFY(result.testEvaluation);
    const EvaluationReport &automatic = *result.testEvaluation;
    const double recorded = result.lastMetrics.value(QStringLiteral("test/accuracy"));
    QVERIFY(recorded > 0.8);
    QCOMPARE(automatic.accuracy, recorded);
    QCOMPARE(automatic.metrics.value(QStringLiteral("accuracy")), recorded);
    QCOMPARE(automatic.metrics.value(QStringLiteral("loss")), result.lastMetrics.value(QStringLiteral("test/loss")));
    QCOMPARE(automatic.checkpointStep, result.steps);
    QCOMPARE(qint64(automatic.samples.size()), automatic.count);

    // The same weights read back from the final checkpoint score the same.
    EvaluateOptions options;
    options.weightsPath = result.finalCheckpoint;
    options.checkpointStep = result.steps;
    const Result<EvaluationReport> again = evaluateWeights(preset, options);
    QVERIFY2(again.ok(), qPrintable(again.error().toString()));
    QCOMPARE(again.value().accuracy, recorded);
    QCOMPARE(again.value().confusion, automatic.confusion);
    QCOMPARE(again.value().count, automatic.count);

    // Another split, and the splits it does not have.
    options.split = QStringLiteral("val");
    const Result<EvaluationReport> val = evaluateWeights(preset, options);
    QVERIFY(val.ok());
    QCOMPARE(val.value().count, qint64(120));  // 10 % of 1200
    options.split = QStringLiteral("everything");
    QVERIFY(!evaluateWeights(preset, options).ok());
}

void TestEvaluation::weightsThatDoNotFitAreRefused()
{
    QTemporaryDir dir;
    const Preset preset = test::classifierPreset(QStringLiteral("blobs"), QStringLiteral("optimizer.adam"), 0.01, 1);
    test::RecordingObserver observer;
    const TrainResult result = Trainer::train(preset, TrainOptions{dir.path(), QString()}, observer);
    QCOMPARE(int(result.outcome), int(TrainOutcome::Finished));

    // Another preset (a wider hidden layer): refused for its preset hash, and for its shapes when the hash is
    // not checked.
    Preset wider = preset;
    wider.graph.node(QStringLiteral("fc1"))->params.insert(QStringLiteral("out_features"), 35);
    EvaluateOptions options;
    options.weightsPath = result.finalCheckpoint;
    const Result<EvaluationReport> otherPreset = evaluateWeights(wider, options);
    QVERIFY(!otherPreset.ok());
    QCOMPARE(otherPreset.error().field, QStringLiteral("preset_hash"));
    options.checkPresetHash = false;
    const Result<EvaluationReport> otherShape = evaluateWeights(wider, options);
    QVERIFY(!otherShape.ok());
    QVERIFY2(otherShape.error().message.contains(QStringLiteral("the model's is")), qPrintable(otherShape.error().toString()));

    // Not a weights file at all.
    const QString junk = dir.filePath(QStringLiteral("junk.safetensors"));
    QFile file(junk);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("not a safetensors file");
    file.close();
    options.weightsPath = junk;
    const Result<EvaluationReport> foreign = evaluateWeights(preset, options);
    QVERIFY(!foreign.ok());
    QCOMPARE(foreign.error().file, junk);
}

void TestEvaluation::regressionIsScoredByResiduals()
{
    const Preset preset = test::regressionPreset(QStringLiteral("loss.mse"), 0.05, 3);
    test::RecordingObserver observer;
    const TrainResult result = Trainer::train(preset, TrainOptions{}, observer);
    QCOMPARE(int(result.outcome), int(TrainOutcome::Finished));
    QVERIFY(result.testEvaluation);
    const EvaluationReport &r = *result.testEvaluation;
    QVERIFY(!r.classification);
    QCOMPARE(r.count, qint64(300));
    QVERIFY2(r.r2 > 0.8, qPrintable(QString::number(r.r2)));
    QVERIFY(std::abs(r.mae - result.lastMetrics.value(QStringLiteral("test/mae"))) < 1e-5);
    QVERIFY(std::abs(r.rmse * r.rmse - result.lastMetrics.value(QStringLiteral("test/loss"))) < 1e-5);
}

void TestEvaluation::fashionMnistReportsItsClassNames()
{
    if (!QDir(QStringLiteral("/usr/share/datasets/fashion-mnist")).exists())
        TY_SKIP_WITHOUT_DATA("Fashion-MNIST is not installed (dataset-fashion-mnist)");
    Preset preset = test::bundledPreset(QStringLiteral("fashion-mnist-mlp"));
    QJsonObject &params = preset.graph.node(QStringLiteral("data"))->params;
    params.insert(QStringLiteral("limit"), 3000);
    params.insert(QStringLiteral("val_count"), 500);
    params.insert(QStringLiteral("test_limit"), 1000);
    preset.training.insert(QStringLiteral("epochs"), 2);
    preset.training.insert(QStringLiteral("device"), QStringLiteral("cpu"));
    test::RecordingObserver observer;
    const TrainResult result = Trainer::train(preset, TrainOptions{}, observer);
    QCOMPARE(int(result.outcome), int(TrainOutcome::Finished));
    QVERIFY(result.testEvaluation);
    const EvaluationReport &r = *result.testEvaluation;
    QCOMPARE(r.count, qint64(1000));
    QCOMPARE(r.classes.size(), 10);
    QCOMPARE(r.classes.first(), QStringLiteral("T-shirt/top"));
    QCOMPARE(r.classes.last(), QStringLiteral("Ankle boot"));
    QCOMPARE(r.accuracy, result.lastMetrics.value(QStringLiteral("test/accuracy")));
    QVERIFY2(r.accuracy > 0.65, qPrintable(QString::number(r.accuracy)));
    qint64 supports = 0;
    for (const ClassScore &s : r.perClass)
        supports += s.support;
    QCOMPARE(supports, qint64(1000));
    // Trousers are the easiest class of Fashion-MNIST, shirts among the hardest.
    QVERIFY(r.perClass[1].f1 > r.perClass[6].f1);
}
