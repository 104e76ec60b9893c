// core/presets/preset_overrides: `--set NODE.PARAM=VALUE` and `--set training.KEY=VALUE`, typed by the
// parameter's spec, and `--set NODE.block=TYPE` swaps; errors name the assignment and leave the preset unchanged.

#include "test_suite.h"
#include "core_test_support.h"

#include "graph_validation.h"
#include "preset_overrides.h"

#include <QJsonArray>
#include <QtTest>

using namespace ty;
using tytest::node;

namespace {

// data (synthetic) -> norm -> fc1 -> drop -> loss -> opt; data.target -> loss.target.
Preset overridePreset()
{
    Preset p;
    p.name = QStringLiteral("overrides");
    p.graph = tytest::graph({node(QStringLiteral("data"), QStringLiteral("dataset.synthetic")),
                             node(QStringLiteral("norm"), QStringLiteral("transform.normalize")),
                             node(QStringLiteral("fc1"), QStringLiteral("layer.linear"), {{QStringLiteral("out_features"), 4}}),
                             node(QStringLiteral("drop"), QStringLiteral("layer.dropout")),
                             node(QStringLiteral("loss"), QStringLiteral("loss.cross_entropy")),
                             node(QStringLiteral("opt"), QStringLiteral("optimizer.sgd"))},
                            {{"data.features", "norm.in"},
                             {"norm.out", "fc1.in"},
                             {"fc1.out", "drop.in"},
                             {"drop.out", "loss.input"},
                             {"data.target", "loss.target"},
                             {"loss.loss", "opt.loss"}});
    p.training = QJsonObject{{QStringLiteral("epochs"), 5}};
    return p;
}

const QString kAny = QStringLiteral("*");  // node or field not asserted

class TestPresetOverrides : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void basePresetIsValid();
    void applies_data();
    void applies();
    void refuses_data();
    void refuses();
    void unknownBlockOfNode();
    void applyOverridesInOrder();
    void applyOverridesIsAllOrNothing();
    void applyOverridesOfNothing();
    void swapKeepsTheSharedParameters();
    void swapToIncompatibleBlockIsRefused_data();
    void swapToIncompatibleBlockIsRefused();
};

void TestPresetOverrides::basePresetIsValid()
{
    const Preset p = overridePreset();
    QVERIFY2(!hasErrors(validateGraph(p.graph)), qPrintable(tytest::dump(validateGraph(p.graph))));
}

void TestPresetOverrides::applies_data()
{
    QTest::addColumn<QString>("assignment");
    QTest::addColumn<QString>("owner");  // node id, or "training"
    QTest::addColumn<QString>("key");
    QTest::addColumn<QJsonValue>("value");

    QTest::newRow("int") << "fc1.out_features=512" << "fc1" << "out_features" << QJsonValue(512);
    QTest::newRow("int of a default") << "data.samples=300" << "data" << "samples" << QJsonValue(300);
    QTest::newRow("float") << "opt.lr=3e-4" << "opt" << "lr" << QJsonValue(3e-4);
    QTest::newRow("float plain") << "drop.p=0.25" << "drop" << "p" << QJsonValue(0.25);
    QTest::newRow("bool false") << "fc1.bias=false" << "fc1" << "bias" << QJsonValue(false);
    QTest::newRow("bool yes") << "opt.nesterov=yes" << "opt" << "nesterov" << QJsonValue(true);
    QTest::newRow("choice") << "data.kind=spirals" << "data" << "kind" << QJsonValue(QStringLiteral("spirals"));
    QTest::newRow("list") << "norm.mean=0.5,0.25" << "norm" << "mean" << QJsonValue(QJsonArray{0.5, 0.25});
    QTest::newRow("list bracketed") << "norm.std=[0.3]" << "norm" << "std" << QJsonValue(QJsonArray{0.3});
    QTest::newRow("training int") << "training.epochs=20" << "training" << "epochs" << QJsonValue(20);
    QTest::newRow("training new key") << "training.batch_size=32" << "training" << "batch_size" << QJsonValue(32);
    QTest::newRow("training choice") << "training.device=cpu" << "training" << "device" << QJsonValue(QStringLiteral("cpu"));
    QTest::newRow("training bool") << "training.deterministic=true" << "training" << "deterministic" << QJsonValue(true);
    QTest::newRow("training string with =") << "training.early_stop_metric=val/a=b" << "training" << "early_stop_metric"
                                            << QJsonValue(QStringLiteral("val/a=b"));
    QTest::newRow("spaces around") << " fc1.out_features = 64 " << "fc1" << "out_features" << QJsonValue(64);
}

void TestPresetOverrides::applies()
{
    QFETCH(QString, assignment);
    QFETCH(QString, owner);
    QFETCH(QString, key);
    QFETCH(QJsonValue, value);
    Preset preset = overridePreset();
    Preset expected = overridePreset();
    if (owner == QStringLiteral("training"))
        expected.training.insert(key, value);
    else
        expected.graph.node(owner)->params.insert(key, value);

    const Status status = applyOverride(&preset, assignment);
    QVERIFY2(status.ok(), qPrintable(status.error().toString()));
    const QJsonValue actual = owner == QStringLiteral("training") ? preset.training.value(key)
                                                                  : preset.graph.node(owner)->params.value(key);
    QCOMPARE(actual, value);
    QCOMPARE(actual.type(), value.type());
    QVERIFY2(preset == expected, "nothing but the named value changes");
    QVERIFY(!hasErrors(validateGraph(preset.graph)));
    QVERIFY(validateTraining(preset.training).isEmpty());
}

void TestPresetOverrides::refuses_data()
{
    QTest::addColumn<QString>("assignment");
    QTest::addColumn<QString>("message");
    QTest::addColumn<QString>("node");
    QTest::addColumn<QString>("field");

    QTest::newRow("unknown node") << "fc9.out_features=1"
                                  << "--set fc9.out_features=1: no node \"fc9\" in the preset (nodes: data, norm, fc1, drop, loss, opt)"
                                  << kAny << kAny;
    QTest::newRow("unknown param") << "fc1.out_channels=3" << "--set fc1.out_channels=3: layer.linear has no parameter \"out_channels\""
                                   << "fc1" << "out_channels";
    QTest::newRow("unknown training key") << "training.epoch=3" << "--set training.epoch=3: no training setting \"epoch\""
                                          << "" << "training.epoch";
    QTest::newRow("int from a word") << "fc1.out_features=abc" << "--set fc1.out_features=abc: expected an integer, got \"abc\""
                                     << "fc1" << "out_features";
    QTest::newRow("int from a fraction") << "fc1.out_features=1.5"
                                         << "--set fc1.out_features=1.5: expected an integer, got \"1.5\"" << "fc1"
                                         << "out_features";
    QTest::newRow("empty value") << "fc1.out_features=" << "--set fc1.out_features=: expected an integer, got \"\"" << "fc1"
                                 << "out_features";
    QTest::newRow("bad bool") << "fc1.bias=maybe" << "--set fc1.bias=maybe: expected true or false, got \"maybe\"" << "fc1"
                              << "bias";
    QTest::newRow("bad choice") << "data.kind=moons"
                                << "--set data.kind=moons: expected one of blobs, spirals, regression, images, got \"moons\""
                                << "data" << "kind";
    QTest::newRow("bad list") << "norm.mean=a,b" << "--set norm.mean=a,b: expected a comma-separated list of numbers, got \"a,b\""
                              << "norm" << "mean";
    QTest::newRow("training bad type") << "training.epochs=ten" << "--set training.epochs=ten: expected an integer, got \"ten\""
                                       << "" << "training.epochs";
    QTest::newRow("out of range") << "drop.p=1.5" << "--set drop.p=1.5: must be at most 0.999 (got 1.5)" << "drop" << "p";
    QTest::newRow("below range") << "opt.lr=-1" << "--set opt.lr=-1: must be at least 0 (got -1)" << "opt" << "lr";
    QTest::newRow("training out of range") << "training.epochs=-1" << "--set training.epochs=-1: must be at least 0 (got -1)" << ""
                                           << "training.epochs";
    QTest::newRow("missing =") << "fc1.out_features"
                               << "--set fc1.out_features: expected KEY=VALUE, e.g. opt.lr=3e-4 or training.epochs=20" << ""
                               << "";
    QTest::newRow("nothing before =") << "=5" << "--set =5: expected KEY=VALUE, e.g. opt.lr=3e-4 or training.epochs=20" << ""
                                      << "";
    QTest::newRow("no dot") << "epochs=3" << "--set epochs=3: expected NODE_ID.PARAM or training.KEY before '='" << "" << "";
    QTest::newRow("no param") << "fc1.=3" << "--set fc1.=3: expected NODE_ID.PARAM or training.KEY before '='" << "" << "";
    QTest::newRow("no node") << ".lr=3" << "--set .lr=3: expected NODE_ID.PARAM or training.KEY before '='" << "" << "";
}

void TestPresetOverrides::refuses()
{
    QFETCH(QString, assignment);
    QFETCH(QString, message);
    QFETCH(QString, node);
    QFETCH(QString, field);
    Preset preset = overridePreset();
    const Status status = applyOverride(&preset, assignment);
    QVERIFY(!status.ok());
    QCOMPARE(status.error().message, message);
    if (node != kAny)
        QCOMPARE(status.error().node, node);
    if (field != kAny)
        QCOMPARE(status.error().field, field);
    QVERIFY2(preset == overridePreset(), "a refused override changes nothing");
}

void TestPresetOverrides::unknownBlockOfNode()
{
    Preset preset = overridePreset();
    preset.graph.nodes << node(QStringLiteral("x"), QStringLiteral("layer.bogus"));
    const Preset before = preset;
    const Status status = applyOverride(&preset, QStringLiteral("x.k=1"));
    QVERIFY(!status.ok());
    QCOMPARE(status.error().message, QStringLiteral("--set x.k=1: unknown block \"layer.bogus\""));
    QCOMPARE(status.error().node, QStringLiteral("x"));
    QVERIFY(preset == before);
}

void TestPresetOverrides::applyOverridesInOrder()
{
    Preset preset = overridePreset();
    const Status status = applyOverrides(&preset, {QStringLiteral("training.epochs=3"), QStringLiteral("fc1.out_features=8"),
                                                   QStringLiteral("training.epochs=4")});
    QVERIFY2(status.ok(), qPrintable(status.error().toString()));
    QCOMPARE(preset.training.value(QStringLiteral("epochs")), QJsonValue(4));
    QCOMPARE(preset.graph.node(QStringLiteral("fc1"))->params.value(QStringLiteral("out_features")), QJsonValue(8));
}

void TestPresetOverrides::applyOverridesIsAllOrNothing()
{
    Preset preset = overridePreset();
    const Status status = applyOverrides(&preset, {QStringLiteral("fc1.out_features=512"), QStringLiteral("fc1.nope=1"),
                                                   QStringLiteral("training.epochs=9")});
    QVERIFY(!status.ok());
    QCOMPARE(status.error().message, QStringLiteral("--set fc1.nope=1: layer.linear has no parameter \"nope\""));
    QVERIFY2(preset == overridePreset(), "the first, valid override must not stay applied");
    QCOMPARE(preset.graph.node(QStringLiteral("fc1"))->params.value(QStringLiteral("out_features")), QJsonValue(4));
    QCOMPARE(preset.training.value(QStringLiteral("epochs")), QJsonValue(5));
}

void TestPresetOverrides::applyOverridesOfNothing()
{
    Preset preset = overridePreset();
    QVERIFY(applyOverrides(&preset, {}).ok());
    QVERIFY(preset == overridePreset());
}

} // namespace

void TestPresetOverrides::swapKeepsTheSharedParameters()
{
    Preset p = overridePreset();
    p.graph.node(QStringLiteral("opt"))->params = QJsonObject{{QStringLiteral("lr"), 0.05}, {QStringLiteral("momentum"), 0.9}};
    // SGD -> Adam: lr is both blocks', momentum only SGD's.
    QVERIFY(applyOverrides(&p, {QStringLiteral("opt.block=optimizer.adam"), QStringLiteral("drop.block=layer.gelu")}).ok());
    const Node *opt = p.graph.node(QStringLiteral("opt"));
    QCOMPARE(opt->block, QStringLiteral("optimizer.adam"));
    QCOMPARE(opt->params, (QJsonObject{{QStringLiteral("lr"), 0.05}}));
    QCOMPARE(p.graph.node(QStringLiteral("drop"))->block, QStringLiteral("layer.gelu"));
    QCOMPARE(p.graph.edges.size(), overridePreset().graph.edges.size());  // the wiring stays
    QVERIFY2(!hasErrors(validateGraph(p.graph)), qPrintable(tytest::dump(validateGraph(p.graph))));
    // Parameters of the new block are set after the swap as usual.
    QVERIFY(applyOverride(&p, QStringLiteral("opt.beta1=0.8")).ok());
    QCOMPARE(p.graph.node(QStringLiteral("opt"))->params.value(QStringLiteral("beta1")).toDouble(), 0.8);
}

void TestPresetOverrides::swapToIncompatibleBlockIsRefused_data()
{
    QTest::addColumn<QString>("assignment");
    QTest::addColumn<QString>("message");
    // A linear layer's edges use "in" and "out"; a loss has "input", "target" and "loss".
    QTest::newRow("no such input") << "fc1.block=loss.mse" << "loss.mse cannot replace layer.linear: it has no input \"in\"";
    QTest::newRow("no such output") << "data.block=dataset.fashion_mnist"
                                    << "dataset.fashion_mnist cannot replace dataset.synthetic: it has no output \"features\"";
    QTest::newRow("unknown type") << "fc1.block=layer.nope" << "no block type \"layer.nope\"";
    QTest::newRow("unknown node") << "fc9.block=layer.relu" << "no node \"fc9\"";
}

void TestPresetOverrides::swapToIncompatibleBlockIsRefused()
{
    QFETCH(QString, assignment);
    QFETCH(QString, message);
    Preset p = overridePreset();
    const Status swapped = applyOverrides(&p, {QStringLiteral("fc1.out_features=7"), assignment});
    QVERIFY(!swapped.ok());
    QVERIFY2(swapped.error().message.contains(message), qPrintable(swapped.error().message));
    QVERIFY(swapped.error().message.contains(assignment));
    QCOMPARE(p.graph.node(QStringLiteral("fc1"))->block, QStringLiteral("layer.linear"));  // nothing changed
    QCOMPARE(p.graph.node(QStringLiteral("fc1"))->params.value(QStringLiteral("out_features")).toInt(), 4);
}

TY_TEST_CLASS(TestPresetOverrides)

#include "test_preset_overrides.moc"
