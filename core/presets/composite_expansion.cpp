#include "composite_expansion.h"

#include "block_registry.h"
#include "composite_blocks.h"
#include "preset_sections.h"
#include "param_values.h"

#include <QSet>

namespace ty {

namespace {

constexpr int kMaxNesting = 16;
// Nested repeats multiply: a preset of a few lines could ask for billions of nodes. Beyond this, expansion stops.
constexpr int kMaxExpandedNodes = 200000;

Issue issueAt(const QString &node, const QString &message, const QString &param = {}, const QString &port = {})
{
    return Issue{Severity::Error, message, node, port, param};
}

// A user's node id containing '/' would pass for a path inside a composite.
void checkTopLevelIds(const PipelineGraph &graph, Issues *issues)
{
    for (const Node &node : graph.nodes)
        if (node.id.contains(QLatin1Char('/')))
            issues->append(issueAt(node.id, QStringLiteral("invalid node id \"%1\": use letters, digits and underscores, "
                                                          "starting with a letter").arg(node.id)));
}

QString joinPath(const QString &prefix, const QString &id)
{
    return prefix.isEmpty() ? id : prefix + QLatin1Char('/') + id;
}

// The outer ports of an expanded composite node: each input port feeds these flat endpoints; each output
// port is this flat endpoint.
struct PortMap {
    QHash<QString, QList<Endpoint>> inputs;
    QHash<QString, Endpoint> outputs;
};

class Expander {
public:
    explicit Expander(const Preset &preset) : m_preset(preset)
    {
        for (auto it = preset.blocks.constBegin(); it != preset.blocks.constEnd(); ++it) {
            if (BlockRegistry::builtin().find(it.key())) {
                m_out.issues.append(issueAt({}, QStringLiteral("the composite block \"%1\" has the name of a built-in block").arg(it.key()),
                                            QStringLiteral("blocks.") + it.key()));
                continue;
            }
            Result<CompositeDefinition> definition = compositeDefinition(preset, it.key());
            if (definition)
                m_definitions.insert(it.key(), definition.value());
            else
                m_out.issues.append(issueAt({}, definition.error().message, definition.error().field));
        }
    }

    CompositeExpansion run()
    {
        m_out.preset = m_preset;
        m_out.preset.graph = PipelineGraph();
        checkTopLevelIds(m_preset.graph, &m_out.issues);
        expandGraph(m_preset.graph, QString(), QStringList());
        return std::move(m_out);
    }

private:
    // Appends the flat nodes and edges of `graph` (whose ids get `prefix`); returns the port maps of its
    // composite nodes, by their id in `graph`. `stack` holds the composites being expanded, outermost first.
    QHash<QString, PortMap> expandGraph(const PipelineGraph &graph, const QString &prefix, const QStringList &stack)
    {
        QHash<QString, PortMap> composites;
        QSet<QString> broken;
        for (const Node &node : graph.nodes) {
            if (tooLarge())
                return composites;
            const QString path = joinPath(prefix, node.id);
            const auto definition = m_definitions.constFind(node.block);
            if (definition == m_definitions.constEnd()) {
                if (m_preset.blocks.contains(node.block)) {  // a definition that did not parse: already reported
                    broken.insert(node.id);
                    continue;
                }
                // An unknown type is reported where blocks are checked; only a known built-in one is named so here.
                if (node.repeat != 1 && BlockRegistry::builtin().find(node.block))
                    m_out.issues.append(issueAt(path, QStringLiteral("repeat applies to composite blocks only (%1 is built in)").arg(node.block),
                                                QStringLiteral("repeat")));
                if (!prefix.isEmpty()) {
                    const BlockDescriptor *block = BlockRegistry::builtin().find(node.block);
                    if (block && block->category != BlockCategory::Transform && block->category != BlockCategory::Layer)
                        m_out.issues.append(issueAt(path, QStringLiteral("a composite block holds transforms, layers and composites only, not a %1 (%2)")
                                                              .arg(categoryName(block->category), node.block),
                                                    QStringLiteral("block")));
                }
                Node flat = node;
                flat.id = path;
                flat.repeat = 1;
                m_out.preset.graph.nodes.append(flat);
                continue;
            }
            if (stack.contains(node.block) || stack.size() >= kMaxNesting) {
                m_out.issues.append(issueAt(path, stack.contains(node.block)
                                                      ? QStringLiteral("the composite block %1 contains itself (%2)")
                                                            .arg(node.block, (stack + QStringList{node.block}).join(QStringLiteral(" > ")))
                                                      : QStringLiteral("composite blocks nest more than %1 deep").arg(kMaxNesting),
                                            QStringLiteral("block")));
                broken.insert(node.id);
                continue;
            }
            std::optional<PortMap> ports = expandComposite(node, path, definition.value(), stack);
            if (ports)
                composites.insert(node.id, *ports);
            else
                broken.insert(node.id);
        }
        for (const Edge &edge : graph.edges) {
            if (broken.contains(edge.from.node) || broken.contains(edge.to.node))
                continue;
            Endpoint from{joinPath(prefix, edge.from.node), edge.from.port};
            QList<Endpoint> targets{Endpoint{joinPath(prefix, edge.to.node), edge.to.port}};
            if (const auto it = composites.constFind(edge.from.node); it != composites.constEnd()) {
                if (!it->outputs.contains(edge.from.port)) {
                    m_out.issues.append(portIssue(from, graph.node(edge.from.node)->block, false));
                    continue;
                }
                from = it->outputs.value(edge.from.port);
            }
            if (const auto it = composites.constFind(edge.to.node); it != composites.constEnd()) {
                if (!it->inputs.contains(edge.to.port)) {
                    m_out.issues.append(portIssue(targets.first(), graph.node(edge.to.node)->block, true));
                    continue;
                }
                targets = it->inputs.value(edge.to.port);
            }
            for (const Endpoint &to : targets)
                m_out.preset.graph.edges.append(Edge{from, to});
        }
        return composites;
    }

    Issue portIssue(const Endpoint &at, const QString &block, bool input) const
    {
        const CompositeDefinition &definition = m_definitions[block];
        const QStringList ports = input ? definition.inputs.keys() : definition.outputs.keys();
        return issueAt(at.node, QStringLiteral("%1 has no %2 port \"%3\" (%4: %5)")
                                    .arg(block, input ? QStringLiteral("input") : QStringLiteral("output"), at.port,
                                         input ? QStringLiteral("inputs") : QStringLiteral("outputs"), ports.join(QStringLiteral(", "))),
                       {}, at.port);
    }

    std::optional<PortMap> expandComposite(const Node &node, const QString &path, const CompositeDefinition &definition,
                                           const QStringList &stack)
    {
        if (node.repeat > 1 && (definition.inputs.size() != 1 || definition.outputs.size() != 1)) {
            m_out.issues.append(issueAt(path, QStringLiteral("repeat stacks a block with one input and one output; %1 has %2 and %3")
                                                  .arg(node.block).arg(definition.inputs.size()).arg(definition.outputs.size()),
                                        QStringLiteral("repeat")));
            return std::nullopt;
        }
        QList<Error> problems;
        const PipelineGraph inner = bindComposite(definition, node.params, &problems);
        for (const Error &problem : problems)
            m_out.issues.append(issueAt(path, problem.message, problem.field));
        if (!problems.isEmpty())
            return std::nullopt;
        PortMap outer;
        const QStringList innerStack = stack + QStringList{node.block};
        for (int copy = 0; copy < node.repeat && !tooLarge(); ++copy) {
            const QString copyPath = node.repeat == 1 ? path : joinPath(path, QString::number(copy));
            const int useIndex = m_out.uses.size();
            m_out.uses.append(CompositeUse{copyPath, node.block, {}});
            const QHash<QString, PortMap> nested = expandGraph(inner, copyPath, innerStack);
            PortMap ports;
            for (auto it = definition.inputs.constBegin(); it != definition.inputs.constEnd(); ++it)
                for (const Endpoint &e : it.value()) {
                    if (const auto n = nested.constFind(e.node); n != nested.constEnd())
                        ports.inputs[it.key()] += n->inputs.value(e.port);
                    else
                        ports.inputs[it.key()].append(Endpoint{joinPath(copyPath, e.node), e.port});
                }
            for (auto it = definition.outputs.constBegin(); it != definition.outputs.constEnd(); ++it) {
                const Endpoint &e = it.value();
                const auto n = nested.constFind(e.node);
                ports.outputs.insert(it.key(), n != nested.constEnd() ? n->outputs.value(e.port)
                                                                       : Endpoint{joinPath(copyPath, e.node), e.port});
            }
            m_out.uses[useIndex].outputNode = ports.outputs.value(definition.outputs.firstKey()).node;
            if (copy == 0) {
                outer.inputs = ports.inputs;
            } else {  // the previous copy's output feeds this copy's input
                const Endpoint previous = outer.outputs.value(definition.outputs.firstKey());
                for (const Endpoint &to : ports.inputs.value(definition.inputs.firstKey()))
                    m_out.preset.graph.edges.append(Edge{previous, to});
            }
            outer.outputs = ports.outputs;
        }
        if (node.repeat > 1) {  // the whole stack, as a use of its own: the repeated node as the canvas shows it
            m_out.uses.append(CompositeUse{path, node.block, outer.outputs.value(definition.outputs.firstKey()).node});
        }
        return outer;
    }

    bool tooLarge()
    {
        if (m_out.preset.graph.nodes.size() < kMaxExpandedNodes)
            return false;
        if (!m_tooLarge)
            m_out.issues.append(issueAt({}, QStringLiteral("the composite blocks expand to more than %1 nodes (repeat multiplies nested blocks)")
                                                .arg(kMaxExpandedNodes),
                                        QStringLiteral("blocks")));
        m_tooLarge = true;
        return true;
    }

    const Preset &m_preset;
    QHash<QString, CompositeDefinition> m_definitions;
    CompositeExpansion m_out;
    bool m_tooLarge = false;
};

} // namespace

CompositeExpansion expandComposites(const Preset &preset)
{
    bool repeated = false;
    for (const Node &node : preset.graph.nodes)
        repeated = repeated || node.repeat != 1;
    if (preset.blocks.isEmpty() && !repeated) {
        CompositeExpansion out;
        out.preset = preset;
        checkTopLevelIds(preset.graph, &out.issues);
        return out;
    }
    return Expander(preset).run();
}

QString tensorName(const QString &nodePath, const QString &tensor)
{
    QString name = nodePath;
    name.replace(QLatin1Char('/'), QLatin1Char('.'));
    return name + QLatin1Char('.') + tensor;
}

bool isWithinAny(const QString &path, const QStringList &ids)
{
    for (const QString &id : ids)
        if (path == id || (path.startsWith(id) && path.size() > id.size() && path.at(id.size()) == QLatin1Char('/')))
            return true;
    return false;
}

QString topLevelNode(const QString &nodePath)
{
    const int slash = nodePath.indexOf(QLatin1Char('/'));
    return slash < 0 ? nodePath : nodePath.left(slash);
}

} // namespace ty
