#include "composite_grouping.h"

#include "block_registry.h"
#include "composite_blocks.h"
#include "preset_sections.h"

#include <QHash>
#include <QSet>

#include <algorithm>
#include <limits>

namespace ty {

namespace {

QString portName(const QString &base, int index, int count)
{
    return count == 1 ? base : base + QString::number(index + 1);
}

QString freshBlockName(const Preset &preset)
{
    for (int i = 1;; ++i) {
        const QString name = i == 1 ? QStringLiteral("block") : QStringLiteral("block%1").arg(i);
        if (!preset.blocks.contains(name) && !BlockRegistry::builtin().find(name))
            return name;
    }
}

} // namespace

Result<Grouping> groupIntoComposite(const Preset &preset, const QStringList &nodeIds)
{
    if (nodeIds.isEmpty())
        return Error(QStringLiteral("select the nodes to group"));
    const BlockRegistry registry = presetBlockRegistry(preset);
    const QSet<QString> inside(nodeIds.begin(), nodeIds.end());
    PipelineGraph inner;
    QPointF topLeft(std::numeric_limits<double>::max(), std::numeric_limits<double>::max());
    for (const Node &node : preset.graph.nodes) {
        if (!inside.contains(node.id))
            continue;
        const BlockDescriptor *block = registry.find(node.block);
        if (!block || (block->category != BlockCategory::Layer && block->category != BlockCategory::Transform))
            return Error::atNode(node.id, QStringLiteral("only transforms, layers and composite blocks can be grouped; %1 is %2")
                                              .arg(node.id, block ? QStringLiteral("a %1 (%2)").arg(categoryName(block->category), node.block)
                                                                  : QStringLiteral("of an unknown block")));
        inner.nodes.append(node);
        topLeft = QPointF(std::min(topLeft.x(), node.pos.x()), std::min(topLeft.y(), node.pos.y()));
    }
    if (inner.nodes.size() != inside.size())
        return Error(QStringLiteral("a node to group is not in the preset"));
    for (Node &node : inner.nodes)
        node.pos -= topLeft - QPointF(40, 40);

    // Crossing edges, grouped: one input port per outside source, one output port per inside source.
    QList<Endpoint> sources, innerSources;
    QHash<QString, QList<Endpoint>> fed;          // outside source -> inner inputs it feeds
    QHash<QString, QList<Endpoint>> feeding;      // inner source -> outside inputs it feeds
    for (const Edge &edge : preset.graph.edges) {
        const bool from = inside.contains(edge.from.node), to = inside.contains(edge.to.node);
        if (from && to) {
            inner.edges.append(edge);
        } else if (to) {
            if (!fed.contains(edge.from.toString()))
                sources.append(edge.from);
            fed[edge.from.toString()].append(edge.to);
        } else if (from) {
            if (!feeding.contains(edge.from.toString()))
                innerSources.append(edge.from);
            feeding[edge.from.toString()].append(edge.to);
        }
    }
    if (sources.isEmpty())
        return Error(QStringLiteral("nothing outside feeds the selected nodes: a block needs an input"));
    if (innerSources.isEmpty())
        return Error(QStringLiteral("the selected nodes feed nothing outside: a block needs an output"));

    Grouping out;
    out.blockName = freshBlockName(preset);
    PipelineGraph rest = preset.graph;
    rest.nodes.erase(std::remove_if(rest.nodes.begin(), rest.nodes.end(), [&](const Node &n) { return inside.contains(n.id); }),
                     rest.nodes.end());
    out.node.id = rest.uniqueId(QStringLiteral("group"));
    out.node.block = out.blockName;
    out.node.pos = topLeft;

    CompositeDefinition definition;
    definition.name = out.blockName;
    definition.graph = inner;
    for (int i = 0; i < sources.size(); ++i) {
        const QString port = portName(QStringLiteral("in"), i, int(sources.size()));
        definition.inputs.insert(port, fed.value(sources.at(i).toString()));
        out.edges.append(Edge{sources.at(i), Endpoint{out.node.id, port}});
    }
    for (int i = 0; i < innerSources.size(); ++i) {
        const QString port = portName(QStringLiteral("out"), i, int(innerSources.size()));
        definition.outputs.insert(port, innerSources.at(i));
        for (const Endpoint &target : feeding.value(innerSources.at(i).toString()))
            out.edges.append(Edge{Endpoint{out.node.id, port}, target});
    }
    out.definition = compositeToJson(definition);
    return out;
}

Result<Ungrouping> ungroupComposite(const Preset &preset, const QString &nodeId)
{
    const Node *node = preset.graph.node(nodeId);
    if (!node)
        return Error(QStringLiteral("no node \"%1\"").arg(nodeId));
    if (!preset.blocks.contains(node->block))
        return Error::atNode(nodeId, QStringLiteral("%1 is not a composite block (%2)").arg(nodeId, node->block));
    if (node->repeat != 1)
        return Error::atNode(nodeId, QStringLiteral("%1 repeats %2 times: set repeat to 1 to ungroup it").arg(nodeId).arg(node->repeat),
                             QStringLiteral("repeat"));
    const Result<CompositeDefinition> parsed = compositeDefinition(preset, node->block);
    if (!parsed)
        return parsed.error();
    const CompositeDefinition &definition = parsed.value();
    // The node's values, bound as expansion binds them.
    QList<Error> problems;
    const PipelineGraph inner = bindComposite(definition, node->params, &problems);
    if (!problems.isEmpty())
        return Error::atNode(nodeId, problems.first().message, problems.first().field);

    // The inner nodes keep their ids (so grouping and ungrouping again gives back the ids the user chose, and
    // their --set keys); an id the graph without the composite node already has becomes NODE_INNER (made unique).
    PipelineGraph taken = preset.graph;
    taken.nodes.removeAt(taken.indexOf(nodeId));
    QHash<QString, QString> ids;
    Ungrouping out;
    for (Node innerNode : inner.nodes) {
        const QString id = taken.node(innerNode.id) ? taken.uniqueId(nodeId + QLatin1Char('_') + innerNode.id) : innerNode.id;
        ids.insert(innerNode.id, id);
        innerNode.id = id;
        innerNode.pos += node->pos - QPointF(40, 40);
        taken.nodes.append(innerNode);
        out.nodes.append(innerNode);
    }
    auto renamed = [&](const Endpoint &e) { return Endpoint{ids.value(e.node), e.port}; };
    for (const Edge &edge : inner.edges)
        out.edges.append(Edge{renamed(edge.from), renamed(edge.to)});
    for (const Edge &edge : preset.graph.edges) {
        if (edge.to.node == nodeId)
            for (const Endpoint &target : definition.inputs.value(edge.to.port))
                out.edges.append(Edge{edge.from, renamed(target)});
        if (edge.from.node == nodeId && definition.outputs.contains(edge.from.port))
            out.edges.append(Edge{renamed(definition.outputs.value(edge.from.port)), edge.to});
    }
    return out;
}

QList<InnerParam> innerParams(const Preset &preset, const QString &block)
{
    QList<InnerParam> out;
    const Result<CompositeDefinition> definition = compositeDefinition(preset, block);
    if (!definition)
        return out;
    const BlockRegistry registry = presetBlockRegistry(preset);
    QHash<QString, QString> exposed;  // "NODE.PARAM" -> exposed name
    for (const ExposedParam &param : definition.value().params)
        for (const QString &bind : param.bind)
            exposed.insert(bind, param.spec.name);
    for (const Node &node : definition.value().graph.nodes) {
        const BlockDescriptor *descriptor = registry.find(node.block);
        if (!descriptor)
            continue;
        for (const ParamSpec &spec : descriptor->params) {
            const QString path = node.id + QLatin1Char('.') + spec.name;
            out.append(InnerParam{path, spec, descriptor->value(node.params, spec.name), exposed.value(path)});
        }
    }
    return out;
}

Result<QJsonObject> exposeInnerParam(const Preset &preset, const QString &block, const QString &path, QString *exposedName)
{
    if (!preset.blocks.contains(block))
        return Error(QStringLiteral("%1 is not a composite block of the preset").arg(block));
    const QList<InnerParam> params = innerParams(preset, block);
    const auto found = std::find_if(params.begin(), params.end(), [&](const InnerParam &p) { return p.path == path; });
    if (found == params.end())
        return Error(QStringLiteral("%1 has no inner parameter \"%2\"").arg(block, path));
    if (!found->exposedAs.isEmpty())
        return Error(QStringLiteral("%1 is exposed already, as %2").arg(path, found->exposedAs));
    QJsonObject definition = preset.blocks.value(block).toObject();
    QJsonObject exposed = definition.value(QStringLiteral("params")).toObject();
    QString name = found->spec.name;
    if (exposed.contains(name))
        name = QString(path).replace(QLatin1Char('.'), QLatin1Char('_'));
    for (int i = 2; exposed.contains(name); ++i)
        name = QString(path).replace(QLatin1Char('.'), QLatin1Char('_')) + QString::number(i);
    CompositeDefinition one;
    ExposedParam param{found->spec, {path}};
    param.spec.name = name;
    param.spec.defaultValue = found->value;
    one.params.append(param);
    const QJsonObject written = compositeToJson(one).value(QStringLiteral("params")).toObject();
    exposed.insert(name, written.value(name));
    definition.insert(QStringLiteral("params"), exposed);
    if (exposedName)
        *exposedName = name;
    return definition;
}

} // namespace ty
