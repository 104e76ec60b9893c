#include "preset_overrides.h"

#include "block_registry.h"
#include "param_values.h"
#include "training_settings.h"

namespace ty {

namespace {

Error overrideError(const QString &assignment, const QString &message, const QString &node = {},
                    const QString &field = {})
{
    Error e;
    e.node = node;
    e.field = field;
    e.message = QStringLiteral("--set %1: %2").arg(assignment, message);
    return e;
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
    const QString owner = path.left(dot);
    const QString key = path.mid(dot + 1);

    const ParamSpec *spec = nullptr;
    Node *node = nullptr;
    if (owner == QStringLiteral("training")) {
        spec = trainingSpec(key);
        if (!spec)
            return overrideError(assignment, QStringLiteral("no training setting \"%1\"").arg(key), {}, path);
    } else {
        node = preset->graph.node(owner);
        if (!node) {
            QStringList ids;
            for (const Node &n : preset->graph.nodes)
                ids << n.id;
            return overrideError(assignment, QStringLiteral("no node \"%1\" in the preset (nodes: %2)")
                                                 .arg(owner, ids.join(QStringLiteral(", "))));
        }
        const BlockDescriptor *block = BlockRegistry::builtin().find(node->block);
        if (!block)
            return overrideError(assignment, QStringLiteral("unknown block \"%1\"").arg(node->block), owner);
        spec = block->param(key);
        if (!spec)
            return overrideError(assignment, QStringLiteral("%1 has no parameter \"%2\"").arg(node->block, key), owner, key);
    }
    QString problem;
    const QJsonValue value = parseParamText(*spec, text, &problem);
    if (value.isUndefined())
        return overrideError(assignment, problem, node ? owner : QString(), node ? key : path);
    if (node)
        node->params.insert(key, value);
    else
        preset->training.insert(key, value);
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
