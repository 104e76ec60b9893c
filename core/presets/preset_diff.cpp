#include "preset_diff.h"

#include "block_registry.h"
#include "param_values.h"
#include "training_settings.h"

#include <QSet>

#include <algorithm>

namespace ty {

namespace {

// Numbers compare by value (an int 2 equals a double 2.0); everything else as JSON.
bool sameValue(const QJsonValue &x, const QJsonValue &y)
{
    if (x.isDouble() && y.isDouble())
        return x.toDouble() == y.toDouble();
    return x == y;
}

// The value as shown in a difference's text: quoted strings make an empty value visible.
QString shown(const QJsonValue &value)
{
    if (value.isUndefined())
        return QStringLiteral("(unset)");
    if (value.isString())
        return QLatin1Char('"') + value.toString() + QLatin1Char('"');
    return paramValueText(value);
}

QString plain(const QJsonValue &value) { return value.isUndefined() ? QString() : paramValueText(value); }

// Parameter names in a stable order: the block's declaration order first, then unknown explicit ones sorted.
QStringList paramOrder(const BlockDescriptor *block, const QJsonObject &explicitValues)
{
    QStringList names;
    if (block)
        for (const ParamSpec &spec : block->params)
            names << spec.name;
    QStringList extra;
    for (auto it = explicitValues.constBegin(); it != explicitValues.constEnd(); ++it)
        if (!names.contains(it.key()))
            extra << it.key();
    std::sort(extra.begin(), extra.end());
    return names + extra;
}

QJsonObject effective(const BlockDescriptor *block, const QJsonObject &explicitValues)
{
    if (!block)
        return explicitValues;
    QJsonObject values = block->effectiveParams(explicitValues);
    for (auto it = explicitValues.constBegin(); it != explicitValues.constEnd(); ++it)
        if (!values.contains(it.key()))
            values.insert(it.key(), it.value());  // unknown to the block: still part of the preset
    return values;
}

PresetDifference valueDifference(PresetDifferenceKind kind, const QString &node, const QString &field,
                                 const QJsonValue &before, const QJsonValue &after)
{
    PresetDifference d;
    d.kind = kind;
    d.node = node;
    d.field = field;
    d.before = plain(before);
    d.after = plain(after);
    const QString owner = node.isEmpty() ? QStringLiteral("training") : node;
    d.text = QStringLiteral("%1.%2: %3 -> %4").arg(owner, field, shown(before), shown(after));
    return d;
}

void diffNode(const Node &a, const Node &b, QList<PresetDifference> *out)
{
    const BlockRegistry &registry = BlockRegistry::builtin();
    const BlockDescriptor *blockA = registry.find(a.block);
    const BlockDescriptor *blockB = registry.find(b.block);
    if (a.block != b.block) {
        PresetDifference d;
        d.kind = PresetDifferenceKind::BlockChanged;
        d.node = a.id;
        d.field = QStringLiteral("block");
        d.before = a.block;
        d.after = b.block;
        d.text = QStringLiteral("node %1: block %2 -> %3").arg(a.id, a.block, b.block);
        out->append(d);
    }
    const QJsonObject valuesA = effective(blockA, a.params);
    const QJsonObject valuesB = effective(blockB, b.params);
    QStringList names = paramOrder(blockA, a.params);
    for (const QString &name : paramOrder(blockB, b.params))
        if (!names.contains(name))
            names << name;
    for (const QString &name : names) {
        const QJsonValue before = valuesA.value(name);
        const QJsonValue after = valuesB.value(name);
        if (!sameValue(before, after))
            out->append(valueDifference(PresetDifferenceKind::ParamChanged, a.id, name, before, after));
    }
}

PresetDifference nodePresence(PresetDifferenceKind kind, const Node &node)
{
    PresetDifference d;
    d.kind = kind;
    d.node = node.id;
    const bool added = kind == PresetDifferenceKind::NodeAdded;
    (added ? d.after : d.before) = node.block;
    d.text = QStringLiteral("node %1 %2 (%3)").arg(node.id, added ? QStringLiteral("added") : QStringLiteral("removed"),
                                                   node.block);
    return d;
}

QString edgeText(const Edge &edge) { return edge.from.toString() + QStringLiteral(" -> ") + edge.to.toString(); }

void diffEdges(const QList<Edge> &a, const QList<Edge> &b, QList<PresetDifference> *out)
{
    for (const bool added : {false, true}) {
        const QList<Edge> &from = added ? b : a;
        const QList<Edge> &other = added ? a : b;
        for (const Edge &edge : from) {
            if (other.contains(edge))
                continue;
            PresetDifference d;
            d.kind = added ? PresetDifferenceKind::EdgeAdded : PresetDifferenceKind::EdgeRemoved;
            d.node = edge.to.node;
            d.field = edgeText(edge);
            (added ? d.after : d.before) = d.field;
            d.text = QStringLiteral("edge %1: %2").arg(added ? QStringLiteral("added") : QStringLiteral("removed"), d.field);
            out->append(d);
        }
    }
}

void diffTraining(const QJsonObject &a, const QJsonObject &b, QList<PresetDifference> *out)
{
    QStringList known;
    for (const ParamSpec &spec : trainingSpecs()) {
        known << spec.name;
        const QJsonValue before = a.contains(spec.name) ? a.value(spec.name) : spec.defaultValue;
        const QJsonValue after = b.contains(spec.name) ? b.value(spec.name) : spec.defaultValue;
        if (!sameValue(before, after))
            out->append(valueDifference(PresetDifferenceKind::TrainingChanged, QString(), spec.name, before, after));
    }
    QStringList unknown;
    for (const QJsonObject &o : {a, b})
        for (auto it = o.constBegin(); it != o.constEnd(); ++it)
            if (!known.contains(it.key()) && !unknown.contains(it.key()))
                unknown << it.key();
    std::sort(unknown.begin(), unknown.end());
    for (const QString &key : unknown)
        if (!sameValue(a.value(key), b.value(key)))
            out->append(valueDifference(PresetDifferenceKind::TrainingChanged, QString(), key, a.value(key), b.value(key)));
}

PresetDifference textDifference(PresetDifferenceKind kind, const QString &field, const QString &before,
                                const QString &after)
{
    PresetDifference d;
    d.kind = kind;
    d.field = field;
    d.before = before;
    d.after = after;
    d.text = QStringLiteral("%1: \"%2\" -> \"%3\"").arg(field, before, after);
    return d;
}

} // namespace

QList<PresetDifference> diffPresets(const Preset &a, const Preset &b)
{
    QList<PresetDifference> out;
    if (a.name != b.name)
        out.append(textDifference(PresetDifferenceKind::NameChanged, QStringLiteral("name"), a.name, b.name));
    if (a.description != b.description)
        out.append(textDifference(PresetDifferenceKind::DescriptionChanged, QStringLiteral("description"),
                                  a.description, b.description));
    for (const Node &nodeA : a.graph.nodes) {
        if (const Node *nodeB = b.graph.node(nodeA.id))
            diffNode(nodeA, *nodeB, &out);
        else
            out.append(nodePresence(PresetDifferenceKind::NodeRemoved, nodeA));
    }
    for (const Node &nodeB : b.graph.nodes)
        if (!a.graph.node(nodeB.id))
            out.append(nodePresence(PresetDifferenceKind::NodeAdded, nodeB));
    diffEdges(a.graph.edges, b.graph.edges, &out);
    diffTraining(a.training, b.training, &out);
    return out;
}

QString variantLabel(const QList<PresetDifference> &differences)
{
    constexpr int kMostNamed = 3;
    QStringList changes;
    for (const PresetDifference &d : differences) {
        switch (d.kind) {
        case PresetDifferenceKind::NameChanged:
        case PresetDifferenceKind::DescriptionChanged:
            break;
        case PresetDifferenceKind::ParamChanged:
            changes << QStringLiteral("%1.%2=%3").arg(d.node, d.field, d.after);
            break;
        case PresetDifferenceKind::TrainingChanged:
            changes << QStringLiteral("training.%1=%2").arg(d.field, d.after);
            break;
        default:
            return QStringLiteral("edited");
        }
    }
    return changes.size() > kMostNamed ? QStringLiteral("edited") : changes.join(QStringLiteral(", "));
}

QString presetDifferenceKindName(PresetDifferenceKind kind)
{
    switch (kind) {
    case PresetDifferenceKind::NameChanged: return QStringLiteral("name");
    case PresetDifferenceKind::DescriptionChanged: return QStringLiteral("description");
    case PresetDifferenceKind::NodeAdded: return QStringLiteral("node added");
    case PresetDifferenceKind::NodeRemoved: return QStringLiteral("node removed");
    case PresetDifferenceKind::BlockChanged: return QStringLiteral("block");
    case PresetDifferenceKind::ParamChanged: return QStringLiteral("parameter");
    case PresetDifferenceKind::EdgeAdded: return QStringLiteral("edge added");
    case PresetDifferenceKind::EdgeRemoved: return QStringLiteral("edge removed");
    case PresetDifferenceKind::TrainingChanged: return QStringLiteral("training");
    }
    return QString();
}

} // namespace ty
