#include "engine_fixtures.h"

#include "preset_format.h"

#include <QtTest>

namespace ty::test {

Preset makePreset(const QJsonArray &nodes, const QStringList &edges, const QJsonObject &training)
{
    QJsonArray edgeArray;
    for (const QString &edge : edges) {
        const QStringList parts = edge.split(QStringLiteral(" -> "));
        edgeArray.append(QJsonObject{{QStringLiteral("from"), parts.value(0)}, {QStringLiteral("to"), parts.value(1)}});
    }
    const QJsonObject json{{QStringLiteral("format"), QStringLiteral("trainyard-preset")}, {QStringLiteral("version"), 1},
                           {QStringLiteral("name"), QStringLiteral("test")}, {QStringLiteral("nodes"), nodes},
                           {QStringLiteral("edges"), edgeArray}, {QStringLiteral("training"), training}};
    Result<Preset> preset = presetFromJson(json, QStringLiteral("test.trainyard.json"));
    if (!preset)
        qFatal("fixture preset does not load: %s", qPrintable(preset.error().toString()));
    return preset.value();
}

static QJsonObject node(const char *id, const char *block, const QJsonObject &params = {})
{
    return QJsonObject{{QStringLiteral("id"), QString::fromLatin1(id)}, {QStringLiteral("block"), QString::fromLatin1(block)},
                       {QStringLiteral("params"), params}};
}

Preset classifierPreset(const QString &kind, const QString &optimizer, double lr, int epochs)
{
    const bool images = kind == QStringLiteral("images");
    QJsonArray nodes{
        node("data", "dataset.synthetic", {{QStringLiteral("kind"), kind}, {QStringLiteral("samples"), 1200},
                                           {QStringLiteral("test_samples"), 400}, {QStringLiteral("features"), images ? 12 : 8},
                                           {QStringLiteral("classes"), 4}, {QStringLiteral("noise"), images ? 0.3 : 1.0}}),
        node("flatten", "layer.flatten"),
        node("fc1", "layer.linear", {{QStringLiteral("out_features"), 32}}),
        node("act", "layer.relu"),
        node("fc_out", "layer.linear", {{QStringLiteral("out_features"), 4}}),
        node("loss", "loss.cross_entropy"),
        node("accuracy", "metric.accuracy"),
        node("opt", optimizer.toLatin1().constData(), {{QStringLiteral("lr"), lr}})};
    return makePreset(nodes,
                      {QStringLiteral("data.features -> flatten.in"), QStringLiteral("flatten.out -> fc1.in"),
                       QStringLiteral("fc1.out -> act.in"), QStringLiteral("act.out -> fc_out.in"),
                       QStringLiteral("fc_out.out -> loss.input"), QStringLiteral("data.target -> loss.target"),
                       QStringLiteral("fc_out.out -> accuracy.input"), QStringLiteral("data.target -> accuracy.target"),
                       QStringLiteral("loss.loss -> opt.loss")},
                      {{QStringLiteral("epochs"), epochs}, {QStringLiteral("batch_size"), 32}, {QStringLiteral("device"), QStringLiteral("cpu")},
                       {QStringLiteral("log_every"), 5}});
}

Preset regressionPreset(const QString &loss, double lr, int epochs)
{
    QJsonArray nodes{
        node("data", "dataset.synthetic", {{QStringLiteral("kind"), QStringLiteral("regression")}, {QStringLiteral("samples"), 1000},
                                           {QStringLiteral("test_samples"), 300}, {QStringLiteral("features"), 6},
                                           {QStringLiteral("noise"), 0.05}}),
        node("fc", "layer.linear", {{QStringLiteral("out_features"), 1}}),
        node("loss", loss.toLatin1().constData()),
        node("mae", "metric.mae"),
        node("opt", "optimizer.adam", {{QStringLiteral("lr"), lr}})};
    return makePreset(nodes,
                      {QStringLiteral("data.features -> fc.in"), QStringLiteral("fc.out -> loss.input"),
                       QStringLiteral("data.target -> loss.target"), QStringLiteral("fc.out -> mae.input"),
                       QStringLiteral("data.target -> mae.target"), QStringLiteral("loss.loss -> opt.loss")},
                      {{QStringLiteral("epochs"), epochs}, {QStringLiteral("batch_size"), 32}, {QStringLiteral("device"), QStringLiteral("cpu")}});
}

Preset bundledPreset(const QString &name)
{
    const QString path = QStringLiteral(TRAINYARD_SOURCE_DIR "/presets/") + name + QStringLiteral(".trainyard.json");
    Result<Preset> preset = loadPreset(path);
    if (!preset)
        qFatal("bundled preset does not load: %s", qPrintable(preset.error().toString()));
    return preset.value();
}

bool useSmallImageFolder(Preset &preset, const QString &outDir, int limit)
{
    const QString python = QStandardPaths::findExecutable(QStringLiteral("python3"));
    if (python.isEmpty() || !QDir(QStringLiteral("/usr/share/datasets/fashion-mnist")).exists())
        return false;
    QProcess script;
    script.start(python, {QStringLiteral(TRAINYARD_SOURCE_DIR "/presets/fashion_mnist_to_png.py"), outDir,
                          QStringLiteral("--limit"), QString::number(limit)});
    if (!script.waitForFinished(300000) || script.exitStatus() != QProcess::NormalExit || script.exitCode() != 0) {
        qWarning("fashion_mnist_to_png.py failed: %s", script.readAllStandardError().constData());
        return false;
    }
    preset.graph.node(QStringLiteral("data"))->params.insert(QStringLiteral("dir"), outDir);
    return true;
}

namespace {

QList<double> valuesNamed(const QList<MetricSample> &samples, const QString &name)
{
    QList<double> out;
    for (const MetricSample &s : samples)
        if (s.name == name)
            out << s.value;
    return out;
}

} // namespace

QList<double> RecordingObserver::values(const QString &name) const
{
    return valuesNamed(metrics, name);
}

QList<double> RecordingObserver::speedValues(const QString &name) const
{
    return valuesNamed(speed, name);
}

} // namespace ty::test
