#include "preset_format.h"

#include "composite_blocks.h"
#include "preset_sections.h"
#include "json_io.h"
#include "param_values.h"

#include <QJsonArray>

namespace ty {

namespace {

const QString kFormat = QStringLiteral("trainyard-preset");

Error fieldError(const QString &file, const QString &field, const QString &message, const QString &node = {})
{
    Error e;
    e.file = file;
    e.field = field;
    e.node = node;
    e.message = message;
    return e;
}

QString typeProblem(const QJsonValue &value, const char *expected)
{
    return QStringLiteral("expected %1, got %2").arg(QString::fromLatin1(expected), jsonTypeName(value));
}

Result<Node> nodeFromJson(const QJsonValue &value, int index, const QString &file, const QString &prefix)
{
    const QString where = prefix + QStringLiteral("nodes[%1]").arg(index);
    if (!value.isObject())
        return fieldError(file, where, typeProblem(value, "an object"));
    const QJsonObject o = value.toObject();
    Node node;
    if (!o.value(QStringLiteral("id")).isString())
        return fieldError(file, where + QStringLiteral(".id"), typeProblem(o.value(QStringLiteral("id")), "a string id"));
    node.id = o.value(QStringLiteral("id")).toString();
    if (!o.value(QStringLiteral("block")).isString())
        return fieldError(file, QStringLiteral("block"), typeProblem(o.value(QStringLiteral("block")), "a block type id"), node.id);
    node.block = o.value(QStringLiteral("block")).toString();
    const QJsonValue params = o.value(QStringLiteral("params"));
    if (!params.isUndefined() && !params.isObject())
        return fieldError(file, QStringLiteral("params"), typeProblem(params, "an object"), node.id);
    node.params = params.toObject();
    const QJsonValue pos = o.value(QStringLiteral("pos"));
    if (!pos.isUndefined()) {
        const QJsonArray xy = pos.toArray();
        if (!pos.isArray() || xy.size() != 2 || !xy.at(0).isDouble() || !xy.at(1).isDouble())
            return fieldError(file, QStringLiteral("pos"), QStringLiteral("expected [x, y]"), node.id);
        node.pos = QPointF(xy.at(0).toDouble(), xy.at(1).toDouble());
    }
    const QJsonValue repeat = o.value(QStringLiteral("repeat"));
    if (!repeat.isUndefined()) {
        if (jsonTypeName(repeat) != QStringLiteral("integer") || repeat.toInt() < 1 || repeat.toInt() > kMaxRepeat)
            return fieldError(file, QStringLiteral("repeat"),
                              QStringLiteral("expected an integer from 1 to %1, got %2").arg(kMaxRepeat).arg(paramValueText(repeat)),
                              node.id);
        node.repeat = repeat.toInt();
    }
    for (auto it = o.constBegin(); it != o.constEnd(); ++it)
        if (!QStringList{QStringLiteral("id"), QStringLiteral("block"), QStringLiteral("params"), QStringLiteral("pos"),
                         QStringLiteral("repeat")}
                 .contains(it.key()))
            return fieldError(file, it.key(), QStringLiteral("unknown node field \"%1\"").arg(it.key()), node.id);
    return node;
}

Result<Edge> edgeFromJson(const QJsonValue &value, int index, const QString &file, const QString &prefix)
{
    const QString where = prefix + QStringLiteral("edges[%1]").arg(index);
    const QJsonObject o = value.toObject();
    if (!value.isObject() || !o.value(QStringLiteral("from")).isString() || !o.value(QStringLiteral("to")).isString())
        return fieldError(file, where, QStringLiteral("expected {\"from\": \"node.port\", \"to\": \"node.port\"}"));
    Edge edge;
    if (!Endpoint::parse(o.value(QStringLiteral("from")).toString(), &edge.from))
        return fieldError(file, where + QStringLiteral(".from"),
                          QStringLiteral("expected \"node.port\", got \"%1\"").arg(o.value(QStringLiteral("from")).toString()));
    if (!Endpoint::parse(o.value(QStringLiteral("to")).toString(), &edge.to))
        return fieldError(file, where + QStringLiteral(".to"),
                          QStringLiteral("expected \"node.port\", got \"%1\"").arg(o.value(QStringLiteral("to")).toString()));
    return edge;
}

} // namespace

Result<PipelineGraph> graphFromJson(const QJsonObject &json, const QString &fileName, const QString &fieldPrefix)
{
    PipelineGraph graph;
    const QJsonValue nodes = json.value(QStringLiteral("nodes"));
    if (!nodes.isArray())
        return fieldError(fileName, fieldPrefix + QStringLiteral("nodes"), typeProblem(nodes, "an array of nodes"));
    const QJsonArray nodeArray = nodes.toArray();
    for (int i = 0; i < nodeArray.size(); ++i) {
        Result<Node> node = nodeFromJson(nodeArray.at(i), i, fileName, fieldPrefix);
        if (!node)
            return node.error();
        graph.nodes.append(node.value());
    }
    const QJsonValue edges = json.value(QStringLiteral("edges"));
    if (!edges.isUndefined() && !edges.isArray())
        return fieldError(fileName, fieldPrefix + QStringLiteral("edges"), typeProblem(edges, "an array of edges"));
    const QJsonArray edgeArray = edges.toArray();
    for (int i = 0; i < edgeArray.size(); ++i) {
        Result<Edge> edge = edgeFromJson(edgeArray.at(i), i, fileName, fieldPrefix);
        if (!edge)
            return edge.error();
        graph.edges.append(edge.value());
    }
    return graph;
}

QJsonArray nodesToJson(const PipelineGraph &graph)
{
    QJsonArray nodes;
    for (const Node &node : graph.nodes) {
        QJsonObject o{{QStringLiteral("id"), node.id}, {QStringLiteral("block"), node.block}};
        if (!node.params.isEmpty())
            o.insert(QStringLiteral("params"), node.params);
        if (node.repeat != 1)
            o.insert(QStringLiteral("repeat"), node.repeat);
        o.insert(QStringLiteral("pos"), QJsonArray{node.pos.x(), node.pos.y()});
        nodes.append(o);
    }
    return nodes;
}

QJsonArray edgesToJson(const PipelineGraph &graph)
{
    QJsonArray edges;
    for (const Edge &edge : graph.edges)
        edges.append(QJsonObject{{QStringLiteral("from"), edge.from.toString()}, {QStringLiteral("to"), edge.to.toString()}});
    return edges;
}

Result<QJsonObject> migratePresetJson(QJsonObject json, const QString &fileName)
{
    if (json.value(QStringLiteral("format")).toString() != kFormat)
        return fieldError(fileName, QStringLiteral("format"),
                          QStringLiteral("not a Trainyard preset (expected \"format\": \"%1\")").arg(kFormat));
    const QJsonValue versionValue = json.value(QStringLiteral("version"));
    if (!versionValue.isDouble() || jsonTypeName(versionValue) != QStringLiteral("integer") || versionValue.toInt() < 1)
        return fieldError(fileName, QStringLiteral("version"), QStringLiteral("expected a positive integer version"));
    const int version = versionValue.toInt();
    if (version > Preset::kFormatVersion)
        return fieldError(fileName, QStringLiteral("version"),
                          QStringLiteral("written by a newer Trainyard (preset version %1; this build reads up to %2)")
                              .arg(version).arg(Preset::kFormatVersion));
    // Migration steps go here, one per version: if (version == 1) { ...; version = 2; }
    json.insert(QStringLiteral("version"), Preset::kFormatVersion);
    return json;
}

Result<Preset> presetFromJson(const QJsonObject &input, const QString &fileName)
{
    Result<QJsonObject> migrated = migratePresetJson(input, fileName);
    if (!migrated)
        return migrated.error();
    const QJsonObject &json = migrated.value();

    static const QStringList known{QStringLiteral("format"), QStringLiteral("version"), QStringLiteral("name"),
                                   QStringLiteral("description"), QStringLiteral("hypothesis"), QStringLiteral("nodes"),
                                   QStringLiteral("edges"), QStringLiteral("training"), QStringLiteral("blocks")};
    for (auto it = json.constBegin(); it != json.constEnd(); ++it)
        if (!known.contains(it.key()))
            return fieldError(fileName, it.key(), QStringLiteral("unknown top-level field \"%1\"").arg(it.key()));

    Preset preset;
    preset.sourcePath = fileName;
    for (const char *key : {"name", "description", "hypothesis"}) {
        const QJsonValue v = json.value(QString::fromLatin1(key));
        if (!v.isUndefined() && !v.isString())
            return fieldError(fileName, QString::fromLatin1(key), typeProblem(v, "a string"));
    }
    preset.name = json.value(QStringLiteral("name")).toString();
    preset.description = json.value(QStringLiteral("description")).toString();
    preset.hypothesis = json.value(QStringLiteral("hypothesis")).toString();

    Result<PipelineGraph> graph = graphFromJson(json, fileName);
    if (!graph)
        return graph.error();
    preset.graph = graph.value();
    const QJsonValue blocks = json.value(QStringLiteral("blocks"));
    if (!blocks.isUndefined() && !blocks.isObject())
        return fieldError(fileName, QStringLiteral("blocks"), typeProblem(blocks, "an object of block definitions"));
    preset.blocks = blocks.toObject();
    for (auto it = preset.blocks.constBegin(); it != preset.blocks.constEnd(); ++it)
        if (!it.value().isObject())
            return fieldError(fileName, QStringLiteral("blocks.") + it.key(), typeProblem(it.value(), "an object"));
    // Both sections are parsed here, once: the preset and its copies carry the parse (preset_sections.h).
    if (const auto parsed = blocksSection(preset); !parsed->problems.isEmpty())
        return parsed->problems.first();
    const QJsonValue training = json.value(QStringLiteral("training"));
    if (!training.isUndefined() && !training.isObject())
        return fieldError(fileName, QStringLiteral("training"), typeProblem(training, "an object"));
    preset.training = training.toObject();
    trainingSection(preset);
    return preset;
}

Result<Preset> loadPreset(const QString &path)
{
    Result<QJsonObject> json = readJsonObjectFile(path);
    if (!json)
        return json.error();
    return presetFromJson(json.value(), path);
}

QJsonObject presetToJson(const Preset &preset)
{
    const QJsonArray nodes = nodesToJson(preset.graph);
    const QJsonArray edges = edgesToJson(preset.graph);
    QJsonObject json{{QStringLiteral("format"), kFormat},
                     {QStringLiteral("version"), Preset::kFormatVersion},
                     {QStringLiteral("name"), preset.name},
                     {QStringLiteral("nodes"), nodes},
                     {QStringLiteral("edges"), edges},
                     {QStringLiteral("training"), preset.training}};
    if (!preset.description.isEmpty())
        json.insert(QStringLiteral("description"), preset.description);
    if (!preset.hypothesis.isEmpty())
        json.insert(QStringLiteral("hypothesis"), preset.hypothesis);
    if (!preset.blocks.isEmpty())
        json.insert(QStringLiteral("blocks"), preset.blocks);
    return json;
}

Status savePreset(const Preset &preset, const QString &path)
{
    // People read and diff presets: the header first, then the settings, the nodes and the edges.
    static const QStringList order = {
        QStringLiteral("format"), QStringLiteral("version"), QStringLiteral("name"),   QStringLiteral("description"),
        QStringLiteral("hypothesis"), QStringLiteral("training"), QStringLiteral("blocks"), QStringLiteral("inputs"), QStringLiteral("outputs"),
        QStringLiteral("nodes"), QStringLiteral("edges"), QStringLiteral("id"), QStringLiteral("block"),
        QStringLiteral("params"), QStringLiteral("repeat"), QStringLiteral("pos"), QStringLiteral("from"),
        QStringLiteral("to")};
    return writeJsonObjectFile(path, presetToJson(preset), order);
}

} // namespace ty
