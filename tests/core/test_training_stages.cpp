// core/presets/training_stages and core/shapes/stage_inspection: training.stages and training.init_from are
// parsed, applied and checked against the network; every mistake is an error pinned to the stage and key.

#include "test_suite.h"
#include "core_test_support.h"

#include "preset_inspection.h"
#include "training_stages.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

using namespace ty;
using tytest::node;

namespace {

// data (synthetic, 8 features, 4 classes) -> fc1 (32) -> drop -> fc2 (4) -> loss -> opt (adam).
Preset stagedPreset(const QJsonArray &stages)
{
    Preset p;
    p.name = QStringLiteral("stages");
    p.graph = tytest::graph({node(QStringLiteral("data"), QStringLiteral("dataset.synthetic"), {{QStringLiteral("classes"), 4}}),
                             node(QStringLiteral("fc1"), QStringLiteral("layer.linear"), {{QStringLiteral("out_features"), 32}}),
                             node(QStringLiteral("drop"), QStringLiteral("layer.dropout")),
                             node(QStringLiteral("fc2"), QStringLiteral("layer.linear"), {{QStringLiteral("out_features"), 4}}),
                             node(QStringLiteral("loss"), QStringLiteral("loss.cross_entropy")),
                             node(QStringLiteral("opt"), QStringLiteral("optimizer.adam"))},
                            {{"data.features", "fc1.in"},
                             {"fc1.out", "drop.in"},
                             {"drop.out", "fc2.in"},
                             {"fc2.out", "loss.input"},
                             {"data.target", "loss.target"},
                             {"loss.loss", "opt.loss"}});
    p.training = QJsonObject{{QStringLiteral("stages"), stages}};
    return p;
}

QJsonObject stage(const char *name, int epochs, const QJsonObject &extra = {})
{
    QJsonObject s = extra;
    s.insert(QStringLiteral("name"), QString::fromLatin1(name));
    s.insert(QStringLiteral("epochs"), epochs);
    return s;
}

} // namespace

class TestTrainingStages : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void stagesInheritAndReport();
    void noStagesIsOneImplicitStage();
    void mistakesArePinnedToStageAndKey_data();
    void mistakesArePinnedToStageAndKey();
    void initFromIsChecked_data();
    void initFromIsChecked();
    void initFromWithoutSourceWarns();
};

// Each stage inherits the one before; validation reports the trainable and frozen parameters of each.
void TestTrainingStages::stagesInheritAndReport()
{
    const Preset preset = stagedPreset(
        {stage("head", 2, {{QStringLiteral("freeze"), QJsonArray{QStringLiteral("fc1")}}, {QStringLiteral("set"), QJsonObject{{QStringLiteral("opt.lr"), 0.01}}}}),
         stage("all", 3, {{QStringLiteral("unfreeze"), QJsonArray{QStringLiteral("fc1")}}, {QStringLiteral("set"), QJsonObject{{QStringLiteral("drop.p"), "0.25"}}}}),
         stage("polish", 1, {{QStringLiteral("set"), QJsonObject{{QStringLiteral("training.batch_size"), 256}}}})});
    Issues issues;
    const QList<StagePlan> plans = planStages(preset, &issues);
    QVERIFY2(issues.isEmpty(), qPrintable(tytest::dump(issues)));
    QCOMPARE(plans.size(), 3);
    QCOMPARE(totalEpochs(plans), 6);
    QCOMPARE(plans[0].frozen, QStringList{QStringLiteral("fc1")});
    QVERIFY(plans[1].frozen.isEmpty());
    QVERIFY(plans[0].resetOptimizer && plans[1].resetOptimizer);  // the first always; the second unfroze fc1
    QVERIFY(!plans[2].resetOptimizer);                            // same trainable set: state kept
    // Inherited: the learning rate of "head" holds in "polish", the dropout rate of "all" too (text read as --set does).
    QCOMPARE(plans[2].preset.graph.node(QStringLiteral("opt"))->params.value(QStringLiteral("lr")).toDouble(), 0.01);
    QCOMPARE(plans[2].preset.graph.node(QStringLiteral("drop"))->params.value(QStringLiteral("p")).toDouble(), 0.25);
    QCOMPARE(plans[2].preset.training.value(QStringLiteral("batch_size")).toInt(), 256);
    QVERIFY(!plans[1].preset.training.contains(QStringLiteral("batch_size")));

    const ShapeReport report = inspectPresetShapes(preset);
    QVERIFY2(report.ok(), qPrintable(tytest::dump(report.issues)));
    QCOMPARE(report.stages.size(), 3);
    QCOMPARE(report.stages[0].frozenParams, qint64(8 * 32 + 32));
    QCOMPARE(report.stages[0].trainableParams, qint64(32 * 4 + 4));
    QCOMPARE(report.stages[1].frozenParams, qint64(0));
    QCOMPARE(report.stages[1].trainableParams, report.totalParams);
    QCOMPARE(report.stages[2].overrides, QStringList{QStringLiteral("training.batch_size=256")});
}

void TestTrainingStages::noStagesIsOneImplicitStage()
{
    Preset preset = stagedPreset({});
    preset.training = QJsonObject{{QStringLiteral("epochs"), 7}};
    const QList<StagePlan> plans = planStages(preset);
    QCOMPARE(plans.size(), 1);
    QVERIFY(plans[0].implicit);
    QCOMPARE(plans[0].epochs, 7);
    QVERIFY(plans[0].frozen.isEmpty());
    const ShapeReport report = inspectPresetShapes(preset);
    QVERIFY(report.ok());
    QVERIFY(report.stages.isEmpty());
}

void TestTrainingStages::mistakesArePinnedToStageAndKey_data()
{
    QTest::addColumn<QJsonArray>("stages");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("message");  // part of it
    const QJsonObject freezeAll{{QStringLiteral("freeze"), QJsonArray{QStringLiteral("fc1"), QStringLiteral("fc2")}}};
    QTest::newRow("not a list") << QJsonArray{QStringLiteral("x")} << "training.stages[0]" << "expected an object";
    QTest::newRow("empty list") << QJsonArray{} << "training.stages" << "1 to 1000 stages";
    QTest::newRow("no epochs") << QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("a")}}} << "training.stages[0].epochs" << "whole number";
    QTest::newRow("zero epochs") << QJsonArray{stage("a", 0)} << "training.stages[0].epochs" << "whole number";
    QTest::newRow("unknown stage key") << QJsonArray{stage("a", 1, {{QStringLiteral("frezee"), QJsonArray{}}})} << "training.stages[0].frezee" << "unknown stage key";
    QTest::newRow("duplicate name") << QJsonArray{stage("a", 1), stage("a", 1)} << "training.stages[1].name" << "already called";
    QTest::newRow("unknown node frozen") << QJsonArray{stage("a", 1), stage("b", 1, {{QStringLiteral("freeze"), QJsonArray{QStringLiteral("conv9")}}})}
                                        << "training.stages[1].freeze" << "no node \"conv9\"";
    QTest::newRow("freezing a loss") << QJsonArray{stage("a", 1, {{QStringLiteral("freeze"), QJsonArray{QStringLiteral("loss")}}})}
                                     << "training.stages[0].freeze" << "only network nodes";
    QTest::newRow("freezing everything") << QJsonArray{stage("a", 1, freezeAll)} << "training.stages[0].freeze" << "freezes every parameter";
    QTest::newRow("unknown key set") << QJsonArray{stage("a", 1), stage("b", 1, {{QStringLiteral("set"), QJsonObject{{QStringLiteral("opt.lrr"), 0.1}}}})}
                                     << "training.stages[1].set.opt.lrr" << "has no parameter \"lrr\"";
    QTest::newRow("unknown node set") << QJsonArray{stage("a", 1, {{QStringLiteral("set"), QJsonObject{{QStringLiteral("fc9.out_features"), 3}}}})}
                                      << "training.stages[0].set.fc9.out_features" << "no node \"fc9\"";
    QTest::newRow("value out of range") << QJsonArray{stage("a", 1, {{QStringLiteral("set"), QJsonObject{{QStringLiteral("drop.p"), 1.5}}}})}
                                        << "training.stages[0].set.drop.p" << "at most";
    QTest::newRow("run-wide key") << QJsonArray{stage("a", 1, {{QStringLiteral("set"), QJsonObject{{QStringLiteral("training.seed"), 3}}}})}
                                  << "training.stages[0].set.training.seed" << "holds for the whole run";
    QTest::newRow("distributed backend") << QJsonArray{stage("a", 1, {{QStringLiteral("set"), QJsonObject{{QStringLiteral("training.dist_backend"), QStringLiteral("gloo")}}}})}
                                         << "training.stages[0].set.training.dist_backend" << "holds for the whole run";
    QTest::newRow("data set parameter") << QJsonArray{stage("a", 1, {{QStringLiteral("set"), QJsonObject{{QStringLiteral("data.samples"), 300}}}})}
                                        << "training.stages[0].set.data.samples" << "loaded once per run";
    QTest::newRow("shape change") << QJsonArray{stage("a", 1), stage("b", 1, {{QStringLiteral("set"), QJsonObject{{QStringLiteral("fc1.out_features"), 64}}}})}
                                  << "training.stages[1].set" << "cannot change the network's shape";
    QTest::newRow("optimizer swap") << QJsonArray{stage("a", 1), stage("b", 1, {{QStringLiteral("set"), QJsonObject{{QStringLiteral("opt.block"), QStringLiteral("optimizer.sgd")}}}})}
                                    << "training.stages[1].set.opt.block" << "a stage cannot swap a node's block (opt.block)";
    QTest::newRow("set not an object") << QJsonArray{stage("a", 1, {{QStringLiteral("set"), QJsonArray{}}})} << "training.stages[0].set" << "expected an object";
    QTest::newRow("reset not a bool") << QJsonArray{stage("a", 1, {{QStringLiteral("reset_optimizer"), 1}})} << "training.stages[0].reset_optimizer" << "true or false";
}

void TestTrainingStages::mistakesArePinnedToStageAndKey()
{
    QFETCH(QJsonArray, stages);
    QFETCH(QString, field);
    QFETCH(QString, message);
    const ShapeReport report = inspectPresetShapes(stagedPreset(stages));
    QVERIFY(!report.ok());
    bool found = false;
    for (const Issue &issue : tytest::errorsOf(report.issues))
        found = found || (issue.param == field && issue.message.contains(message));
    QVERIFY2(found, qPrintable(tytest::dump(report.issues)));
}

void TestTrainingStages::initFromIsChecked_data()
{
    QTest::addColumn<QJsonValue>("init");
    QTest::addColumn<QString>("field");    // empty: valid
    QTest::addColumn<QString>("message");
    QTest::newRow("a run") << QJsonValue(QJsonObject{{QStringLiteral("run"), 3}, {QStringLiteral("checkpoint"), QStringLiteral("best")}}) << "" << "";
    QTest::newRow("a run and step") << QJsonValue(QJsonObject{{QStringLiteral("run"), 3}, {QStringLiteral("checkpoint"), 120}, {QStringLiteral("nodes"), QJsonArray{QStringLiteral("fc1")}}}) << "" << "";
    QTest::newRow("not an object") << QJsonValue(3) << "training.init_from" << "expected {";
    QTest::newRow("both") << QJsonValue(QJsonObject{{QStringLiteral("run"), 3}, {QStringLiteral("file"), QStringLiteral("w.safetensors")}}) << "training.init_from" << "not both";
    QTest::newRow("bad run") << QJsonValue(QJsonObject{{QStringLiteral("run"), -2}}) << "training.init_from.run" << "run id";
    QTest::newRow("bad checkpoint") << QJsonValue(QJsonObject{{QStringLiteral("run"), 3}, {QStringLiteral("checkpoint"), QStringLiteral("first")}}) << "training.init_from.checkpoint" << "\"last\", \"best\"";
    QTest::newRow("missing file") << QJsonValue(QJsonObject{{QStringLiteral("file"), QStringLiteral("/nonexistent/w.safetensors")}}) << "training.init_from.file" << "/nonexistent/w.safetensors";
    QTest::newRow("unknown node") << QJsonValue(QJsonObject{{QStringLiteral("run"), 3}, {QStringLiteral("nodes"), QJsonArray{QStringLiteral("fc7")}}}) << "training.init_from.nodes" << "no node \"fc7\"";
    QTest::newRow("unknown key") << QJsonValue(QJsonObject{{QStringLiteral("run"), 3}, {QStringLiteral("strictly"), true}}) << "training.init_from.strictly" << "unknown key";
}

// Nodes without a source: a warning, no warm start; --init-from then gives the source.
void TestTrainingStages::initFromWithoutSourceWarns()
{
    Preset preset = stagedPreset({});
    preset.training = QJsonObject{{QStringLiteral("init_from"), QJsonObject{{QStringLiteral("nodes"), QJsonArray{QStringLiteral("fc1")}}}}};
    const ShapeReport report = inspectPresetShapes(preset);
    QVERIFY2(report.ok(), qPrintable(tytest::dump(report.issues)));
    QCOMPARE(report.issues.size(), 1);
    QCOMPARE(report.issues[0].severity, Severity::Info);
    QCOMPARE(report.issues[0].param, QStringLiteral("training.init_from"));
    QVERIFY(!initFrom(preset));
}

void TestTrainingStages::initFromIsChecked()
{
    QFETCH(QJsonValue, init);
    QFETCH(QString, field);
    QFETCH(QString, message);
    Preset preset = stagedPreset({});
    preset.training = QJsonObject{{QStringLiteral("init_from"), init}};
    const ShapeReport report = inspectPresetShapes(preset);
    if (field.isEmpty()) {
        QVERIFY2(report.ok(), qPrintable(tytest::dump(report.issues)));
        const std::optional<InitFrom> parsed = initFrom(preset);
        QVERIFY(parsed && parsed->fromRun());
        QCOMPARE(parsed->run, qint64(3));
        return;
    }
    bool found = false;
    for (const Issue &issue : tytest::errorsOf(report.issues))
        found = found || (issue.param == field && issue.message.contains(message));
    QVERIFY2(found, qPrintable(tytest::dump(report.issues)));
}

TY_TEST_CLASS(TestTrainingStages)

#include "test_training_stages.moc"
