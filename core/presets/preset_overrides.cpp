#include "preset_overrides.h"

#include "printable_text.h"

#include "block_registry.h"
#include "composite_blocks.h"
#include "preset_sections.h"
#include "param_values.h"
#include "training_settings.h"

#include <algorithm>

namespace ty {

namespace {

Error overrideError(const QString &assignment, const QString &message, const QString &node = {},
                    const QString &field = {})
{
    // The assignment as an excerpt: its value may be long, and the message may quote it again.
    return Error::atNode(node, QStringLiteral("--set %1: %2").arg(printableExcerpt(assignment, 80), message), field);
}

} // namespace

namespace {

// Where the node id of "NODE.PARAM" ends: at the first '.', or at the first '/' of a path into a composite
// ("stage2/unit1/conv1.kernel_size").
int ownerEnd(const QString &path)
{
    const int dot = path.indexOf(QLatin1Char('.'));
    const int slash = path.indexOf(QLatin1Char('/'));
    return slash >= 0 && (dot < 0 || slash < dot) ? slash : dot;
}

// The spec of `key` ("PARAM", or "INNER.PARAM", "INNER.INNER2.PARAM" by path) of a node of block `block`,
// which may be a composite of `preset`.
Result<ParamSpec> nodeParamSpec(const Preset &preset, const QString &block, const QString &key, int depth = 0)
{
    if (preset.blocks.contains(block) && depth < 16) {
        const Result<CompositeDefinition> definition = compositeDefinition(preset, block);
        if (!definition)
            return definition.error();
        const int dot = key.indexOf(QLatin1Char('.'));
        if (dot < 0) {
            if (const ExposedParam *param = definition.value().param(key))
                return param->spec;
            QStringList known;
            for (const ExposedParam &p : definition.value().params)
                known << p.spec.name;
            return Error(QStringLiteral("%1 has no parameter \"%2\" (exposed: %3; an inner one as NODE.PARAM)")
                             .arg(block, key, known.isEmpty() ? QStringLiteral("none") : known.join(QStringLiteral(", "))));
        }
        const Node *inner = definition.value().graph.node(key.left(dot));
        if (!inner) {
            QStringList ids;
            for (const Node &n : definition.value().graph.nodes)
                ids << n.id;
            return Error(QStringLiteral("%1 has no inner node \"%2\" (inner nodes: %3)").arg(block, key.left(dot), ids.join(QStringLiteral(", "))));
        }
        return nodeParamSpec(preset, inner->block, key.mid(dot + 1), depth + 1);
    }
    const BlockDescriptor *descriptor = BlockRegistry::builtin().find(block);
    if (!descriptor)
        return Error(QStringLiteral("unknown block \"%1\"").arg(block));
    const ParamSpec *spec = descriptor->param(key);
    if (!spec)
        return Error(QStringLiteral("%1 has no parameter \"%2\"").arg(block, key));
    return *spec;
}

// The spec a "NODE_ID.PARAM" or "training.KEY" path names, with the node when it is a node's; an error
// (prefixed by `context`) when the path names nothing. A composite node's path goes on to its exposed
// parameter or, by path, an inner node's ("stage2.unit1.conv1.kernel_size"; "/" reads as ".").
Result<ParamSpec> specOf(const Preset &preset, const QString &path, const QString &context, const Node **nodeOut)
{
    *nodeOut = nullptr;
    auto fail = [&](const QString &message, const QString &node = {}, const QString &field = {}) {
        return Error::atNode(node, QStringLiteral("%1: %2").arg(context, message), field.isEmpty() ? path : field);
    };
    const int dot = ownerEnd(path);
    if (dot <= 0 || dot == path.size() - 1)
        return fail(QStringLiteral("expected NODE_ID.PARAM or training.KEY"));
    const QString owner = path.left(dot);
    QString key = path.mid(dot + 1);
    if (owner == QStringLiteral("training")) {
        if (const ParamSpec *spec = trainingSpec(key))
            return *spec;
        return fail(QStringLiteral("no training setting \"%1\"").arg(key));
    }
    const Node *node = preset.graph.node(owner);
    if (!node) {
        QStringList ids;
        for (const Node &n : preset.graph.nodes)
            ids << n.id;
        return fail(QStringLiteral("no node \"%1\" in the preset (nodes: %2)").arg(owner, ids.join(QStringLiteral(", "))));
    }
    key.replace(QLatin1Char('/'), QLatin1Char('.'));
    const Result<ParamSpec> spec = nodeParamSpec(preset, node->block, key);
    if (!spec)
        return fail(spec.error().message, owner, key);
    *nodeOut = node;
    return spec;
}

void store(Preset *preset, const QString &path, const Node *node, const QJsonValue &value)
{
    QString key = path.mid(ownerEnd(path) + 1);
    key.replace(QLatin1Char('/'), QLatin1Char('.'));
    if (node)
        preset->graph.node(node->id)->params.insert(key, value);
    else
        preset->training.insert(key, value);
}

} // namespace

namespace {

bool hasPort(const QList<PortSpec> &ports, const QString &name)
{
    return std::any_of(ports.begin(), ports.end(), [&](const PortSpec &p) { return p.name == name; });
}

// `--set NODE.block=TYPE`: the node takes another block whose ports include every port its edges use; the
// parameters both blocks have (with values the new block accepts) stay, the rest go.
Status swapBlock(Preset *preset, const QString &assignment, const QString &nodeId, const QString &type)
{
    Node *node = preset->graph.node(nodeId);
    const BlockRegistry registry = presetBlockRegistry(*preset);
    const BlockDescriptor *to = registry.find(type);
    if (!to)
        return overrideError(assignment, QStringLiteral("no block type \"%1\" (trainyard-cli blocks lists them)").arg(type),
                             nodeId, QStringLiteral("block"));
    const QString from = node->block;
    for (const Edge &edge : preset->graph.edgesInto(nodeId))
        if (!hasPort(to->inputs, edge.to.port))
            return overrideError(assignment,
                                 QStringLiteral("%1 cannot replace %2: it has no input \"%3\" (fed by %4)")
                                     .arg(type, from, edge.to.port, edge.from.toString()),
                                 nodeId, QStringLiteral("block"));
    for (const Edge &edge : preset->graph.edgesFrom(nodeId))
        if (!hasPort(to->outputs, edge.from.port))
            return overrideError(assignment,
                                 QStringLiteral("%1 cannot replace %2: it has no output \"%3\" (feeding %4)")
                                     .arg(type, from, edge.from.port, edge.to.toString()),
                                 nodeId, QStringLiteral("block"));
    QJsonObject kept;
    for (auto it = node->params.begin(); it != node->params.end(); ++it)
        if (const ParamSpec *spec = to->param(it.key()); spec && checkParamValue(*spec, it.value()).isEmpty())
            kept.insert(it.key(), it.value());
    if (node->repeat != 1 && !isCompositeBlock(*preset, type))
        return overrideError(assignment, QStringLiteral("%1 cannot replace %2: the node repeats %3 times, and only a composite block repeats")
                                             .arg(type, from).arg(node->repeat),
                             nodeId, QStringLiteral("block"));
    node->block = type;
    node->params = kept;
    return Status::success();
}

} // namespace

Status applyOverride(Preset *preset, const QString &assignment)
{
    const int eq = assignment.indexOf(QLatin1Char('='));
    if (eq <= 0)
        return overrideError(assignment, QStringLiteral("expected KEY=VALUE, e.g. opt.lr=3e-4 or training.epochs=20"));
    const QString path = assignment.left(eq).trimmed();
    const QString text = assignment.mid(eq + 1);
    const int dot = path.indexOf(QLatin1Char('.'));
    if (dot <= 0 || dot == path.size() - 1)
        return overrideError(assignment, QStringLiteral("expected NODE_ID.PARAM or training.KEY before '='"));
    if (const QString owner = path.left(dot); path.mid(dot + 1) == QStringLiteral("block") && owner != QStringLiteral("training")) {
        if (!preset->graph.node(owner)) {
            const Node *none = nullptr;
            return specOf(*preset, path, QStringLiteral("--set ") + assignment, &none).error();  // names the nodes
        }
        return swapBlock(preset, assignment, owner, text.trimmed());
    }
    const Node *node = nullptr;
    const Result<ParamSpec> spec = specOf(*preset, path, QStringLiteral("--set ") + assignment, &node);
    if (!spec)
        return spec.error();
    QString problem;
    const QJsonValue value = parseParamText(spec.value(), text, &problem);
    if (value.isUndefined())
        return overrideError(assignment, problem, node ? node->id : QString(), node ? path.mid(path.indexOf(QLatin1Char('.')) + 1) : path);
    store(preset, path, node, value);
    return Status::success();
}

Status applyParamValue(Preset *preset, const QString &path, const QJsonValue &value, const QString &context)
{
    const Node *node = nullptr;
    const Result<ParamSpec> spec = specOf(*preset, path, context, &node);
    if (!spec)
        return spec.error();
    QJsonValue typed = value;
    QString problem;
    // Text is read as a person types it ("1e-4", "0.5,0.5"), as --set does, unless the parameter is text.
    if (value.isString() && spec.value().type != ParamType::String && spec.value().type != ParamType::Path
        && spec.value().type != ParamType::Choice)
        typed = parseParamText(spec.value(), value.toString(), &problem);
    else
        problem = checkParamValue(spec.value(), value);
    if (typed.isUndefined() || !problem.isEmpty()) {
        return Error::atNode(node ? node->id : QString(), QStringLiteral("%1: %2").arg(context, problem), path);
    }
    store(preset, path, node, typed);
    return Status::success();
}

Status applyOverrides(Preset *preset, const QStringList &assignments)
{
    Preset copy = *preset;
    for (const QString &assignment : assignments) {
        const Status status = applyOverride(&copy, assignment);
        if (!status)
            return status;
    }
    // The sections the overrides changed are parsed here, once, before the preset is copied around.
    trainingSection(copy);
    blocksSection(copy);
    *preset = copy;
    return Status::success();
}

} // namespace ty
