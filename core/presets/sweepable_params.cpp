#include "sweepable_params.h"

#include "block_registry.h"
#include "composite_blocks.h"
#include "param_values.h"
#include "training_settings.h"

#include <QSet>

#include <cmath>

namespace ty {

namespace {

bool isNumeric(const ParamSpec &spec) { return spec.type == ParamType::Int || spec.type == ParamType::Float; }

// Training settings that say how a run is recorded or spread over processes, not what it learns.
bool isBookkeeping(const QString &trainingKey)
{
    static const QSet<QString> keys{QStringLiteral("eval_batch_size"), QStringLiteral("checkpoint_every"),
                                    QStringLiteral("checkpoint_keep"), QStringLiteral("log_every"),
                                    QStringLiteral("threads"), QStringLiteral("dist_timeout")};
    return keys.contains(trainingKey);
}

// 1e6 rather than 1000000 or 1e+06; small whole numbers as they are.
QString boundText(double value)
{
    if (std::abs(value) < 1e6 && value == std::floor(value))
        return QString::number(qint64(value));
    return QString::number(value, 'g', 4).replace(QStringLiteral("e+0"), QStringLiteral("e")).replace(QStringLiteral("e+"), QStringLiteral("e"));
}

} // namespace

QList<SweepableParam> sweepableParams(const Preset &preset)
{
    QList<SweepableParam> out;
    const BlockRegistry registry = presetBlockRegistry(preset);
    for (const Node &node : preset.graph.nodes) {
        const BlockDescriptor *block = registry.find(node.block);
        if (!block)
            continue;
        for (const ParamSpec &spec : block->params) {
            if (!isNumeric(spec))
                continue;
            out.append({node.id, QStringLiteral("%1 · %2").arg(node.id, block->displayName), spec.name, spec,
                        paramValueText(block->value(node.params, spec.name))});
        }
    }
    for (const ParamSpec &spec : trainingSpecs()) {
        if (!isNumeric(spec) || isBookkeeping(spec.name))
            continue;
        const QJsonValue value = preset.training.contains(spec.name) ? preset.training.value(spec.name) : spec.defaultValue;
        out.append({QStringLiteral("training"), QStringLiteral("training"), spec.name, spec, paramValueText(value)});
    }
    return out;
}

QString allowedRangeText(const ParamSpec &spec)
{
    // Bounds of a billion and beyond only guard against absurd values: read as none.
    const bool low = std::abs(spec.minimum) < 1e9, high = std::abs(spec.maximum) < 1e9;
    if (low && high)
        return QStringLiteral("%1 – %2").arg(boundText(spec.minimum), boundText(spec.maximum));
    if (low)
        return QStringLiteral("≥ %1").arg(boundText(spec.minimum));
    if (high)
        return QStringLiteral("≤ %1").arg(boundText(spec.maximum));
    return QStringLiteral("any");
}

QString defaultSweepKey(const Preset &preset)
{
    const QList<SweepableParam> params = sweepableParams(preset);
    const BlockRegistry &builtin = BlockRegistry::builtin();
    auto categoryOf = [&](const QString &nodeId) {
        const Node *node = preset.graph.node(nodeId);
        const BlockDescriptor *block = node ? builtin.find(node->block) : nullptr;
        // A composite block is a layer (compositeDescriptor).
        return block ? block->category : BlockCategory::Layer;
    };
    for (const SweepableParam &p : params)
        if (p.node != QLatin1String("training") && p.name == QLatin1String("lr") && categoryOf(p.node) == BlockCategory::Optimizer)
            return p.key();
    for (const SweepableParam &p : params)
        if (p.node != QLatin1String("training") && categoryOf(p.node) == BlockCategory::Layer)
            return p.key();
    return QStringLiteral("training.batch_size");
}

} // namespace ty
