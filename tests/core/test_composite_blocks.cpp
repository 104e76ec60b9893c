// core/presets/composite_*: a preset's `blocks` section, expansion into a flat graph with nodes named by path,
// nesting, repeat, errors pinned to inner paths, --set into composites and swaps, the shapes and parameter
// counts of composite nodes, saving and the user's block library.

#include "test_suite.h"
#include "core_test_support.h"

#include "composite_blocks.h"
#include "composite_expansion.h"
#include "composite_grouping.h"
#include "json_io.h"
#include "preset_format.h"
#include "preset_inspection.h"
#include "preset_overrides.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QtTest>

using namespace ty;

namespace {

QJsonObject parse(const char *text)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray(text), &error);
    if (doc.isNull())
        qFatal("bad test JSON: %s", qPrintable(error.errorString()));
    return doc.object();
}

// A linear layer and a ReLU, the width exposed; and a block of two of them, nesting it.
const char *kBlocks = R"({
    "dense": {
        "description": "linear and relu",
        "params": {"width": {"type": "int", "default": 16, "min": 1, "bind": ["fc.out_features"]}},
        "inputs": {"in": "fc.in"}, "outputs": {"out": "act.out"},
        "nodes": [{"id": "fc", "block": "layer.linear"}, {"id": "act", "block": "layer.relu"}],
        "edges": [{"from": "fc.out", "to": "act.in"}]
    },
    "two": {
        "params": {"width": {"type": "int", "default": 8, "min": 1, "bind": ["first.width", "second.width"]}},
        "inputs": {"in": "first.in"}, "outputs": {"out": "second.out"},
        "nodes": [{"id": "first", "block": "dense"}, {"id": "second", "block": "dense"}],
        "edges": [{"from": "first.out", "to": "second.in"}]
    },
    "sum": {
        "inputs": {"a": "add.a", "b": "add.b"}, "outputs": {"out": "add.out"},
        "nodes": [{"id": "add", "block": "layer.add"}]
    }
})";

// data -> flat -> body (COMPOSITE) -> fc -> loss -> opt.
Preset presetUsing(const QString &block, const QJsonObject &params = {}, int repeat = 1)
{
    Preset preset = tytest::minimalPreset();
    preset.blocks = parse(kBlocks);
    Node flatten = tytest::node(QStringLiteral("flat"), QStringLiteral("layer.flatten"));
    Node body = tytest::node(QStringLiteral("body"), block, params);
    body.repeat = repeat;
    preset.graph.nodes.insert(1, flatten);
    preset.graph.nodes.insert(2, body);
    tytest::removeEdge(&preset.graph, QStringLiteral("data.images"), QStringLiteral("fc.in"));
    preset.graph.edges << tytest::edge(QStringLiteral("data.images"), QStringLiteral("flat.in"))
                       << tytest::edge(QStringLiteral("flat.out"), QStringLiteral("body.in"))
                       << tytest::edge(QStringLiteral("body.out"), QStringLiteral("fc.in"));
    return preset;
}

// `preset` with the inner node `index` of composite `block` replaced by `node`.
Preset withInnerNode(Preset preset, const QString &block, int index, const QJsonObject &node)
{
    QJsonObject definition = preset.blocks.value(block).toObject();
    QJsonArray nodes = definition.value(QStringLiteral("nodes")).toArray();
    nodes.replace(index, node);
    definition.insert(QStringLiteral("nodes"), nodes);
    preset.blocks.insert(block, definition);
    return preset;
}

QStringList idsOf(const PipelineGraph &graph)
{
    QStringList ids;
    for (const Node &n : graph.nodes)
        ids << n.id;
    return ids;
}

bool hasEdge(const PipelineGraph &graph, const QString &from, const QString &to)
{
    for (const Edge &e : graph.edges)
        if (e.from.toString() == from && e.to.toString() == to)
            return true;
    return false;
}

const Issue *issueAt(const Issues &issues, const QString &node)
{
    for (const Issue &issue : issues)
        if (issue.node == node && issue.severity == Severity::Error)
            return &issue;
    return nullptr;
}

// The preset with `ids` (and every edge touching them) removed.
Preset without(const Preset &preset, const QStringList &ids)
{
    Preset out = preset;
    for (const QString &id : ids)
        tytest::removeNode(&out.graph, id);
    return out;
}

Preset applied(const Preset &preset, const QStringList &ids, const Grouping &group)
{
    Preset out = without(preset, ids);
    out.blocks.insert(group.blockName, group.definition);
    out.graph.nodes.append(group.node);
    out.graph.edges += group.edges;
    return out;
}

Preset applied(const Preset &preset, const QString &id, const Ungrouping &ungroup)
{
    Preset out = without(preset, {id});
    out.graph.nodes += ungroup.nodes;
    out.graph.edges += ungroup.edges;
    return out;
}

} // namespace

class TestCompositeBlocks : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void expandsIntoNodesNamedByPath()
    {
        const CompositeExpansion e = expandComposites(presetUsing(QStringLiteral("dense"), {{QStringLiteral("width"), 32}}));
        QVERIFY2(e.issues.isEmpty(), qPrintable(tytest::dump(e.issues)));
        QCOMPARE(idsOf(e.preset.graph), (QStringList{QStringLiteral("data"), QStringLiteral("flat"), QStringLiteral("body/fc"),
                                                     QStringLiteral("body/act"), QStringLiteral("fc"), QStringLiteral("loss"),
                                                     QStringLiteral("opt")}));
        QCOMPARE(e.preset.graph.node(QStringLiteral("body/fc"))->params.value(QStringLiteral("out_features")).toInt(), 32);
        QVERIFY(hasEdge(e.preset.graph, QStringLiteral("flat.out"), QStringLiteral("body/fc.in")));
        QVERIFY(hasEdge(e.preset.graph, QStringLiteral("body/fc.out"), QStringLiteral("body/act.in")));
        QVERIFY(hasEdge(e.preset.graph, QStringLiteral("body/act.out"), QStringLiteral("fc.in")));
        QCOMPARE(e.uses.size(), 1);
        QCOMPARE(e.uses.first().outputNode, QStringLiteral("body/act"));
        // The default of an exposed parameter when the node sets none.
        const CompositeExpansion defaults = expandComposites(presetUsing(QStringLiteral("dense")));
        QCOMPARE(defaults.preset.graph.node(QStringLiteral("body/fc"))->params.value(QStringLiteral("out_features")).toInt(), 16);
        // A preset without composites comes back as it was.
        QCOMPARE(expandComposites(tytest::minimalPreset()).preset, tytest::minimalPreset());
    }

    void nestsAndRepeats()
    {
        const CompositeExpansion nested = expandComposites(presetUsing(QStringLiteral("two"), {{QStringLiteral("width"), 12}}));
        QVERIFY2(nested.issues.isEmpty(), qPrintable(tytest::dump(nested.issues)));
        QVERIFY(idsOf(nested.preset.graph).contains(QStringLiteral("body/second/fc")));
        QCOMPARE(nested.preset.graph.node(QStringLiteral("body/first/fc"))->params.value(QStringLiteral("out_features")).toInt(), 12);
        QVERIFY(hasEdge(nested.preset.graph, QStringLiteral("body/first/act.out"), QStringLiteral("body/second/fc.in")));
        QVERIFY(hasEdge(nested.preset.graph, QStringLiteral("body/second/act.out"), QStringLiteral("fc.in")));

        const CompositeExpansion repeated = expandComposites(presetUsing(QStringLiteral("dense"), {}, 3));
        QVERIFY2(repeated.issues.isEmpty(), qPrintable(tytest::dump(repeated.issues)));
        for (const char *id : {"body/0/fc", "body/1/fc", "body/2/act"})
            QVERIFY2(repeated.preset.graph.node(QString::fromLatin1(id)), id);
        QVERIFY(hasEdge(repeated.preset.graph, QStringLiteral("flat.out"), QStringLiteral("body/0/fc.in")));
        QVERIFY(hasEdge(repeated.preset.graph, QStringLiteral("body/0/act.out"), QStringLiteral("body/1/fc.in")));
        QVERIFY(hasEdge(repeated.preset.graph, QStringLiteral("body/1/act.out"), QStringLiteral("body/2/fc.in")));
        QVERIFY(hasEdge(repeated.preset.graph, QStringLiteral("body/2/act.out"), QStringLiteral("fc.in")));
    }

    void shapesAndParameterCountsSeeThrough()
    {
        // 784 -> dense(32) x 2 -> 10: 784*32+32 + 32*32+32 + 32*10+10.
        const ShapeReport report = inspectPresetShapes(presetUsing(QStringLiteral("dense"), {{QStringLiteral("width"), 32}}, 2));
        QVERIFY2(report.ok(), qPrintable(tytest::dump(report.issues)));
        QCOMPARE(report.totalParams, qint64(784 * 32 + 32 + 32 * 32 + 32 + 32 * 10 + 10));
        QCOMPARE(report.nodes.value(QStringLiteral("body")).paramCount, qint64(784 * 32 + 32 + 32 * 32 + 32));
        QCOMPARE(report.nodes.value(QStringLiteral("body")).outputShape, (std::vector<qint64>{32}));
        QVERIFY(report.nodes.value(QStringLiteral("body")).known);
        QCOMPARE(report.nodes.value(QStringLiteral("body/1")).paramCount, qint64(32 * 32 + 32));
        QCOMPARE(report.nodes.value(QStringLiteral("body/0/fc")).paramCount, qint64(784 * 32 + 32));
    }

    void errorsArePinnedToInnerPaths()
    {
        // A shape error inside: a layer.conv2d on flat features, two levels down.
        const Preset badInner = withInnerNode(presetUsing(QStringLiteral("two")), QStringLiteral("dense"), 1,
                                              {{QStringLiteral("id"), QStringLiteral("act")}, {QStringLiteral("block"), QStringLiteral("layer.nonesuch")}});
        const ShapeReport inner = inspectPresetShapes(badInner);
        QVERIFY2(issueAt(inner.issues, QStringLiteral("body/first/act")), qPrintable(tytest::dump(inner.issues)));
        QCOMPARE(issueAt(inner.issues, QStringLiteral("body/first/act"))->param, QStringLiteral("block"));

        // A bad exposed value, an unknown exposed parameter, an unknown port: on the composite node.
        const CompositeExpansion badValue = expandComposites(presetUsing(QStringLiteral("dense"), {{QStringLiteral("width"), 0}}));
        QVERIFY(issueAt(badValue.issues, QStringLiteral("body")));
        QCOMPARE(issueAt(badValue.issues, QStringLiteral("body"))->param, QStringLiteral("width"));
        const CompositeExpansion unknown = expandComposites(presetUsing(QStringLiteral("dense"), {{QStringLiteral("depth"), 2}}));
        QVERIFY(issueAt(unknown.issues, QStringLiteral("body"))->message.contains(QStringLiteral("known: width")));
        Preset wrongPort = presetUsing(QStringLiteral("dense"));
        wrongPort.graph.edges.last().from.port = QStringLiteral("nope");
        const CompositeExpansion port = expandComposites(wrongPort);
        QVERIFY(issueAt(port.issues, QStringLiteral("body")));
        QCOMPARE(issueAt(port.issues, QStringLiteral("body"))->port, QStringLiteral("nope"));

        // A definition that contains itself, through another.
        const Preset cycle = withInnerNode(presetUsing(QStringLiteral("two")), QStringLiteral("dense"), 1,
                                           {{QStringLiteral("id"), QStringLiteral("act")}, {QStringLiteral("block"), QStringLiteral("two")}});
        const CompositeExpansion cycled = expandComposites(cycle);
        QVERIFY2(hasErrors(cycled.issues), qPrintable(tytest::dump(cycled.issues)));
        QVERIFY2(tytest::dump(cycled.issues).contains(QStringLiteral("two > dense > two")), qPrintable(tytest::dump(cycled.issues)));

        // repeat needs one input and one output, and a composite.
        QVERIFY(issueAt(expandComposites(presetUsing(QStringLiteral("sum"), {}, 2)).issues, QStringLiteral("body")));
        Preset builtinRepeat = tytest::minimalPreset();
        builtinRepeat.graph.node(QStringLiteral("fc"))->repeat = 2;
        QCOMPARE(issueAt(expandComposites(builtinRepeat).issues, QStringLiteral("fc"))->param, QStringLiteral("repeat"));
        // Nested repeats that would make a billion nodes stop early, with an error.
        const Preset huge = withInnerNode(presetUsing(QStringLiteral("two"), {}, 1000), QStringLiteral("two"), 0,
                                          {{QStringLiteral("id"), QStringLiteral("first")}, {QStringLiteral("block"), QStringLiteral("dense")},
                                           {QStringLiteral("repeat"), 1000}});
        const CompositeExpansion refused = expandComposites(huge);
        QVERIFY2(tytest::dump(refused.issues).contains(QStringLiteral("expand to more than 200000 nodes")), qPrintable(tytest::dump(refused.issues)));
        QVERIFY(refused.preset.graph.nodes.size() <= 200001);
        // A user's node id may not look like a path.
        Preset slash = tytest::minimalPreset();
        slash.graph.node(QStringLiteral("fc"))->id = QStringLiteral("a/b");
        QVERIFY(issueAt(inspectPresetShapes(slash).issues, QStringLiteral("a/b")));
    }

    void definitionsAreCheckedWhenLoaded_data()
    {
        QTest::addColumn<QString>("definition");
        QTest::addColumn<QString>("field");
        QTest::newRow("no nodes") << R"({"inputs": {"in": "x.in"}, "outputs": {"out": "x.out"}, "nodes": []})" << "blocks.b.nodes";
        QTest::newRow("input to nothing") << R"({"inputs": {"in": "y.in"}, "outputs": {"out": "x.out"}, "nodes": [{"id": "x", "block": "layer.relu"}]})" << "blocks.b.inputs.in";
        QTest::newRow("no outputs") << R"({"inputs": {"in": "x.in"}, "nodes": [{"id": "x", "block": "layer.relu"}]})" << "blocks.b.outputs";
        QTest::newRow("bind to nothing") << R"({"inputs": {"in": "x.in"}, "outputs": {"out": "x.out"}, "nodes": [{"id": "x", "block": "layer.relu"}],
                                               "params": {"w": {"type": "int", "default": 1, "bind": ["y.out_features"]}}})" << "blocks.b.params.w";
        QTest::newRow("bad default") << R"({"inputs": {"in": "x.in"}, "outputs": {"out": "x.out"}, "nodes": [{"id": "x", "block": "layer.relu"}],
                                           "params": {"w": {"type": "int", "default": 0, "min": 1, "bind": ["x.a"]}}})" << "blocks.b.params.w";
        QTest::newRow("unknown field") << R"({"inputs": {"in": "x.in"}, "outputs": {"out": "x.out"}, "nodes": [{"id": "x", "block": "layer.relu"}], "colour": 1})" << "blocks.b.colour";
    }

    void definitionsAreCheckedWhenLoaded()
    {
        QFETCH(QString, definition);
        QFETCH(QString, field);
        QJsonObject json = presetToJson(tytest::minimalPreset());
        json.insert(QStringLiteral("blocks"), QJsonObject{{QStringLiteral("b"), parse(definition.toUtf8().constData())}});
        const Result<Preset> loaded = presetFromJson(json, QStringLiteral("p.trainyard.json"));
        QVERIFY(!loaded.ok());
        QCOMPARE(loaded.error().field, field);
        QCOMPARE(loaded.error().file, QStringLiteral("p.trainyard.json"));
    }

    void savesAndLoadsBack()
    {
        const Preset preset = presetUsing(QStringLiteral("two"), {{QStringLiteral("width"), 5}}, 2);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("c.trainyard.json"));
        QVERIFY(savePreset(preset, path).ok());
        Result<Preset> loaded = loadPreset(path);
        QVERIFY2(loaded.ok(), qPrintable(loaded.error().toString()));
        QCOMPARE(loaded.value(), preset);
        QCOMPARE(loaded.value().graph.node(QStringLiteral("body"))->repeat, 2);
    }

    void setReachesExposedAndInnerParameters()
    {
        Preset preset = presetUsing(QStringLiteral("two"));
        const Status set = applyOverrides(&preset, {QStringLiteral("body.width=24"), QStringLiteral("body/second/fc.bias=false")});
        QVERIFY2(set.ok(), qPrintable(set.error().toString()));
        const CompositeExpansion e = expandComposites(preset);
        QVERIFY2(e.issues.isEmpty(), qPrintable(tytest::dump(e.issues)));
        QCOMPARE(e.preset.graph.node(QStringLiteral("body/first/fc"))->params.value(QStringLiteral("out_features")).toInt(), 24);
        QCOMPARE(e.preset.graph.node(QStringLiteral("body/second/fc"))->params.value(QStringLiteral("bias")), QJsonValue(false));
        QVERIFY(!e.preset.graph.node(QStringLiteral("body/first/fc"))->params.contains(QStringLiteral("bias")));
        QCOMPARE(flattenParams(preset).value(QStringLiteral("body.width")), QStringLiteral("24"));

        // Refused, naming what is wrong, and the preset left as it was.
        const Preset before = preset;
        for (const char *bad : {"body.depth=3", "body.width=0", "body.third.fc.bias=false", "body.second.fc.nonesuch=1",
                                "body.second.fc.bias=maybe"}) {
            const Status status = applyOverride(&preset, QString::fromLatin1(bad));
            QVERIFY2(!status.ok(), bad);
            QCOMPARE(status.error().node, QStringLiteral("body"));
            QCOMPARE(preset, before);
        }
        QVERIFY(applyOverride(&preset, QStringLiteral("body.third.fc.bias=false")).error().message.contains(QStringLiteral("inner nodes: first, second")));
    }

    void swapsBetweenBlocksWithTheSamePorts()
    {
        Preset preset = presetUsing(QStringLiteral("dense"), {{QStringLiteral("width"), 20}});
        QVERIFY(applyOverride(&preset, QStringLiteral("body.block=two")).ok());
        QCOMPARE(preset.graph.node(QStringLiteral("body"))->block, QStringLiteral("two"));
        QCOMPARE(preset.graph.node(QStringLiteral("body"))->params.value(QStringLiteral("width")).toInt(), 20);  // both have it
        QVERIFY(inspectPresetShapes(preset).ok());
        // A built-in block for a composite, and back.
        QVERIFY(applyOverride(&preset, QStringLiteral("body.block=layer.relu")).ok());
        QVERIFY(preset.graph.node(QStringLiteral("body"))->params.isEmpty());
        QVERIFY(applyOverride(&preset, QStringLiteral("body.block=dense")).ok());
        // Ports that do not fit: refused, naming both blocks.
        const Status status = applyOverride(&preset, QStringLiteral("body.block=sum"));
        QVERIFY(!status.ok());
        QVERIFY2(status.error().message.contains(QStringLiteral("sum cannot replace dense")), qPrintable(status.error().toString()));
    }

    void theBundledResNetIsBuiltFromComposites()
    {
        const Result<Preset> preset = loadPreset(tytest::presetsDir() + QStringLiteral("/fashion-mnist-resnet.trainyard.json"));
        QVERIFY(preset.ok());
        QVERIFY(preset.value().blocks.contains(QStringLiteral("residual_unit")));
        const ShapeReport report = inspectPresetShapes(preset.value());
        QVERIFY2(report.ok(), qPrintable(tytest::dump(report.issues)));
        QCOMPARE(report.totalParams, qint64(77290));  // as when it was 31 flat nodes
        QCOMPARE(report.nodes.value(QStringLiteral("stage2")).outputShape, (std::vector<qint64>{64, 7, 7}));
        QCOMPARE(report.nodes.value(QStringLiteral("stage1")).paramCount, qint64(2 * (32 * 32 * 9 + 2 * 32)));
        QVERIFY(report.nodes.contains(QStringLiteral("stage2/shortcut/conv")));
        // --set reaches an exposed width through two levels of composites.
        Preset wider = preset.value();
        QVERIFY(applyOverride(&wider, QStringLiteral("stage2.width=32")).ok());
        QVERIFY(inspectPresetShapes(wider).totalParams < report.totalParams);
    }

    void theLibraryKeepsBlocksAndPresetsEmbedThem()
    {
        QTemporaryDir dir;
        const Preset source = presetUsing(QStringLiteral("two"));
        QVERIFY(saveLibraryBlock(source, QStringLiteral("two"), dir.path()).ok());
        QFile junk(dir.filePath(QStringLiteral("broken.trainyard-block.json")));
        QVERIFY(junk.open(QIODevice::WriteOnly));
        junk.write("{\"format\": \"trainyard-block\"");
        junk.close();
        QStringList problems;
        const QList<LibraryBlock> library = loadBlockLibrary(dir.path(), &problems);
        QCOMPARE(library.size(), 1);
        QCOMPARE(problems.size(), 1);
        QVERIFY(problems.first().contains(QStringLiteral("broken.trainyard-block.json")));
        QCOMPARE(library.first().name, QStringLiteral("two"));
        QVERIFY(library.first().uses.contains(QStringLiteral("dense")));  // the composite it uses travels with it
        // A preset that uses it gets a copy of both: it stays self-contained.
        Preset user = presetUsing(QStringLiteral("two"));
        user.blocks = QJsonObject();
        QVERIFY(!inspectPresetShapes(user).ok());  // unknown block "two"
        embedLibraryBlock(&user, library.first());
        QVERIFY(user.blocks.contains(QStringLiteral("dense")));
        QVERIFY2(inspectPresetShapes(user).ok(), qPrintable(tytest::dump(inspectPresetShapes(user).issues)));
    }

    void groupsNodesIntoABlockAndUngroupsIt()
    {
        const Preset cnn = loadPreset(tytest::presetsDir() + QStringLiteral("/fashion-mnist-cnn.trainyard.json")).value();
        const ShapeReport before = inspectPresetShapes(cnn);
        QVERIFY(before.ok());
        const QStringList ids{QStringLiteral("conv1"), QStringLiteral("relu1"), QStringLiteral("pool1")};
        const Result<Grouping> group = groupIntoComposite(cnn, ids);
        QVERIFY2(group.ok(), qPrintable(group.error().toString()));
        QCOMPARE(group.value().blockName, QStringLiteral("block"));
        QCOMPARE(group.value().node.id, QStringLiteral("group"));
        const Preset grouped = applied(cnn, ids, group.value());
        QCOMPARE(grouped.graph.nodes.size(), cnn.graph.nodes.size() - 2);
        const ShapeReport report = inspectPresetShapes(grouped);
        QVERIFY2(report.ok(), qPrintable(tytest::dump(report.issues)));
        QCOMPARE(report.totalParams, before.totalParams);
        QCOMPARE(report.nodes.value(QStringLiteral("group")).outputShape, before.nodes.value(QStringLiteral("pool1")).outputShape);
        QVERIFY(hasEdge(grouped.graph, QStringLiteral("norm.out"), QStringLiteral("group.in")));
        QVERIFY(hasEdge(grouped.graph, QStringLiteral("group.out"), QStringLiteral("conv2.in")));

        const Result<Ungrouping> ungroup = ungroupComposite(grouped, QStringLiteral("group"));
        QVERIFY2(ungroup.ok(), qPrintable(ungroup.error().toString()));
        const Preset back = applied(grouped, QStringLiteral("group"), ungroup.value());
        // Grouped and ungrouped again, the nodes have the ids they had, the same values, edges and positions.
        QStringList backIds = idsOf(back.graph), cnnIds = idsOf(cnn.graph);
        backIds.sort();
        cnnIds.sort();
        QCOMPARE(backIds, cnnIds);
        for (const QString &id : ids) {
            QCOMPARE(back.graph.node(id)->params, cnn.graph.node(id)->params);
            QCOMPARE(back.graph.node(id)->pos, cnn.graph.node(id)->pos);
        }
        QCOMPARE(inspectPresetShapes(back).totalParams, before.totalParams);
        QVERIFY(hasEdge(back.graph, QStringLiteral("norm.out"), QStringLiteral("conv1.in")));
        QVERIFY(hasEdge(back.graph, QStringLiteral("conv1.out"), QStringLiteral("relu1.in")));
        QVERIFY(hasEdge(back.graph, QStringLiteral("pool1.out"), QStringLiteral("conv2.in")));

        // The ResNet's stage2: its exposed width goes into the two inner conv_bn nodes, which stay composites; the
        // inner ids are free in the pipeline, so they stay as they are.
        const Preset resnet = loadPreset(tytest::presetsDir() + QStringLiteral("/fashion-mnist-resnet.trainyard.json")).value();
        const Result<Ungrouping> stage = ungroupComposite(resnet, QStringLiteral("stage2"));
        QVERIFY(stage.ok());
        const Preset flatter = applied(resnet, QStringLiteral("stage2"), stage.value());
        QCOMPARE(flatter.graph.node(QStringLiteral("shortcut"))->block, QStringLiteral("conv_bn"));
        QCOMPARE(flatter.graph.node(QStringLiteral("shortcut"))->params.value(QStringLiteral("width")).toInt(), 64);
        QCOMPARE(inspectPresetShapes(flatter).totalParams, qint64(77290));
        // Then stage1, whose inner ids (conv1, relu1, ...) stage2's nodes now have: those are named stage1_conv1, ...
        const Result<Ungrouping> other = ungroupComposite(flatter, QStringLiteral("stage1"));
        QVERIFY(other.ok());
        const Preset flat = applied(flatter, QStringLiteral("stage1"), other.value());
        QVERIFY(flat.graph.node(QStringLiteral("stage1_conv1")));
        QVERIFY(flat.graph.node(QStringLiteral("conv1")));
        QCOMPARE(flat.graph.node(QStringLiteral("conv1"))->params, flatter.graph.node(QStringLiteral("conv1"))->params);
        QCOMPARE(inspectPresetShapes(flat).totalParams, qint64(77290));

        // Refused: a loss, a group without an output, a node that is no composite, a repeated one.
        QVERIFY(!groupIntoComposite(cnn, {QStringLiteral("fc2"), QStringLiteral("loss")}).ok());
        QVERIFY(groupIntoComposite(cnn, {QStringLiteral("fc2"), QStringLiteral("loss")}).error().message.contains(QStringLiteral("a loss")));
        QVERIFY(!groupIntoComposite(cnn, {QStringLiteral("data")}).ok());
        QVERIFY(!ungroupComposite(cnn, QStringLiteral("conv1")).ok());
        Preset repeated = grouped;
        repeated.graph.node(QStringLiteral("group"))->repeat = 2;
        QCOMPARE(ungroupComposite(repeated, QStringLiteral("group")).error().field, QStringLiteral("repeat"));
    }

    void exposesAnInnerParameter()
    {
        Preset preset = presetUsing(QStringLiteral("dense"), {{QStringLiteral("width"), 12}});
        const QList<InnerParam> inner = innerParams(preset, QStringLiteral("dense"));
        QCOMPARE(inner.first().path, QStringLiteral("fc.out_features"));
        QCOMPARE(inner.first().exposedAs, QStringLiteral("width"));
        QString name;
        const Result<QJsonObject> exposed = exposeInnerParam(preset, QStringLiteral("dense"), QStringLiteral("fc.bias"), &name);
        QVERIFY2(exposed.ok(), qPrintable(exposed.error().toString()));
        QCOMPARE(name, QStringLiteral("bias"));
        preset.blocks.insert(QStringLiteral("dense"), exposed.value());
        QVERIFY(compositeFromJson(QStringLiteral("dense"), exposed.value()).ok());
        // The default is the inner value, so nothing changes until a node sets it.
        QCOMPARE(expandComposites(preset).preset.graph.node(QStringLiteral("body/fc"))->params.value(QStringLiteral("bias")), QJsonValue(true));
        QVERIFY(applyOverride(&preset, QStringLiteral("body.bias=false")).ok());
        QCOMPARE(expandComposites(preset).preset.graph.node(QStringLiteral("body/fc"))->params.value(QStringLiteral("bias")), QJsonValue(false));
        // Twice is refused; so is a parameter the block does not have.
        QVERIFY(exposeInnerParam(preset, QStringLiteral("dense"), QStringLiteral("fc.bias")).error().message.contains(QStringLiteral("exposed already, as bias")));
        QVERIFY(!exposeInnerParam(preset, QStringLiteral("dense"), QStringLiteral("fc.nonesuch")).ok());
    }
};

TY_TEST_CLASS(TestCompositeBlocks)

#include "test_composite_blocks.moc"
