#include "composite_blocks.h"

#include "json_io.h"
#include "param_values.h"
#include "preset_format.h"
#include "preset_sections.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QStandardPaths>

#include <utility>

namespace ty {

namespace {

const QString kLibraryFormat = QStringLiteral("trainyard-block");
constexpr int kLibraryVersion = 1;

Error definitionError(const QString &file, const QString &block, const QString &field, const QString &message)
{
    Error e;
    e.file = file;
    e.field = QStringLiteral("blocks.%1%2").arg(block, field.isEmpty() ? QString() : QLatin1Char('.') + field);
    e.message = message;
    return e;
}

Result<ParamType> paramTypeFromName(const QString &name)
{
    for (ParamType type : {ParamType::Int, ParamType::Float, ParamType::Bool, ParamType::Choice, ParamType::String,
                           ParamType::FloatList})
        if (paramTypeName(type) == name || (type == ParamType::FloatList && name == QStringLiteral("float_list")))
            return type;
    return Error(QStringLiteral("unknown type \"%1\" (int, float, bool, choice, string, float_list)").arg(name));
}

Result<ExposedParam> exposedFromJson(const QString &name, const QJsonValue &value, const PipelineGraph &inner)
{
    if (!isValidNodeId(name))
        return Error(QStringLiteral("a parameter name is letters, digits and underscores, got \"%1\"").arg(name));
    if (!value.isObject())
        return Error(QStringLiteral("expected {\"type\": ..., \"default\": ..., \"bind\": [\"NODE.PARAM\", ...]}"));
    const QJsonObject o = value.toObject();
    static const QStringList known{QStringLiteral("type"), QStringLiteral("default"), QStringLiteral("min"),
                                   QStringLiteral("max"), QStringLiteral("choices"), QStringLiteral("doc"),
                                   QStringLiteral("bind")};
    for (auto it = o.constBegin(); it != o.constEnd(); ++it)
        if (!known.contains(it.key()))
            return Error(QStringLiteral("unknown field \"%1\" (known: %2)").arg(it.key(), known.join(QStringLiteral(", "))));
    const Result<ParamType> type = paramTypeFromName(o.value(QStringLiteral("type")).toString());
    if (!type)
        return type.error();
    ExposedParam out;
    out.spec.name = name;
    out.spec.type = type.value();
    out.spec.doc = o.value(QStringLiteral("doc")).toString();
    for (const auto &[key, bound] : {std::pair{QStringLiteral("min"), &out.spec.minimum}, std::pair{QStringLiteral("max"), &out.spec.maximum}}) {
        const QJsonValue v = o.value(key);
        if (v.isUndefined())
            continue;
        if (!v.isDouble())
            return Error(QStringLiteral("\"%1\" must be a number").arg(key));
        *bound = v.toDouble();
    }
    for (const QJsonValue &choice : o.value(QStringLiteral("choices")).toArray())
        out.spec.choices << choice.toString();
    if (out.spec.type == ParamType::Choice && out.spec.choices.isEmpty())
        return Error(QStringLiteral("a choice parameter needs \"choices\""));
    out.spec.defaultValue = o.value(QStringLiteral("default"));
    const QString problem = checkParamValue(out.spec, out.spec.defaultValue);
    if (!problem.isEmpty())
        return Error(QStringLiteral("default: %1").arg(problem));
    const QJsonValue bind = o.value(QStringLiteral("bind"));
    const QJsonArray binds = bind.isString() ? QJsonArray{bind} : bind.toArray();
    if (binds.isEmpty())
        return Error(QStringLiteral("\"bind\" must name one or more inner parameters, as \"NODE.PARAM\""));
    for (const QJsonValue &b : binds) {
        Endpoint target;
        if (!b.isString() || !Endpoint::parse(b.toString(), &target) || !inner.node(target.node))
            return Error(QStringLiteral("bind \"%1\" names no parameter of an inner node (as \"NODE.PARAM\")")
                             .arg(b.isString() ? b.toString() : jsonTypeName(b)));
        out.bind << b.toString();
    }
    return out;
}

Result<Endpoint> innerEndpoint(const QJsonValue &value, const PipelineGraph &inner)
{
    Endpoint out;
    if (!value.isString() || !Endpoint::parse(value.toString(), &out))
        return Error(QStringLiteral("expected \"NODE.PORT\" of an inner node, got %1").arg(paramValueText(value)));
    if (!inner.node(out.node))
        return Error(QStringLiteral("\"%1\" names no inner node").arg(value.toString()));
    return out;
}

} // namespace

const ExposedParam *CompositeDefinition::param(const QString &paramName) const
{
    for (const ExposedParam &p : params)
        if (p.spec.name == paramName)
            return &p;
    return nullptr;
}

Result<CompositeDefinition> compositeFromJson(const QString &name, const QJsonObject &json, const QString &file)
{
    auto fail = [&](const QString &field, const QString &message) { return definitionError(file, name, field, message); };
    if (!isValidNodeId(name))
        return fail({}, QStringLiteral("a block name is letters, digits and underscores, starting with a letter"));
    static const QStringList known{QStringLiteral("description"), QStringLiteral("inputs"), QStringLiteral("outputs"),
                                   QStringLiteral("params"), QStringLiteral("nodes"), QStringLiteral("edges")};
    for (auto it = json.constBegin(); it != json.constEnd(); ++it)
        if (!known.contains(it.key()))
            return fail(it.key(), QStringLiteral("unknown field \"%1\" (known: %2)").arg(it.key(), known.join(QStringLiteral(", "))));
    CompositeDefinition out;
    out.name = name;
    out.description = json.value(QStringLiteral("description")).toString();
    Result<PipelineGraph> graph = graphFromJson(json, file, QStringLiteral("blocks.%1.").arg(name));
    if (!graph)
        return graph.error();
    out.graph = graph.value();
    if (out.graph.nodes.isEmpty())
        return fail(QStringLiteral("nodes"), QStringLiteral("a composite block needs at least one node"));
    for (const Node &node : out.graph.nodes)
        if (!isValidNodeId(node.id))
            return fail(QStringLiteral("nodes"), QStringLiteral("invalid inner node id \"%1\"").arg(node.id));

    const QJsonValue inputs = json.value(QStringLiteral("inputs"));
    if (!inputs.isObject() || inputs.toObject().isEmpty())
        return fail(QStringLiteral("inputs"), QStringLiteral("expected {\"PORT\": \"NODE.PORT\" or [\"NODE.PORT\", ...]}, at least one"));
    const QJsonObject inputObject = inputs.toObject();
    for (auto it = inputObject.constBegin(); it != inputObject.constEnd(); ++it) {
        const QJsonArray targets = it.value().isArray() ? it.value().toArray() : QJsonArray{it.value()};
        if (targets.isEmpty())
            return fail(QStringLiteral("inputs.") + it.key(), QStringLiteral("feeds no inner port"));
        for (const QJsonValue &target : targets) {
            const Result<Endpoint> endpoint = innerEndpoint(target, out.graph);
            if (!endpoint)
                return fail(QStringLiteral("inputs.") + it.key(), endpoint.error().message);
            out.inputs[it.key()].append(endpoint.value());
        }
    }
    const QJsonValue outputs = json.value(QStringLiteral("outputs"));
    if (!outputs.isObject() || outputs.toObject().isEmpty())
        return fail(QStringLiteral("outputs"), QStringLiteral("expected {\"PORT\": \"NODE.PORT\"}, at least one"));
    const QJsonObject outputObject = outputs.toObject();
    for (auto it = outputObject.constBegin(); it != outputObject.constEnd(); ++it) {
        const Result<Endpoint> endpoint = innerEndpoint(it.value(), out.graph);
        if (!endpoint)
            return fail(QStringLiteral("outputs.") + it.key(), endpoint.error().message);
        out.outputs.insert(it.key(), endpoint.value());
    }
    for (const QString &port : out.inputs.keys() + out.outputs.keys())
        if (!isValidNodeId(port))
            return fail(QStringLiteral("inputs"), QStringLiteral("a port name is letters, digits and underscores, got \"%1\"").arg(port));

    const QJsonValue params = json.value(QStringLiteral("params"));
    if (!params.isUndefined() && !params.isObject())
        return fail(QStringLiteral("params"), QStringLiteral("expected an object of exposed parameters"));
    const QJsonObject paramObject = params.toObject();
    for (auto it = paramObject.constBegin(); it != paramObject.constEnd(); ++it) {
        Result<ExposedParam> param = exposedFromJson(it.key(), it.value(), out.graph);
        if (!param)
            return fail(QStringLiteral("params.") + it.key(), param.error().message);
        out.params.append(param.value());
    }
    return out;
}

QJsonObject compositeToJson(const CompositeDefinition &definition)
{
    QJsonObject inputs, outputs, params;
    for (auto it = definition.inputs.constBegin(); it != definition.inputs.constEnd(); ++it) {
        QJsonArray targets;
        for (const Endpoint &e : it.value())
            targets.append(e.toString());
        inputs.insert(it.key(), targets.size() == 1 ? targets.first() : QJsonValue(targets));
    }
    for (auto it = definition.outputs.constBegin(); it != definition.outputs.constEnd(); ++it)
        outputs.insert(it.key(), it.value().toString());
    for (const ExposedParam &p : definition.params) {
        QJsonObject o = p.spec.toJson();
        o.remove(QStringLiteral("name"));
        if (p.spec.type == ParamType::FloatList)
            o.insert(QStringLiteral("type"), QStringLiteral("float_list"));
        if (o.value(QStringLiteral("doc")).toString().isEmpty())
            o.remove(QStringLiteral("doc"));
        o.insert(QStringLiteral("bind"), QJsonArray::fromStringList(p.bind));
        params.insert(p.spec.name, o);
    }
    QJsonObject json{{QStringLiteral("inputs"), inputs},
                     {QStringLiteral("outputs"), outputs},
                     {QStringLiteral("nodes"), nodesToJson(definition.graph)},
                     {QStringLiteral("edges"), edgesToJson(definition.graph)}};
    if (!params.isEmpty())
        json.insert(QStringLiteral("params"), params);
    if (!definition.description.isEmpty())
        json.insert(QStringLiteral("description"), definition.description);
    return json;
}

PipelineGraph bindComposite(const CompositeDefinition &definition, const QJsonObject &values, QList<Error> *problems)
{
    PipelineGraph inner = definition.graph;
    auto problem = [&](const QString &key, const QString &message) {
        Error e(message);
        e.field = key;
        problems->append(e);
    };
    QHash<QString, QJsonObject> byPath;  // inner node id -> parameters set by path
    for (auto it = values.constBegin(); it != values.constEnd(); ++it) {
        const QString key = QString(it.key()).replace(QLatin1Char('/'), QLatin1Char('.'));
        const int dot = key.indexOf(QLatin1Char('.'));
        if (dot > 0) {
            const QString innerId = key.left(dot);
            if (!inner.node(innerId) || dot == key.size() - 1) {
                QStringList ids;
                for (const Node &n : inner.nodes)
                    ids << n.id;
                problem(it.key(), QStringLiteral("\"%1\" names no inner node of %2 (inner nodes: %3)")
                                      .arg(it.key(), definition.name, ids.join(QStringLiteral(", "))));
                continue;
            }
            byPath[innerId].insert(key.mid(dot + 1), it.value());
            continue;
        }
        const ExposedParam *param = definition.param(key);
        if (!param) {
            QStringList known;
            for (const ExposedParam &p : definition.params)
                known << p.spec.name;
            problem(key, QStringLiteral("unknown parameter \"%1\" of %2 (known: %3; an inner one as NODE.PARAM)")
                             .arg(key, definition.name, known.isEmpty() ? QStringLiteral("none") : known.join(QStringLiteral(", "))));
            continue;
        }
        if (const QString refused = checkParamValue(param->spec, it.value()); !refused.isEmpty())
            problem(key, refused);
    }
    for (const ExposedParam &param : definition.params) {
        const QJsonValue value = values.contains(param.spec.name) ? values.value(param.spec.name) : param.spec.defaultValue;
        for (const QString &bind : param.bind) {
            Endpoint target;
            Endpoint::parse(bind, &target);
            inner.node(target.node)->params.insert(target.port, value);
        }
    }
    for (auto it = byPath.constBegin(); it != byPath.constEnd(); ++it) {
        Node *target = inner.node(it.key());
        for (auto v = it.value().constBegin(); v != it.value().constEnd(); ++v)
            target->params.insert(v.key(), v.value());
    }
    return inner;
}

BlockDescriptor compositeDescriptor(const CompositeDefinition &definition)
{
    BlockDescriptor d;
    d.typeId = definition.name;
    d.category = BlockCategory::Layer;
    d.displayName = definition.name;
    d.doc = definition.description.isEmpty() ? QStringLiteral("composite block") : definition.description;
    for (auto it = definition.inputs.constBegin(); it != definition.inputs.constEnd(); ++it)
        d.inputs.append(spec::port(it.key(), PortKind::Tensor, QStringLiteral("composite input")));
    for (auto it = definition.outputs.constBegin(); it != definition.outputs.constEnd(); ++it)
        d.outputs.append(spec::port(it.key(), PortKind::Tensor, QStringLiteral("composite output")));
    for (const ExposedParam &p : definition.params)
        d.params.append(p.spec);
    return d;
}

BlockRegistry presetBlockRegistry(const Preset &preset)
{
    return blocksSection(preset)->registry;
}

bool isCompositeBlock(const Preset &preset, const QString &blockType)
{
    return preset.blocks.contains(blockType);
}

QString defaultBlockLibraryFolder()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + QStringLiteral("/trainyard/blocks");
}

QList<LibraryBlock> loadBlockLibrary(const QString &folder, QStringList *problems)
{
    QList<LibraryBlock> out;
    const QFileInfoList files =
        QDir(folder).entryInfoList({QStringLiteral("*.trainyard-block.json")}, QDir::Files, QDir::Name);
    for (const QFileInfo &file : files) {
        auto skip = [&](const QString &message) {
            if (problems)
                problems->append(QStringLiteral("%1: %2").arg(file.filePath(), message));
        };
        Result<QJsonObject> json = readJsonObjectFile(file.filePath());
        if (!json) {
            skip(json.error().message);
            continue;
        }
        QJsonObject o = json.value();
        if (o.value(QStringLiteral("format")).toString() != kLibraryFormat || o.value(QStringLiteral("version")).toInt() != kLibraryVersion) {
            skip(QStringLiteral("not a Trainyard block (expected \"format\": \"%1\", \"version\": %2)").arg(kLibraryFormat).arg(kLibraryVersion));
            continue;
        }
        LibraryBlock block;
        block.path = file.filePath();
        block.name = o.value(QStringLiteral("name")).toString();
        block.uses = o.value(QStringLiteral("uses")).toObject();
        for (const char *key : {"format", "version", "name", "uses"})
            o.remove(QString::fromLatin1(key));
        block.definition = o;
        Preset check;
        check.blocks = block.uses;
        check.blocks.insert(block.name, block.definition);
        bool ok = true;
        for (auto it = check.blocks.constBegin(); it != check.blocks.constEnd() && ok; ++it) {
            const Result<CompositeDefinition> parsed = compositeFromJson(it.key(), it.value().toObject(), file.filePath());
            if (!parsed) {
                skip(parsed.error().toString());
                ok = false;
            }
        }
        if (ok)
            out.append(block);
    }
    return out;
}

QStringList compositesUsedBy(const Preset &preset, const QString &name)
{
    QStringList found, pending{name};
    while (!pending.isEmpty()) {
        const QString next = pending.takeFirst();
        for (const QJsonValue &node : preset.blocks.value(next).toObject().value(QStringLiteral("nodes")).toArray()) {
            const QString block = node.toObject().value(QStringLiteral("block")).toString();
            if (preset.blocks.contains(block) && block != name && !found.contains(block)) {
                found << block;
                pending << block;
            }
        }
    }
    return found;
}

Status saveLibraryBlock(const Preset &preset, const QString &name, const QString &folder)
{
    if (!preset.blocks.contains(name))
        return Error(QStringLiteral("the preset defines no block \"%1\"").arg(name));
    QJsonObject json = preset.blocks.value(name).toObject();
    json.insert(QStringLiteral("format"), kLibraryFormat);
    json.insert(QStringLiteral("version"), kLibraryVersion);
    json.insert(QStringLiteral("name"), name);
    QJsonObject uses;
    for (const QString &used : compositesUsedBy(preset, name))
        uses.insert(used, preset.blocks.value(used));
    if (!uses.isEmpty())
        json.insert(QStringLiteral("uses"), uses);
    if (!QDir().mkpath(folder))
        return Error::inFile(folder, QStringLiteral("cannot create the block library folder"));
    return writeJsonObjectFile(QDir(folder).filePath(name + QStringLiteral(".trainyard-block.json")), json,
                               {QStringLiteral("format"), QStringLiteral("version"), QStringLiteral("name"),
                                QStringLiteral("description"), QStringLiteral("params"), QStringLiteral("inputs"),
                                QStringLiteral("outputs"), QStringLiteral("nodes"), QStringLiteral("edges")});
}

void embedLibraryBlock(Preset *preset, const LibraryBlock &block)
{
    preset->blocks.insert(block.name, block.definition);
    for (auto it = block.uses.constBegin(); it != block.uses.constEnd(); ++it)
        if (!preset->blocks.contains(it.key()))
            preset->blocks.insert(it.key(), it.value());
}

} // namespace ty
