#include "preset_overrides.h"

#include "block_registry.h"
#include "param_values.h"
#include "training_settings.h"

#include <algorithm>

namespace ty {

namespace {

Error overrideError(const QString &assignment, const QString &message, const QString &node = {},
                    const QString &field = {})
{
    return Error::atNode(node, QStringLiteral("--set %1: %2").arg(assignment, message), field);
}

} // namespace

namespace {

// The spec a "NODE_ID.PARAM" or "training.KEY" path names, with the node when it is a node's; an error
// (prefixed by `context`) when the path names nothing.
Result<const ParamSpec *> specOf(const Preset &preset, const QString &path, const QString &context, const Node **nodeOut)
{
    *nodeOut = nullptr;
    auto fail = [&](const QString &message, const QString &node = {}, const QString &field = {}) {
        return Error::atNode(node, QStringLiteral("%1: %2").arg(context, message), field.isEmpty() ? path : field);
    };
    const int dot = path.indexOf(QLatin1Char('.'));
    if (dot <= 0 || dot == path.size() - 1)
        return fail(QStringLiteral("expected NODE_ID.PARAM or training.KEY"));
    const QString owner = path.left(dot);
    const QString key = path.mid(dot + 1);
    if (owner == QStringLiteral("training")) {
        if (const ParamSpec *spec = trainingSpec(key))
            return spec;
        return fail(QStringLiteral("no training setting \"%1\"").arg(key));
    }
    const Node *node = preset.graph.node(owner);
    if (!node) {
        QStringList ids;
        for (const Node &n : preset.graph.nodes)
            ids << n.id;
        return fail(QStringLiteral("no node \"%1\" in the preset (nodes: %2)").arg(owner, ids.join(QStringLiteral(", "))));
    }
    const BlockDescriptor *block = BlockRegistry::builtin().find(node->block);
    if (!block)
        return fail(QStringLiteral("unknown block \"%1\"").arg(node->block), owner, key);
    const ParamSpec *spec = block->param(key);
    if (!spec)
        return fail(QStringLiteral("%1 has no parameter \"%2\"").arg(node->block, key), owner, key);
    *nodeOut = node;
    return spec;
}

void store(Preset *preset, const QString &path, const Node *node, const QJsonValue &value)
{
    const QString key = path.mid(path.indexOf(QLatin1Char('.')) + 1);
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
    const BlockDescriptor *to = BlockRegistry::builtin().find(type);
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
    const Result<const ParamSpec *> spec = specOf(*preset, path, QStringLiteral("--set ") + assignment, &node);
    if (!spec)
        return spec.error();
    QString problem;
    const QJsonValue value = parseParamText(*spec.value(), text, &problem);
    if (value.isUndefined())
        return overrideError(assignment, problem, node ? node->id : QString(), node ? path.mid(path.indexOf(QLatin1Char('.')) + 1) : path);
    store(preset, path, node, value);
    return Status::success();
}

Status applyParamValue(Preset *preset, const QString &path, const QJsonValue &value, const QString &context)
{
    const Node *node = nullptr;
    const Result<const ParamSpec *> spec = specOf(*preset, path, context, &node);
    if (!spec)
        return spec.error();
    QJsonValue typed = value;
    QString problem;
    // Text is read as a person types it ("1e-4", "0.5,0.5"), as --set does, unless the parameter is text.
    if (value.isString() && spec.value()->type != ParamType::String && spec.value()->type != ParamType::Path
        && spec.value()->type != ParamType::Choice)
        typed = parseParamText(*spec.value(), value.toString(), &problem);
    else
        problem = checkParamValue(*spec.value(), value);
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
    *preset = copy;
    return Status::success();
}

} // namespace ty
