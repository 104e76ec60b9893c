// core/presets/preset_diff: node by node, parameter by parameter; defaults written out are no difference;
// the texts are readable; equivalent presets have no difference at all.

#include "test_suite.h"
#include "core_test_support.h"

#include "preset_diff.h"
#include "preset_format.h"

#include <QtTest>

using namespace ty;
using tytest::node;

namespace {

QStringList texts(const QList<PresetDifference> &differences)
{
    QStringList out;
    for (const PresetDifference &d : differences)
        out << d.text;
    return out;
}

class TestPresetDiff : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void identicalPresetsHaveNoDifference();
    void bundledPresetsEqualThemselves();
    void defaultsMadeExplicitAreNoDifference();
    void intAndDoubleOfSameValueAreEqual();
    void parameterChanged();
    void parameterBackToDefault();
    void nodeAddedAndRemoved();
    void blockChanged();
    void edgesAddedAndRemoved();
    void trainingKeys();
    void nameAndDescription();
    void positionsAreIgnored();
    void unknownBlockComparesExplicitValues();
    void orderIsStable();
    void variantLabelNamesFewChanges();
};

void TestPresetDiff::identicalPresetsHaveNoDifference()
{
    const Preset p = tytest::minimalPreset();
    QVERIFY2(diffPresets(p, p).isEmpty(), qPrintable(texts(diffPresets(p, p)).join(QLatin1Char('\n'))));
}

void TestPresetDiff::bundledPresetsEqualThemselves()
{
    const QStringList files = tytest::bundledPresetFiles();
    QVERIFY(files.size() >= 2);
    for (const QString &file : files) {
        const Result<Preset> loaded = loadPreset(file);
        QVERIFY2(loaded.ok(), qPrintable(loaded.error().toString()));
        // Through JSON and back: what a run stores and the browser reads.
        const Result<Preset> stored = presetFromJson(presetToJson(loaded.value()), QString());
        QVERIFY(stored.ok());
        QVERIFY2(diffPresets(loaded.value(), stored.value()).isEmpty(), qPrintable(file));
    }
    // Two different bundled presets do differ.
    const Preset first = loadPreset(files.at(0)).value();
    const Preset second = loadPreset(files.at(1)).value();
    QVERIFY(!diffPresets(first, second).isEmpty());
}

void TestPresetDiff::defaultsMadeExplicitAreNoDifference()
{
    const Preset a = tytest::minimalPreset();
    Preset b = a;
    b.graph.node(QStringLiteral("fc"))->params.insert(QStringLiteral("bias"), true);    // layer.linear's default
    b.graph.node(QStringLiteral("opt"))->params.insert(QStringLiteral("lr"), 0.01);     // optimizer.sgd's default
    b.training.insert(QStringLiteral("seed"), 0);                                          // training default
    b.training.insert(QStringLiteral("device"), QStringLiteral("auto"));
    QVERIFY2(diffPresets(a, b).isEmpty(), qPrintable(texts(diffPresets(a, b)).join(QLatin1Char('\n'))));
    QVERIFY2(diffPresets(b, a).isEmpty(), qPrintable(texts(diffPresets(b, a)).join(QLatin1Char('\n'))));
}

void TestPresetDiff::intAndDoubleOfSameValueAreEqual()
{
    Preset a = tytest::minimalPreset();
    Preset b = a;
    a.graph.node(QStringLiteral("fc"))->params.insert(QStringLiteral("out_features"), 10);
    b.graph.node(QStringLiteral("fc"))->params.insert(QStringLiteral("out_features"), 10.0);
    QVERIFY(diffPresets(a, b).isEmpty());
}

void TestPresetDiff::parameterChanged()
{
    const Preset a = tytest::minimalPreset();
    Preset b = a;
    b.graph.node(QStringLiteral("fc"))->params.insert(QStringLiteral("out_features"), 12);
    b.graph.node(QStringLiteral("opt"))->params.insert(QStringLiteral("lr"), 3e-4);  // default 0.01 -> explicit
    const QList<PresetDifference> d = diffPresets(a, b);
    QCOMPARE(texts(d), (QStringList{QStringLiteral("fc.out_features: 10 -> 12"), QStringLiteral("opt.lr: 0.01 -> 0.0003")}));
    QCOMPARE(d.at(0).kind, PresetDifferenceKind::ParamChanged);
    QCOMPARE(d.at(0).node, QStringLiteral("fc"));
    QCOMPARE(d.at(0).field, QStringLiteral("out_features"));
    QCOMPARE(d.at(0).before, QStringLiteral("10"));
    QCOMPARE(d.at(0).after, QStringLiteral("12"));
    QCOMPARE(d.at(1).before, QStringLiteral("0.01"));
}

void TestPresetDiff::parameterBackToDefault()
{
    Preset a = tytest::minimalPreset();
    a.graph.node(QStringLiteral("fc"))->params.insert(QStringLiteral("bias"), false);
    Preset b = tytest::minimalPreset();  // bias not written: the default, true
    QCOMPARE(texts(diffPresets(a, b)), QStringList{QStringLiteral("fc.bias: false -> true")});
    QCOMPARE(texts(diffPresets(b, a)), QStringList{QStringLiteral("fc.bias: true -> false")});
}

void TestPresetDiff::nodeAddedAndRemoved()
{
    const Preset a = tytest::minimalPreset();
    Preset b = a;
    tytest::removeNode(&b.graph, QStringLiteral("fc"));
    b.graph.nodes.append(node(QStringLiteral("drop"), QStringLiteral("layer.dropout")));
    const QList<PresetDifference> d = diffPresets(a, b);
    QCOMPARE(texts(d), (QStringList{QStringLiteral("node fc removed (layer.linear)"),
                                    QStringLiteral("node drop added (layer.dropout)"),
                                    QStringLiteral("edge removed: data.images -> fc.in"),
                                    QStringLiteral("edge removed: fc.out -> loss.input")}));
    QCOMPARE(d.at(0).kind, PresetDifferenceKind::NodeRemoved);
    QCOMPARE(d.at(0).before, QStringLiteral("layer.linear"));
    QVERIFY(d.at(0).after.isEmpty());
    QCOMPARE(d.at(1).kind, PresetDifferenceKind::NodeAdded);
    QCOMPARE(d.at(1).node, QStringLiteral("drop"));
    QCOMPARE(d.at(2).node, QStringLiteral("fc"));  // an edge points at the node it arrives at
}

void TestPresetDiff::blockChanged()
{
    Preset a = tytest::minimalPreset();
    Preset b = a;
    b.graph.node(QStringLiteral("opt"))->block = QStringLiteral("optimizer.adam");
    const QList<PresetDifference> d = diffPresets(a, b);
    QVERIFY(!d.isEmpty());
    QCOMPARE(d.at(0).kind, PresetDifferenceKind::BlockChanged);
    QCOMPARE(d.at(0).text, QStringLiteral("node opt: block optimizer.sgd -> optimizer.adam"));
    // Effective parameters of each block follow: sgd's momentum is gone, adam's betas appear, lr's default differs.
    const QStringList t = texts(d);
    QVERIFY2(t.contains(QStringLiteral("opt.momentum: 0 -> (unset)")), qPrintable(t.join(QLatin1Char('\n'))));
    QVERIFY2(t.contains(QStringLiteral("opt.beta1: (unset) -> 0.9")), qPrintable(t.join(QLatin1Char('\n'))));
}

void TestPresetDiff::edgesAddedAndRemoved()
{
    const Preset a = tytest::minimalPreset();
    Preset b = a;
    QVERIFY(tytest::removeEdge(&b.graph, QStringLiteral("data.labels"), QStringLiteral("loss.target")));
    b.graph.edges.append(tytest::edge(QStringLiteral("data.images"), QStringLiteral("loss.target")));
    const QList<PresetDifference> d = diffPresets(a, b);
    QCOMPARE(texts(d), (QStringList{QStringLiteral("edge removed: data.labels -> loss.target"),
                                    QStringLiteral("edge added: data.images -> loss.target")}));
    QCOMPARE(d.at(0).kind, PresetDifferenceKind::EdgeRemoved);
    QCOMPARE(d.at(1).kind, PresetDifferenceKind::EdgeAdded);
    QCOMPARE(d.at(1).field, QStringLiteral("data.images -> loss.target"));
    QCOMPARE(d.at(1).node, QStringLiteral("loss"));
}

void TestPresetDiff::trainingKeys()
{
    const Preset a = tytest::minimalPreset();  // epochs 2, batch_size 64
    Preset b = a;
    b.training.insert(QStringLiteral("epochs"), 20);
    b.training.remove(QStringLiteral("batch_size"));  // back to the default 128
    b.training.insert(QStringLiteral("early_stop_metric"), QStringLiteral("val/loss"));
    b.training.insert(QStringLiteral("zz_future_key"), 1);
    const QList<PresetDifference> d = diffPresets(a, b);
    QCOMPARE(texts(d), (QStringList{QStringLiteral("training.epochs: 2 -> 20"),
                                    QStringLiteral("training.batch_size: 64 -> 128"),
                                    QStringLiteral("training.early_stop_metric: \"\" -> \"val/loss\""),
                                    QStringLiteral("training.zz_future_key: (unset) -> 1")}));
    for (const PresetDifference &x : d) {
        QCOMPARE(x.kind, PresetDifferenceKind::TrainingChanged);
        QVERIFY(x.node.isEmpty());
    }
}

void TestPresetDiff::nameAndDescription()
{
    Preset a = tytest::minimalPreset();
    Preset b = a;
    b.name = QStringLiteral("minimal, wider");
    b.description = QStringLiteral("more features");
    QCOMPARE(texts(diffPresets(a, b)), (QStringList{QStringLiteral("name: \"minimal\" -> \"minimal, wider\""),
                                                    QStringLiteral("description: \"\" -> \"more features\"")}));
    QCOMPARE(diffPresets(a, b).at(0).kind, PresetDifferenceKind::NameChanged);
    QCOMPARE(diffPresets(a, b).at(1).kind, PresetDifferenceKind::DescriptionChanged);
}

void TestPresetDiff::positionsAreIgnored()
{
    Preset a = tytest::minimalPreset();
    Preset b = a;
    b.graph.node(QStringLiteral("fc"))->pos = QPointF(400, 300);
    b.sourcePath = QStringLiteral("/elsewhere/x.trainyard.json");
    QVERIFY(diffPresets(a, b).isEmpty());
}

void TestPresetDiff::unknownBlockComparesExplicitValues()
{
    Preset a = tytest::minimalPreset();
    a.graph.nodes.append(node(QStringLiteral("x"), QStringLiteral("layer.from_the_future"), {{QStringLiteral("k"), 1}}));
    Preset b = a;
    QVERIFY(diffPresets(a, b).isEmpty());
    b.graph.node(QStringLiteral("x"))->params.insert(QStringLiteral("k"), 2);
    QCOMPARE(texts(diffPresets(a, b)), QStringList{QStringLiteral("x.k: 1 -> 2")});
}

void TestPresetDiff::orderIsStable()
{
    const Preset a = tytest::minimalPreset();
    Preset b = a;
    b.training.insert(QStringLiteral("epochs"), 3);
    b.graph.node(QStringLiteral("opt"))->params.insert(QStringLiteral("momentum"), 0.9);
    b.graph.node(QStringLiteral("fc"))->params.insert(QStringLiteral("bias"), false);
    b.name = QStringLiteral("b");
    const QStringList expected{QStringLiteral("name: \"minimal\" -> \"b\""), QStringLiteral("fc.bias: true -> false"),
                               QStringLiteral("opt.momentum: 0 -> 0.9"), QStringLiteral("training.epochs: 2 -> 3")};
    QCOMPARE(texts(diffPresets(a, b)), expected);
    QCOMPARE(presetDifferenceKindName(PresetDifferenceKind::ParamChanged), QStringLiteral("parameter"));
}

void TestPresetDiff::variantLabelNamesFewChanges()
{
    const Preset a = tytest::minimalPreset();
    Preset b = a;
    b.name = QStringLiteral("renamed");
    QCOMPARE(variantLabel(diffPresets(a, b)), QString());
    b.graph.node(QStringLiteral("fc"))->params.insert(QStringLiteral("out_features"), 12);
    b.training.insert(QStringLiteral("epochs"), 20);
    QCOMPARE(variantLabel(diffPresets(a, b)), QStringLiteral("fc.out_features=12, training.epochs=20"));
    b.training.insert(QStringLiteral("seed"), 7);
    b.training.insert(QStringLiteral("batch_size"), 32);
    QCOMPARE(variantLabel(diffPresets(a, b)), QStringLiteral("edited"));  // four changes
    Preset c = a;
    c.graph.edges.removeLast();
    QCOMPARE(variantLabel(diffPresets(a, c)), QStringLiteral("edited"));
}

} // namespace

TY_TEST_CLASS(TestPresetDiff)

#include "test_preset_diff.moc"
