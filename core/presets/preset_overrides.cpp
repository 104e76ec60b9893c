#include "preset_overrides.h"

#include "block_registry.h"
#include "param_values.h"
#include "training_settings.h"

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
