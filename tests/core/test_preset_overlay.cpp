// core/presets/preset_overlay: JSON Merge Patch (RFC 7386), its additions for the node and edge lists, and
// presets loaded with overlay files (errors naming the overlay at fault; the merged preset loaded as a whole).

#include "test_suite.h"
#include "core_test_support.h"

#include "graph_validation.h"
#include "json_io.h"
#include "preset_format.h"
#include "preset_overlay.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QtTest>

using namespace ty;

namespace {

QJsonValue json(const char *text)
{
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray("[") + text + "]");
    return doc.array().at(0);
}

QString mlpPath()
{
    return QStringLiteral(TRAINYARD_SOURCE_DIR "/presets/fashion-mnist-mlp.trainyard.json");
}

QJsonObject mlpJson()
{
    return readJsonObjectFile(mlpPath()).value();
}

QStringList idsOf(const QJsonObject &preset)
{
    QStringList ids;
    for (const QJsonValue &node : preset.value(QStringLiteral("nodes")).toArray())
        ids << node.toObject().value(QStringLiteral("id")).toString();
    return ids;
}

QString sourceOf(const QJsonObject &preset, const QString &sink)
{
    for (const QJsonValue &edge : preset.value(QStringLiteral("edges")).toArray())
        if (edge.toObject().value(QStringLiteral("to")).toString() == sink)
            return edge.toObject().value(QStringLiteral("from")).toString();
    return QString();
}

} // namespace

class TestPresetOverlay : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void mergePatchFollowsRfc7386_data()
    {
        QTest::addColumn<QString>("target");
        QTest::addColumn<QString>("patch");
        QTest::addColumn<QString>("result");
        QTest::newRow("member replaced") << R"({"lr":0.1,"m":0.9})" << R"({"lr":0.01})" << R"({"lr":0.01,"m":0.9})";
        QTest::newRow("member added") << R"({"lr":0.1})" << R"({"wd":0.5})" << R"({"lr":0.1,"wd":0.5})";
        QTest::newRow("null removes") << R"({"lr":0.1,"m":0.9})" << R"({"m":null})" << R"({"lr":0.1})";
        QTest::newRow("nested objects merge") << R"({"t":{"a":1,"b":2}})" << R"({"t":{"b":3,"c":null}})" << R"({"t":{"a":1,"b":3}})";
        QTest::newRow("arrays replace") << R"({"mean":[0.1,0.2]})" << R"({"mean":[0.5]})" << R"({"mean":[0.5]})";
        QTest::newRow("object over a value") << R"({"t":7})" << R"({"t":{"a":null,"b":1}})" << R"({"t":{"b":1}})";
        QTest::newRow("non-object patch replaces") << R"({"a":1})" << R"([1,2])" << R"([1,2])";
        QTest::newRow("empty patch changes nothing") << R"({"a":{"b":1}})" << R"({})" << R"({"a":{"b":1}})";
    }

    void mergePatchFollowsRfc7386()
    {
        QFETCH(QString, target);
        QFETCH(QString, patch);
        QFETCH(QString, result);
        QCOMPARE(mergePatch(json(target.toUtf8()), json(patch.toUtf8())), json(result.toUtf8()));
    }

    void nodesAndEdgesByKey()
    {
        const QJsonObject base = mlpJson();
        const QJsonObject overlay = json(R"({
            "name": "MLP, narrow, no relu3",
            "training": {"epochs": 2},
            "nodes": {"fc1": {"params": {"out_features": 64}}, "relu3": null,
                      "drop": {"block": "layer.dropout", "params": {"p": 0.2}}},
            "edges": {"fc4.in": "drop.out", "drop.in": "fc3.out"}})").toObject();
        const Result<QJsonObject> merged = applyPresetOverlay(base, overlay, QStringLiteral("narrow.json"));
        QVERIFY2(merged.ok(), qPrintable(merged.ok() ? QString() : merged.error().toString()));
        const QJsonObject m = merged.value();
        QVERIFY(!idsOf(m).contains(QStringLiteral("relu3")));
        QCOMPARE(idsOf(m).last(), QStringLiteral("drop"));             // added at the end
        QCOMPARE(idsOf(m).size(), idsOf(base).size());                 // one gone, one added
        QCOMPARE(sourceOf(m, QStringLiteral("fc4.in")), QStringLiteral("drop.out"));
        QCOMPARE(sourceOf(m, QStringLiteral("drop.in")), QStringLiteral("fc3.out"));
        for (const QJsonValue &edge : m.value(QStringLiteral("edges")).toArray())  // relu3's edges went with it
            QVERIFY(!edge.toObject().value(QStringLiteral("from")).toString().startsWith(QStringLiteral("relu3.")));
        QCOMPARE(m.value(QStringLiteral("training")).toObject().value(QStringLiteral("epochs")).toInt(), 2);
        QCOMPARE(m.value(QStringLiteral("training")).toObject().value(QStringLiteral("batch_size")).toInt(), 128);  // kept
        const Result<Preset> preset = presetFromJson(m, mlpPath());
        QVERIFY(preset.ok());
        QCOMPARE(preset.value().graph.node(QStringLiteral("fc1"))->params.value(QStringLiteral("out_features")).toInt(), 64);
        QVERIFY2(!hasErrors(validateGraph(preset.value().graph)), qPrintable(tytest::dump(validateGraph(preset.value().graph))));
        // An edge patched to null disconnects the input; given as an array the list is replaced (RFC 7386).
        const QJsonObject cut = applyPresetOverlay(base, json(R"({"edges": {"fc2.in": null}})").toObject(), {}).value();
        QVERIFY(sourceOf(cut, QStringLiteral("fc2.in")).isEmpty());
        QCOMPARE(cut.value(QStringLiteral("edges")).toArray().size(), base.value(QStringLiteral("edges")).toArray().size() - 1);
        const QJsonObject replaced = applyPresetOverlay(base, json(R"({"edges": [{"from": "data.images", "to": "norm.in"}]})").toObject(), {}).value();
        QCOMPARE(replaced.value(QStringLiteral("edges")).toArray().size(), 1);
    }

    void badOverlaysNameTheFileAndMember_data()
    {
        QTest::addColumn<QString>("overlay");
        QTest::addColumn<QString>("field");
        QTest::newRow("node patch not an object") << R"({"nodes": {"fc1": 5}})" << "nodes.fc1";
        QTest::newRow("new node without a block") << R"({"nodes": {"fc9": {"params": {}}}})" << "nodes.fc9";
        QTest::newRow("edge source not text") << R"({"edges": {"fc2.in": 3}})" << "edges.fc2.in";
    }

    void badOverlaysNameTheFileAndMember()
    {
        QFETCH(QString, overlay);
        QFETCH(QString, field);
        const Result<QJsonObject> merged = applyPresetOverlay(mlpJson(), json(overlay.toUtf8()).toObject(), QStringLiteral("o.json"));
        QVERIFY(!merged.ok());
        QCOMPARE(merged.error().file, QStringLiteral("o.json"));
        QCOMPARE(merged.error().field, field);
    }

    void loadsWithOverlayFilesInOrder()
    {
        QTemporaryDir dir;
        const auto write = [&](const QString &name, const QByteArray &text) {
            QFile f(dir.filePath(name));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(text);
        };
        write(QStringLiteral("small.json"), R"({"training": {"epochs": 1, "batch_size": 64}})");
        write(QStringLiteral("big-batch.json"), R"({"training": {"batch_size": 512}})");
        write(QStringLiteral("broken.json"), R"({"training": )");
        write(QStringLiteral("bad-value.json"), R"({"edges": [{"from": "fc1", "to": "relu1.in"}]})");
        const QString base = mlpPath();
        QStringList sha256;
        const Result<Preset> both = loadPresetWithOverlays(base, {dir.filePath(QStringLiteral("small.json")),
                                                                  dir.filePath(QStringLiteral("big-batch.json"))}, &sha256);
        QVERIFY2(both.ok(), qPrintable(both.ok() ? QString() : both.error().toString()));
        // Each overlay's sha256 is that of the bytes merged, in order.
        QCOMPARE(sha256, QStringList({QString::fromLatin1(QCryptographicHash::hash(R"({"training": {"epochs": 1, "batch_size": 64}})",
                                                                                   QCryptographicHash::Sha256).toHex()),
                                      QString::fromLatin1(QCryptographicHash::hash(R"({"training": {"batch_size": 512}})",
                                                                                   QCryptographicHash::Sha256).toHex())}));
        QCOMPARE(both.value().training.value(QStringLiteral("epochs")).toInt(), 1);
        QCOMPARE(both.value().training.value(QStringLiteral("batch_size")).toInt(), 512);  // the later one wins
        QCOMPARE(loadPresetWithOverlays(base, {}).value().training, loadPreset(base).value().training);

        const Result<Preset> broken = loadPresetWithOverlays(base, {dir.filePath(QStringLiteral("broken.json"))});
        QVERIFY(!broken.ok());
        QCOMPARE(broken.error().file, dir.filePath(QStringLiteral("broken.json")));
        QVERIFY(broken.error().line > 0);
        const Result<Preset> missing = loadPresetWithOverlays(base, {dir.filePath(QStringLiteral("none.json"))});
        QVERIFY(!missing.ok());
        QCOMPARE(missing.error().file, dir.filePath(QStringLiteral("none.json")));
        // A problem only the merged preset has says which overlays made it.
        const Result<Preset> badValue = loadPresetWithOverlays(base, {dir.filePath(QStringLiteral("bad-value.json"))});
        QVERIFY(!badValue.ok());
        QVERIFY2(badValue.error().message.contains(QStringLiteral("merged with bad-value.json")),
                 qPrintable(badValue.error().toString()));
    }
};

TY_TEST_CLASS(TestPresetOverlay)

#include "test_preset_overlay.moc"
