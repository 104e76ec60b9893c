// core/shapes/fine_tune_preset: the preset "Fine-tune from this run" makes: init_from the run's checkpoint, a
// head-only first stage (every other layer with parameters frozen), then everything at a tenth of the learning
// rate; training.epochs gone. The result is a valid staged preset.

#include "test_suite.h"
#include "core_test_support.h"

#include "fine_tune_preset.h"
#include "preset_format.h"
#include "preset_inspection.h"
#include "stage_inspection.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace ty;
using tytest::node;

namespace {

// data (synthetic, 8 features, 4 classes) -> fc1 (32) -> relu -> fc2 (16) -> drop -> fc3 (4) -> loss, accuracy;
// adam at lr 0.003, 6 epochs.
Preset trainedPreset()
{
    Preset p;
    p.name = QStringLiteral("blobs");
    p.graph = tytest::graph({node(QStringLiteral("data"), QStringLiteral("dataset.synthetic"), {{QStringLiteral("classes"), 4}}),
                             node(QStringLiteral("fc1"), QStringLiteral("layer.linear"), {{QStringLiteral("out_features"), 32}}),
                             node(QStringLiteral("relu"), QStringLiteral("layer.relu")),
                             node(QStringLiteral("fc2"), QStringLiteral("layer.linear"), {{QStringLiteral("out_features"), 16}}),
                             node(QStringLiteral("drop"), QStringLiteral("layer.dropout")),
                             node(QStringLiteral("fc3"), QStringLiteral("layer.linear"), {{QStringLiteral("out_features"), 4}}),
                             node(QStringLiteral("loss"), QStringLiteral("loss.cross_entropy")),
                             node(QStringLiteral("accuracy"), QStringLiteral("metric.accuracy")),
                             node(QStringLiteral("opt"), QStringLiteral("optimizer.adam"), {{QStringLiteral("lr"), 0.003}})},
                            {{"data.features", "fc1.in"},
                             {"fc1.out", "relu.in"},
                             {"relu.out", "fc2.in"},
                             {"fc2.out", "drop.in"},
                             {"drop.out", "fc3.in"},
                             {"fc3.out", "loss.input"},
                             {"data.target", "loss.target"},
                             {"fc3.out", "accuracy.input"},
                             {"data.target", "accuracy.target"},
                             {"loss.loss", "opt.loss"}});
    p.training = QJsonObject{{QStringLiteral("epochs"), 6}, {QStringLiteral("seed"), 3}};
    return p;
}

QJsonObject parse(const char *json) { return QJsonDocument::fromJson(json).object(); }

} // namespace

class TestFineTunePreset : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void headOnlyThenAllAtATenth();
    void headIsTheNearestLayerWithParametersOfEachLoss();
    void refusesWhatCannotBeFineTuned();
};

void TestFineTunePreset::headOnlyThenAllAtATenth()
{
    const Preset trained = trainedPreset();
    const ShapeReport report = inspectPresetShapes(trained);
    QVERIFY2(report.ok(), qPrintable(tytest::dump(report.issues)));
    const Result<Preset> tuned = fineTunePreset(trained, {12, QStringLiteral("baseline"), QStringLiteral("best")}, report);
    QVERIFY2(tuned.ok(), qPrintable(tuned.error().toString()));

    const QJsonObject expected = parse(R"({
        "seed": 3,
        "init_from": {"run": 12, "checkpoint": "best"},
        "stages": [
            {"name": "head", "epochs": 2, "freeze": ["fc1", "fc2"]},
            {"name": "all", "epochs": 6, "unfreeze": ["fc1", "fc2"], "set": {"opt.lr": 0.0003}}
        ]})");
    QCOMPARE(QJsonDocument(tuned.value().training).toJson(), QJsonDocument(expected).toJson());
    QCOMPARE(tuned.value().graph, trained.graph);
    QCOMPARE(tuned.value().name, QStringLiteral("blobs (fine-tuned from #12)"));
    QVERIFY(tuned.value().description.contains(QStringLiteral("best checkpoint of run #12 “baseline”")));
    QVERIFY(tuned.value().description.contains(QStringLiteral("head (fc3)")));

    // A valid staged preset: the head stage trains fc3 alone.
    const ShapeReport checked = inspectPresetShapes(tuned.value());
    QVERIFY2(checked.ok(), qPrintable(tytest::dump(checked.issues)));
    QCOMPARE(checked.stages.size(), 2);
    QCOMPARE(checked.stages[0].frozenNodes, (QStringList{QStringLiteral("fc1"), QStringLiteral("fc2")}));
    QCOMPARE(checked.stages[0].trainableParams, report.nodes.value(QStringLiteral("fc3")).paramCount);
    QCOMPARE(checked.stages[1].frozenParams, qint64(0));
    // Saved and read back unchanged.
    const Result<Preset> reread = presetFromJson(presetToJson(tuned.value()), QString());
    QVERIFY(reread.ok());
    QCOMPARE(reread.value(), tuned.value());

    // Short runs get a one-epoch head; a fine-tune of a fine-tune is not named twice; the last checkpoint.
    Preset shortRun = tuned.value();
    shortRun.training = QJsonObject{{QStringLiteral("epochs"), 3}};
    const Result<Preset> again = fineTunePreset(shortRun, {14, {}, QStringLiteral("last")}, report);
    QVERIFY(again.ok());
    QCOMPARE(again.value().name, QStringLiteral("blobs (fine-tuned from #14)"));
    const QJsonArray stages = again.value().training.value(QStringLiteral("stages")).toArray();
    QCOMPARE(stages[0].toObject().value(QStringLiteral("epochs")).toInt(), 1);
    QCOMPARE(stages[1].toObject().value(QStringLiteral("epochs")).toInt(), 3);
    QCOMPARE(again.value().training.value(QStringLiteral("init_from")).toObject(),
             parse(R"({"run": 14, "checkpoint": "last"})"));
    // A staged run's length is the sum of its stages.
    const Result<Preset> third = fineTunePreset(tuned.value(), {15, {}, QStringLiteral("last")}, report);
    QVERIFY(third.ok());
    QCOMPARE(third.value().training.value(QStringLiteral("stages")).toArray()[1].toObject().value(QStringLiteral("epochs")).toInt(), 8);
}

void TestFineTunePreset::headIsTheNearestLayerWithParametersOfEachLoss()
{
    // Two heads on fc2: one through a dropout (drop2 -> head_a), one direct (head_b), each with its own loss.
    Preset p = trainedPreset();
    tytest::removeNode(&p.graph, QStringLiteral("accuracy"));
    p.graph.nodes << node(QStringLiteral("head_b"), QStringLiteral("layer.linear"), {{QStringLiteral("out_features"), 4}})
                  << node(QStringLiteral("loss_b"), QStringLiteral("loss.cross_entropy"));
    p.graph.edges << tytest::edge(QStringLiteral("fc2.out"), QStringLiteral("head_b.in"))
                  << tytest::edge(QStringLiteral("head_b.out"), QStringLiteral("loss_b.input"))
                  << tytest::edge(QStringLiteral("data.target"), QStringLiteral("loss_b.target"));
    const ShapeReport report = inspectPresetShapes(p);  // loss_b trains nothing (an optimizer takes one loss): no matter here
    QVERIFY(report.nodes.value(QStringLiteral("head_b")).paramCount > 0);
    QCOMPARE(headNodes(p.graph, report), (QStringList{QStringLiteral("fc3"), QStringLiteral("head_b")}));
    const Result<Preset> tuned = fineTunePreset(p, {2, {}, QStringLiteral("last")}, report);
    QVERIFY(tuned.ok());
    QCOMPARE(tuned.value().training.value(QStringLiteral("stages")).toArray()[0].toObject().value(QStringLiteral("freeze")).toArray(),
             QJsonArray({QStringLiteral("fc1"), QStringLiteral("fc2")}));
}

void TestFineTunePreset::refusesWhatCannotBeFineTuned()
{
    // One layer with parameters: nothing to freeze besides the head.
    Preset single = tytest::minimalPreset();
    ShapeReport report;
    report.nodes.insert(QStringLiteral("fc"), NodeShape{{10}, 7850, true});
    Result<Preset> tuned = fineTunePreset(single, {5, {}, QStringLiteral("last")}, report);
    QVERIFY(!tuned.ok());
    QCOMPARE(tuned.error().message, QStringLiteral("run #5's network has no layer to freeze besides its head (fc)"));
    // No parameter counts (the shapes could not be inferred): no head.
    tuned = fineTunePreset(trainedPreset(), {5, {}, QStringLiteral("last")}, ShapeReport());
    QVERIFY(!tuned.ok());
    QVERIFY(tuned.error().message.contains(QStringLiteral("no layer with parameters")));
    // No optimizer.
    Preset noOptimizer = trainedPreset();
    tytest::removeNode(&noOptimizer.graph, QStringLiteral("opt"));
    tuned = fineTunePreset(noOptimizer, {5, {}, QStringLiteral("last")}, inspectPresetShapes(trainedPreset()));
    QVERIFY(!tuned.ok());
    QVERIFY(tuned.error().message.contains(QStringLiteral("no optimizer")));
}

TY_TEST_CLASS(TestFineTunePreset)

#include "test_fine_tune_preset.moc"
