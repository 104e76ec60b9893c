// core/presets: the preset file format. Round trips (JSON and files), structural errors naming file, line,
// column and field, version handling, hashes and flattened parameters.

#include "test_suite.h"
#include "core_test_support.h"

#include "graph_validation.h"
#include "json_io.h"
#include "preset.h"
#include "preset_format.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

using namespace ty;
using tytest::node;

namespace {

// A preset using every kind of value: fractional positions, a description, every training key.
Preset richPreset()
{
    Preset p;
    p.name = QStringLiteral("R\u00e9sum\u00e9 \"quoted\" net");
    p.description = QStringLiteral("Line one\nline two");
    p.graph = tytest::graph(
        {node(QStringLiteral("data"), QStringLiteral("dataset.synthetic"),
              {{QStringLiteral("kind"), QStringLiteral("spirals")}, {QStringLiteral("samples"), 300},
               {QStringLiteral("noise"), 0.05}}),
         node(QStringLiteral("norm"), QStringLiteral("transform.normalize"),
              {{QStringLiteral("mean"), QJsonArray{0.5, -0.25}}, {QStringLiteral("std"), QJsonArray{0.3, 2}}}),
         node(QStringLiteral("fc"), QStringLiteral("layer.linear"),
              {{QStringLiteral("out_features"), 4}, {QStringLiteral("bias"), false}}),
         node(QStringLiteral("loss"), QStringLiteral("loss.cross_entropy")),
         node(QStringLiteral("opt"), QStringLiteral("optimizer.adamw"), {{QStringLiteral("lr"), 3e-4}}),
         node(QStringLiteral("sched"), QStringLiteral("schedule.step"))},
        {{"data.features", "norm.in"},
         {"norm.out", "fc.in"},
         {"fc.out", "loss.input"},
         {"data.target", "loss.target"},
         {"loss.loss", "opt.loss"},
         {"sched.schedule", "opt.schedule"}});
    for (int i = 0; i < p.graph.nodes.size(); ++i)
        p.graph.nodes[i].pos = QPointF(12.5 + 200 * i, -3.25 * i);
    p.training = QJsonObject{{QStringLiteral("epochs"), 3},
                             {QStringLiteral("batch_size"), 16},
                             {QStringLiteral("eval_batch_size"), 256},
                             {QStringLiteral("seed"), 9007199254740991.0},
                             {QStringLiteral("device"), QStringLiteral("cpu")},
                             {QStringLiteral("deterministic"), true},
                             {QStringLiteral("checkpoint_every"), 0},
                             {QStringLiteral("log_every"), 5},
                             {QStringLiteral("early_stop_metric"), QStringLiteral("val/loss")},
                             {QStringLiteral("early_stop_mode"), QStringLiteral("min")},
                             {QStringLiteral("early_stop_patience"), 2},
                             {QStringLiteral("threads"), 1}};
    return p;
}

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool writeAll(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

class TestPresetFormat : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void bundledPresetRoundTrip_data();
    void bundledPresetRoundTrip();
    void bundledPresetSavesAndLoads_data() { bundledPresetRoundTrip_data(); }
    void bundledPresetSavesAndLoads();
    void richPresetSavesAndLoads();
    void hypothesisIsKeptAndChecked();
    void savingIsIdempotent();
    void minimalFileLoads();
    void toJsonLayout();
    void malformedJsonNamesFileLineAndColumn();
    void missingFile();
    void structuralErrors_data();
    void structuralErrors();
    void newerVersionIsRefused();
    void migrateCurrentVersion();
    void equalityIgnoresSourcePath();
    void hashOfEqualPresets();
    void hashChangesWithContent();
    void hashIsSha256OfCanonicalJson();
    void flattenParamsIncludesDefaults();
    void flattenParamsOfBundledMlp();
    void baseDir();
    void pathsMadeAbsolute();
};

void TestPresetFormat::bundledPresetRoundTrip_data()
{
    QTest::addColumn<QString>("path");
    const QStringList files = tytest::bundledPresetFiles();
    QVERIFY2(files.size() >= 4, qPrintable(QStringLiteral("only %1 presets in %2").arg(files.size()).arg(tytest::presetsDir())));
    for (const QString &file : files)
        QTest::newRow(qPrintable(QFileInfo(file).fileName())) << file;
}

void TestPresetFormat::bundledPresetRoundTrip()
{
    QFETCH(QString, path);
    const Result<Preset> loaded = loadPreset(path);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error().toString()));
    const Preset &preset = loaded.value();
    QVERIFY(!preset.name.isEmpty());
    QVERIFY(!preset.graph.nodes.isEmpty());
    QCOMPARE(preset.sourcePath, path);

    const QJsonObject json = presetToJson(preset);
    const Result<Preset> again = presetFromJson(json, QStringLiteral("again.json"));
    QVERIFY2(again.ok(), qPrintable(again.error().toString()));
    QVERIFY2(again.value() == preset, "presetFromJson(presetToJson(p)) differs from p");
    QCOMPARE(again.value().graph.nodes.size(), preset.graph.nodes.size());
    QCOMPARE(again.value().graph.edges.size(), preset.graph.edges.size());
    QCOMPARE(presetToJson(again.value()), json);

    // Nothing of the file is lost: the writer's JSON is the file's JSON.
    const Result<QJsonObject> raw = readJsonObjectFile(path);
    QVERIFY(raw.ok());
    QCOMPARE(json, raw.value());
}

void TestPresetFormat::bundledPresetSavesAndLoads()
{
    QFETCH(QString, path);
    const Result<Preset> loaded = loadPreset(path);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error().toString()));
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString copy = dir.filePath(QFileInfo(path).fileName());
    const Status saved = savePreset(loaded.value(), copy);
    QVERIFY2(saved.ok(), qPrintable(saved.error().toString()));
    const Result<Preset> reloaded = loadPreset(copy);
    QVERIFY2(reloaded.ok(), qPrintable(reloaded.error().toString()));
    QVERIFY(reloaded.value() == loaded.value());
    QCOMPARE(reloaded.value().sourcePath, copy);
    QCOMPARE(presetHash(reloaded.value()), presetHash(loaded.value()));
}

void TestPresetFormat::richPresetSavesAndLoads()
{
    const Preset original = richPreset();
    QVERIFY2(!hasErrors(validateGraph(original.graph)), qPrintable(tytest::dump(validateGraph(original.graph))));
    QVERIFY(validateTraining(original.training).isEmpty());
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("rich.trainyard.json"));
    const Status saved = savePreset(original, path);
    QVERIFY2(saved.ok(), qPrintable(saved.error().toString()));
    const Result<Preset> loaded = loadPreset(path);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error().toString()));
    const Preset &p = loaded.value();
    QVERIFY(p == original);
    QCOMPARE(p.name, original.name);
    QCOMPARE(p.description, original.description);
    QCOMPARE(p.graph.nodes.at(1).pos, QPointF(212.5, -3.25));
    QCOMPARE(p.graph.node(QStringLiteral("norm"))->params.value(QStringLiteral("mean")), QJsonValue(QJsonArray{0.5, -0.25}));
    QCOMPARE(p.graph.node(QStringLiteral("fc"))->params.value(QStringLiteral("bias")), QJsonValue(false));
    QCOMPARE(p.training.value(QStringLiteral("seed")).toDouble(), 9007199254740991.0);
    QVERIFY2(p.graph.node(QStringLiteral("loss"))->params.isEmpty(), "no explicit params stay none");
}

// A preset's "hypothesis" (what the experiment should show) saves, loads and counts in the preset's identity; a
// value that is not a string is refused, naming the field.
void TestPresetFormat::hypothesisIsKeptAndChecked()
{
    Preset preset = richPreset();
    preset.hypothesis = QStringLiteral("Adam at 3e-4 beats SGD at 0.1 by 2 points of val/accuracy");
    const QJsonObject json = presetToJson(preset);
    QCOMPARE(json.value(QStringLiteral("hypothesis")).toString(), preset.hypothesis);
    const Result<Preset> again = presetFromJson(json, QStringLiteral("h.json"));
    QVERIFY2(again.ok(), again.ok() ? "" : qPrintable(again.error().toString()));
    QCOMPARE(again.value().hypothesis, preset.hypothesis);
    QVERIFY(again.value() == preset);
    QVERIFY(presetHash(again.value()) != presetHash(richPreset()));
    QVERIFY(!presetToJson(richPreset()).contains(QStringLiteral("hypothesis")));  // none: no field
    QJsonObject wrong = json;
    wrong.insert(QStringLiteral("hypothesis"), 3);
    const Result<Preset> refused = presetFromJson(wrong, QStringLiteral("h.json"));
    QVERIFY(!refused.ok());
    QCOMPARE(refused.error().field, QStringLiteral("hypothesis"));
}

void TestPresetFormat::savingIsIdempotent()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString first = dir.filePath(QStringLiteral("a.json"));
    const QString second = dir.filePath(QStringLiteral("b.json"));
    QVERIFY(savePreset(richPreset(), first).ok());
    const Result<Preset> loaded = loadPreset(first);
    QVERIFY(loaded.ok());
    QVERIFY(savePreset(loaded.value(), second).ok());
    QVERIFY(!readAll(first).isEmpty());
    QCOMPARE(readAll(second), readAll(first));
}

void TestPresetFormat::minimalFileLoads()
{
    const Result<QJsonObject> json =
        parseJsonObject(R"({"format": "trainyard-preset", "version": 1, "nodes": [{"id": "r", "block": "layer.relu"}]})",
                        QStringLiteral("m.json"));
    QVERIFY(json.ok());
    const Result<Preset> preset = presetFromJson(json.value(), QStringLiteral("m.json"));
    QVERIFY2(preset.ok(), qPrintable(preset.error().toString()));
    QCOMPARE(preset.value().graph.nodes.size(), 1);
    QCOMPARE(preset.value().graph.nodes.at(0).id, QStringLiteral("r"));
    QCOMPARE(preset.value().graph.nodes.at(0).pos, QPointF(0, 0));
    QVERIFY(preset.value().graph.nodes.at(0).params.isEmpty());
    QVERIFY(preset.value().graph.edges.isEmpty());
    QVERIFY(preset.value().training.isEmpty());
    QVERIFY(preset.value().name.isEmpty());
    QVERIFY(preset.value().description.isEmpty());
}

void TestPresetFormat::toJsonLayout()
{
    Preset p = tytest::minimalPreset();
    p.graph.nodes[1].pos = QPointF(240, 80);
    const QJsonObject json = presetToJson(p);
    QCOMPARE(json.value(QStringLiteral("format")).toString(), QStringLiteral("trainyard-preset"));
    QCOMPARE(json.value(QStringLiteral("version")), QJsonValue(Preset::kFormatVersion));
    QCOMPARE(json.value(QStringLiteral("name")).toString(), QStringLiteral("minimal"));
    QVERIFY2(!json.contains(QStringLiteral("description")), "an empty description is left out");
    const QJsonObject fc = json.value(QStringLiteral("nodes")).toArray().at(1).toObject();
    QCOMPARE(fc, (QJsonObject{{QStringLiteral("id"), QStringLiteral("fc")},
                              {QStringLiteral("block"), QStringLiteral("layer.linear")},
                              {QStringLiteral("params"), QJsonObject{{QStringLiteral("out_features"), 10}}},
                              {QStringLiteral("pos"), QJsonArray{240, 80}}}));
    const QJsonObject loss = json.value(QStringLiteral("nodes")).toArray().at(2).toObject();
    QVERIFY2(!loss.contains(QStringLiteral("params")), "empty params are left out");
    QCOMPARE(json.value(QStringLiteral("edges")).toArray().at(0).toObject(),
             (QJsonObject{{QStringLiteral("from"), QStringLiteral("data.images")}, {QStringLiteral("to"), QStringLiteral("fc.in")}}));
    QCOMPARE(json.value(QStringLiteral("training")).toObject(), p.training);
    p.description = QStringLiteral("d");
    QCOMPARE(presetToJson(p).value(QStringLiteral("description")).toString(), QStringLiteral("d"));
}

void TestPresetFormat::malformedJsonNamesFileLineAndColumn()
{
    // Line 6 has a trailing comma: the parser finds "}" (column 42) where a key should be.
    const QByteArray bytes = "{\n"
                             "  \"format\": \"trainyard-preset\",\n"
                             "  \"version\": 1,\n"
                             "  \"name\": \"broken\",\n"
                             "  \"nodes\": [\n"
                             "    {\"id\": \"fc\", \"block\": \"layer.linear\",}\n"
                             "  ]\n"
                             "}\n";
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("broken.trainyard.json"));
    QVERIFY(writeAll(path, bytes));
    const Result<Preset> loaded = loadPreset(path);
    QVERIFY(!loaded.ok());
    const Error &e = loaded.error();
    QCOMPARE(e.file, path);
    QCOMPARE(e.line, 6);
    QVERIFY2(e.message.startsWith(QStringLiteral("malformed JSON: ")), qPrintable(e.message));
    QVERIFY2(e.toString().startsWith(path + QStringLiteral(":6:")), qPrintable(e.toString()));
    QVERIFY2(e.toString().contains(QStringLiteral(": malformed JSON: ")), qPrintable(e.toString()));
    QCOMPARE(e.column, 42);
}

void TestPresetFormat::missingFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("nope.trainyard.json"));
    const Result<Preset> loaded = loadPreset(path);
    QVERIFY(!loaded.ok());
    QCOMPARE(loaded.error().file, path);
    QCOMPARE(loaded.error().message, QStringLiteral("file not found"));
}

void TestPresetFormat::structuralErrors_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("node");
    QTest::addColumn<QString>("message");

    const QByteArray head = R"("format": "trainyard-preset", "version": 1, )";
    auto preset = [&](const QByteArray &rest) { return "{" + head + rest + "}"; };
    const QByteArray relu = R"({"id": "a", "block": "layer.relu"})";

    QTest::newRow("not a preset") << QByteArray(R"({"format": "keras-model", "version": 1, "nodes": []})") << "format" << ""
                                  << "not a Trainyard preset (expected \"format\": \"trainyard-preset\")";
    QTest::newRow("no format") << QByteArray(R"({"version": 1, "nodes": []})") << "format" << ""
                               << "not a Trainyard preset (expected \"format\": \"trainyard-preset\")";
    QTest::newRow("no version") << QByteArray(R"({"format": "trainyard-preset", "nodes": []})") << "version" << ""
                                << "expected a positive integer version";
    QTest::newRow("version zero") << QByteArray(R"({"format": "trainyard-preset", "version": 0, "nodes": []})") << "version"
                                  << "" << "expected a positive integer version";
    QTest::newRow("version fraction") << QByteArray(R"({"format": "trainyard-preset", "version": 1.5, "nodes": []})")
                                      << "version" << "" << "expected a positive integer version";
    QTest::newRow("version as text") << QByteArray(R"({"format": "trainyard-preset", "version": "1", "nodes": []})")
                                     << "version" << "" << "expected a positive integer version";
    QTest::newRow("unknown top-level field") << preset(R"("nodes": [], "nodez": [])") << "nodez" << ""
                                             << "unknown top-level field \"nodez\"";
    QTest::newRow("name not text") << preset(R"("name": 5, "nodes": [])") << "name" << "" << "expected a string, got integer";
    QTest::newRow("description not text") << preset(R"("description": [], "nodes": [])") << "description" << ""
                                          << "expected a string, got array";
    QTest::newRow("no nodes") << preset(R"("name": "x")") << "nodes" << "" << "expected an array of nodes, got nothing";
    QTest::newRow("nodes not a list") << preset(R"("nodes": {})") << "nodes" << "" << "expected an array of nodes, got object";
    QTest::newRow("node not an object") << preset(R"("nodes": [5])") << "nodes[0]" << "" << "expected an object, got integer";
    QTest::newRow("node without id") << preset(R"("nodes": [)" + relu + R"(, {"block": "layer.relu"}])") << "nodes[1].id"
                                     << "" << "expected a string id, got nothing";
    QTest::newRow("node id not text") << preset(R"("nodes": [{"id": 7, "block": "layer.relu"}])") << "nodes[0].id" << ""
                                      << "expected a string id, got integer";
    QTest::newRow("node without block") << preset(R"("nodes": [{"id": "a"}])") << "block" << "a"
                                        << "expected a block type id, got nothing";
    QTest::newRow("params not an object") << preset(R"("nodes": [{"id": "a", "block": "layer.relu", "params": [1]}])")
                                          << "params" << "a" << "expected an object, got array";
    QTest::newRow("pos of one number") << preset(R"("nodes": [{"id": "a", "block": "layer.relu", "pos": [1]}])") << "pos"
                                       << "a" << "expected [x, y]";
    QTest::newRow("pos of text") << preset(R"("nodes": [{"id": "a", "block": "layer.relu", "pos": ["1", "2"]}])") << "pos"
                                 << "a" << "expected [x, y]";
    QTest::newRow("pos not a list") << preset(R"("nodes": [{"id": "a", "block": "layer.relu", "pos": 3}])") << "pos" << "a"
                                    << "expected [x, y]";
    QTest::newRow("unknown node field") << preset(R"("nodes": [{"id": "a", "block": "layer.relu", "parms": {}}])") << "parms"
                                        << "a" << "unknown node field \"parms\"";
    QTest::newRow("edges not a list") << preset(R"("nodes": [], "edges": {})") << "edges" << ""
                                      << "expected an array of edges, got object";
    QTest::newRow("edge not an object") << preset(R"("nodes": [], "edges": ["a.out -> b.in"])") << "edges[0]" << ""
                                        << "expected {\"from\": \"node.port\", \"to\": \"node.port\"}";
    QTest::newRow("edge without to") << preset(R"("nodes": [], "edges": [{"from": "a.out"}])") << "edges[0]" << ""
                                     << "expected {\"from\": \"node.port\", \"to\": \"node.port\"}";
    QTest::newRow("edge without port") << preset(R"("nodes": [], "edges": [{"from": "a.out", "to": "b.in"}, {"from": "conv1", "to": "b.in"}])")
                                       << "edges[1].from" << "" << "expected \"node.port\", got \"conv1\"";
    QTest::newRow("edge to without node") << preset(R"("nodes": [], "edges": [{"from": "a.out", "to": ".in"}])")
                                          << "edges[0].to" << "" << "expected \"node.port\", got \".in\"";
    QTest::newRow("training not an object") << preset(R"("nodes": [], "training": [])") << "training" << ""
                                            << "expected an object, got array";
}

void TestPresetFormat::structuralErrors()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, field);
    QFETCH(QString, node);
    QFETCH(QString, message);
    const Result<QJsonObject> object = parseJsonObject(json, QStringLiteral("p.json"));
    QVERIFY2(object.ok(), qPrintable(object.error().toString()));
    const Result<Preset> preset = presetFromJson(object.value(), QStringLiteral("p.json"));
    QVERIFY(!preset.ok());
    QCOMPARE(preset.error().message, message);
    QCOMPARE(preset.error().field, field);
    QCOMPARE(preset.error().node, node);
    QCOMPARE(preset.error().file, QStringLiteral("p.json"));
}

void TestPresetFormat::newerVersionIsRefused()
{
    QJsonObject json = presetToJson(tytest::minimalPreset());
    json.insert(QStringLiteral("version"), 2);
    const Result<Preset> preset = presetFromJson(json, QStringLiteral("new.json"));
    QVERIFY(!preset.ok());
    QCOMPARE(preset.error().field, QStringLiteral("version"));
    QCOMPARE(preset.error().file, QStringLiteral("new.json"));
    QCOMPARE(preset.error().message,
             QStringLiteral("written by a newer Trainyard (preset version 2; this build reads up to 1)"));
    QCOMPARE(preset.error().toString(), QStringLiteral("new.json: field 'version': written by a newer Trainyard "
                                                       "(preset version 2; this build reads up to 1)"));
    json.insert(QStringLiteral("version"), 17);
    QVERIFY(presetFromJson(json, QStringLiteral("new.json")).error().message.contains(QStringLiteral("preset version 17")));
}

void TestPresetFormat::migrateCurrentVersion()
{
    const QJsonObject json = presetToJson(tytest::minimalPreset());
    const Result<QJsonObject> migrated = migratePresetJson(json, QStringLiteral("m.json"));
    QVERIFY2(migrated.ok(), qPrintable(migrated.error().toString()));
    QCOMPARE(migrated.value(), json);
    QCOMPARE(migrated.value().value(QStringLiteral("version")).toInt(), Preset::kFormatVersion);
}

void TestPresetFormat::equalityIgnoresSourcePath()
{
    Preset a = tytest::minimalPreset();
    Preset b = a;
    b.sourcePath = QStringLiteral("/elsewhere/p.json");
    QVERIFY(a == b);
    b.name = QStringLiteral("other");
    QVERIFY(!(a == b));
    b = a;
    b.description = QStringLiteral("d");
    QVERIFY(!(a == b));
    b = a;
    b.training.insert(QStringLiteral("epochs"), 3);
    QVERIFY(!(a == b));
    b = a;
    b.graph.edges.removeFirst();
    QVERIFY(!(a == b));
}

void TestPresetFormat::hashOfEqualPresets()
{
    const Preset a = richPreset();
    Preset b = richPreset();
    b.sourcePath = QStringLiteral("/somewhere/else.json");
    QCOMPARE(presetHash(a), presetHash(b));
    QCOMPARE(presetHash(a).size(), 64);
    QVERIFY(QRegularExpression(QStringLiteral("^[0-9a-f]{64}$")).match(presetHash(a)).hasMatch());

    // The same preset written with its keys in another order hashes the same.
    const QByteArray reordered = R"({"training": {"batch_size": 64, "epochs": 2}, "nodes": [
        {"pos": [0, 0], "params": {"out_features": 10}, "block": "layer.linear", "id": "fc"}],
        "name": "n", "version": 1, "format": "trainyard-preset", "edges": []})";
    const QByteArray ordered = R"({"format": "trainyard-preset", "version": 1, "name": "n", "nodes": [
        {"id": "fc", "block": "layer.linear", "params": {"out_features": 10}, "pos": [0, 0]}], "edges": [],
        "training": {"epochs": 2, "batch_size": 64}})";
    const Result<Preset> x = presetFromJson(parseJsonObject(reordered, QStringLiteral("x")).value(), QStringLiteral("x"));
    const Result<Preset> y = presetFromJson(parseJsonObject(ordered, QStringLiteral("y")).value(), QStringLiteral("y"));
    QVERIFY(x.ok() && y.ok());
    QCOMPARE(presetHash(x.value()), presetHash(y.value()));
}

void TestPresetFormat::hashChangesWithContent()
{
    const Preset base = richPreset();
    const QString hash = presetHash(base);

    Preset param = base;
    param.graph.node(QStringLiteral("fc"))->params.insert(QStringLiteral("out_features"), 5);
    QVERIFY(presetHash(param) != hash);

    Preset training = base;
    training.training.insert(QStringLiteral("epochs"), 4);
    QVERIFY(presetHash(training) != hash);

    Preset edges = base;
    edges.graph.edges.removeLast();
    QVERIFY(presetHash(edges) != hash);

    Preset name = base;
    name.name += QLatin1Char('!');
    QVERIFY(presetHash(name) != hash);

    // Setting a parameter back restores the hash.
    param.graph.node(QStringLiteral("fc"))->params.insert(QStringLiteral("out_features"), 4);
    QCOMPARE(presetHash(param), hash);
}

void TestPresetFormat::hashIsSha256OfCanonicalJson()
{
    Preset p;
    p.name = QStringLiteral("t");
    const QByteArray canonical =
        R"({"edges":[],"format":"trainyard-preset","name":"t","nodes":[],"training":{},"version":1})";
    QCOMPARE(presetHash(p), QString::fromLatin1(QCryptographicHash::hash(canonical, QCryptographicHash::Sha256).toHex()));
}

void TestPresetFormat::flattenParamsIncludesDefaults()
{
    const QMap<QString, QString> flat = flattenParams(tytest::minimalPreset());
    const QMap<QString, QString> expected{
        {QStringLiteral("data.dir"), QStringLiteral("/usr/share/datasets/fashion-mnist")},
        {QStringLiteral("data.keep_classes"), QString()},
        {QStringLiteral("data.val_fraction"), QStringLiteral("0.1")},
        {QStringLiteral("data.val_count"), QStringLiteral("0")},
        {QStringLiteral("data.limit"), QStringLiteral("0")},
        {QStringLiteral("data.test_limit"), QStringLiteral("0")},
        {QStringLiteral("data.split_seed"), QStringLiteral("0")},
        {QStringLiteral("fc.out_features"), QStringLiteral("10")},
        {QStringLiteral("fc.bias"), QStringLiteral("true")},
        {QStringLiteral("loss.label_smoothing"), QStringLiteral("0")},
        {QStringLiteral("loss.weight"), QStringLiteral("1")},
        {QStringLiteral("opt.lr"), QStringLiteral("0.01")},
        {QStringLiteral("opt.momentum"), QStringLiteral("0")},
        {QStringLiteral("opt.nesterov"), QStringLiteral("false")},
        {QStringLiteral("opt.weight_decay"), QStringLiteral("0")},
        {QStringLiteral("training.epochs"), QStringLiteral("2")},
        {QStringLiteral("training.batch_size"), QStringLiteral("64")},
        {QStringLiteral("training.eval_batch_size"), QStringLiteral("1000")},
        {QStringLiteral("training.seed"), QStringLiteral("0")},
        {QStringLiteral("training.device"), QStringLiteral("auto")},
        {QStringLiteral("training.deterministic"), QStringLiteral("false")},
        {QStringLiteral("training.checkpoint_every"), QStringLiteral("1")},
        {QStringLiteral("training.log_every"), QStringLiteral("20")},
        {QStringLiteral("training.early_stop_metric"), QString()},
        {QStringLiteral("training.early_stop_mode"), QStringLiteral("min")},
        {QStringLiteral("training.early_stop_patience"), QStringLiteral("5")},
        {QStringLiteral("training.threads"), QStringLiteral("0")},
        {QStringLiteral("training.dist_backend"), QStringLiteral("auto")},
        {QStringLiteral("training.dist_timeout"), QStringLiteral("300")},
        {QStringLiteral("training.sync_batch_norm"), QStringLiteral("false")},
        {QStringLiteral("training.profile_steps"), QString()},
        {QStringLiteral("training.tensorboard_dir"), QString()},
        {QStringLiteral("training.mixed_precision"), QStringLiteral("false")},
        {QStringLiteral("training.streaming"), QStringLiteral("auto")},
        {QStringLiteral("training.clip_grad_value"), QStringLiteral("0")},
        {QStringLiteral("training.clip_grad_norm"), QStringLiteral("0")},
        {QStringLiteral("training.accumulate_steps"), QStringLiteral("1")},
        {QStringLiteral("training.checkpoint_keep"), QStringLiteral("0")},
        {QStringLiteral("training.best_metric"), QString()},
        {QStringLiteral("training.best_mode"), QStringLiteral("auto")},
    };
    QCOMPARE(flat, expected);

    // Nodes of unknown blocks contribute nothing; they are reported by validation.
    Preset odd = tytest::minimalPreset();
    odd.graph.nodes << node(QStringLiteral("x"), QStringLiteral("layer.bogus"), {{QStringLiteral("k"), 1}});
    QCOMPARE(flattenParams(odd), expected);
}

void TestPresetFormat::flattenParamsOfBundledMlp()
{
    const Result<Preset> mlp = loadPreset(tytest::presetsDir() + QStringLiteral("/fashion-mnist-mlp.trainyard.json"));
    QVERIFY2(mlp.ok(), qPrintable(mlp.error().toString()));
    const QMap<QString, QString> flat = flattenParams(mlp.value());
    QCOMPARE(flat.value(QStringLiteral("fc1.bias")), QStringLiteral("true"));
    QCOMPARE(flat.value(QStringLiteral("fc1.out_features")), QStringLiteral("256"));
    QCOMPARE(flat.value(QStringLiteral("norm.mean")), QStringLiteral("0.286"));
    QCOMPARE(flat.value(QStringLiteral("training.epochs")), QStringLiteral("15"));
    QCOMPARE(flat.value(QStringLiteral("training.deterministic")), QStringLiteral("false"));
    QVERIFY(flat.contains(QStringLiteral("training.threads")));
    for (auto it = flat.constBegin(); it != flat.constEnd(); ++it)
        QVERIFY2(!it.key().startsWith(QStringLiteral("relu1.")), "a block without parameters flattens to nothing");
}

void TestPresetFormat::baseDir()
{
    Preset p;
    p.sourcePath = QStringLiteral("/srv/presets/wine.trainyard.json");
    QCOMPARE(p.baseDir(), QStringLiteral("/srv/presets"));
    p.sourcePath.clear();
    QCOMPARE(p.baseDir(), QDir::currentPath());
}

// A copy of the preset that lives elsewhere (the app's worker snapshot) reads and writes the same files: relative
// data paths and training.tensorboard_dir resolve against the preset's folder; absolute and empty ones stay.
void TestPresetFormat::pathsMadeAbsolute()
{
    Preset p;
    p.sourcePath = QStringLiteral("/srv/presets/wine.trainyard.json");
    p.graph = tytest::graph({node(QStringLiteral("data"), QStringLiteral("dataset.csv"), {{QStringLiteral("path"), QStringLiteral("../data/wine.csv")}}),
                             node(QStringLiteral("other"), QStringLiteral("dataset.csv"), {{QStringLiteral("path"), QStringLiteral("/abs/x.csv")}})},
                            {});
    p.training = QJsonObject{{QStringLiteral("tensorboard_dir"), QStringLiteral("logs/board")}, {QStringLiteral("epochs"), 2}};
    makePathsAbsolute(&p);
    QCOMPARE(p.graph.node(QStringLiteral("data"))->params.value(QStringLiteral("path")).toString(), QStringLiteral("/srv/data/wine.csv"));
    QCOMPARE(p.graph.node(QStringLiteral("other"))->params.value(QStringLiteral("path")).toString(), QStringLiteral("/abs/x.csv"));
    QCOMPARE(p.training.value(QStringLiteral("tensorboard_dir")).toString(), QStringLiteral("/srv/presets/logs/board"));
    QCOMPARE(p.training.value(QStringLiteral("epochs")).toInt(), 2);
    p.training.insert(QStringLiteral("tensorboard_dir"), QString());
    makePathsAbsolute(&p);
    QCOMPARE(p.training.value(QStringLiteral("tensorboard_dir")).toString(), QString());
}

} // namespace

TY_TEST_CLASS(TestPresetFormat)

#include "test_preset_format.moc"
