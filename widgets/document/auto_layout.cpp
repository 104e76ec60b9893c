#include "auto_layout.h"

#include "block_registry.h"
#include "graph_order.h"

#include <QMap>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ty {

namespace {

qreal roundUp(qreal value, qreal grid)
{
    return grid > 0 ? std::ceil(value / grid - 1e-9) * grid : value;
}

// Depth per node, with sources that feed only deeper nodes pulled right next to their first consumer.
QHash<QString, int> columnsOf(const PipelineGraph &graph)
{
    QHash<QString, int> depth = nodeDepths(graph);
    for (const Node &node : graph.nodes) {
        if (!graph.edgesInto(node.id).isEmpty())
            continue;
        int nearest = std::numeric_limits<int>::max();
        for (const Edge &edge : graph.edgesFrom(node.id))
            nearest = std::min(nearest, depth.value(edge.to.node, 0));
        if (nearest != std::numeric_limits<int>::max())
            depth[node.id] = std::max(0, nearest - 1);
    }
    return depth;
}

// The node feeding `node`'s first connected input, in the block's port order.
QString firstSource(const PipelineGraph &graph, const Node &node)
{
    const QList<Edge> in = graph.edgesInto(node.id);
    if (in.isEmpty())
        return QString();
    if (const BlockDescriptor *block = BlockRegistry::builtin().find(node.block)) {
        for (const PortSpec &port : block->inputs)
            for (const Edge &edge : in)
                if (edge.to.port == port.name)
                    return edge.from.node;
    }
    return in.first().from.node;
}

} // namespace

QHash<QString, QPointF> autoLayout(const PipelineGraph &graph, const QHash<QString, QSizeF> &sizes,
                                   const LayoutOptions &options)
{
    const QHash<QString, int> column = columnsOf(graph);
    QMap<int, QList<const Node *>> columns;  // in graph order within each column
    for (const Node &node : graph.nodes)
        columns[column.value(node.id, 0)].append(&node);
    auto sizeOf = [&](const QString &id) { return sizes.value(id, options.defaultSize); };

    QHash<QString, QPointF> positions;
    qreal x = options.origin.x();
    for (auto it = columns.begin(); it != columns.end(); ++it) {
        // Where each node would like its top: level with the node feeding its first input.
        QList<QPair<qreal, const Node *>> wanted;
        for (const Node *node : it.value()) {
            const QString source = firstSource(graph, *node);
            const qreal y = positions.contains(source) ? positions.value(source).y()
                                                       : std::numeric_limits<qreal>::max();
            wanted.append({y, node});
        }
        std::stable_sort(wanted.begin(), wanted.end(),
                         [](const auto &a, const auto &b) { return a.first < b.first; });

        qreal nextFree = options.origin.y();
        qreal width = 0;
        for (const auto &[wantedY, node] : wanted) {
            const QSizeF size = sizeOf(node->id);
            const qreal y = roundUp(std::max(wantedY == std::numeric_limits<qreal>::max() ? nextFree : wantedY,
                                             nextFree), options.grid);
            positions.insert(node->id, QPointF(x, y));
            nextFree = y + size.height() + options.rowGap;
            width = std::max(width, size.width());
        }
        x = roundUp(x + width + options.columnGap, options.grid);
    }
    return positions;
}

} // namespace ty
