#include "auto_layout.h"

#include "block_registry.h"
#include "graph_order.h"

#include <QMap>

#include <algorithm>
#include <cmath>
#include <functional>
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

// Moves whole columns into rows laid one under the other, when one long row would be far wider than the
// view's aspect: `columns` holds each column's node ids and `left`/`right` its extent, in column order.
void wrapIntoRows(QHash<QString, QPointF> &positions, const QList<QStringList> &columns, const QList<qreal> &left,
                  qreal right, const std::function<QSizeF(const QString &)> &sizeOf, const LayoutOptions &options)
{
    if (columns.size() < 2 || positions.isEmpty())
        return;
    qreal top = std::numeric_limits<qreal>::max(), bottom = std::numeric_limits<qreal>::lowest();
    for (auto it = positions.cbegin(); it != positions.cend(); ++it) {
        top = std::min(top, it.value().y());
        bottom = std::max(bottom, it.value().y() + sizeOf(it.key()).height());
    }
    const qreal width = right - left.first();
    const qreal rowHeight = bottom - top + options.rowGap;
    // r rows give a layout about (width / r) wide and (r * rowHeight) high; pick r for the wanted aspect.
    const int rows = std::clamp(int(std::lround(std::sqrt(width / (rowHeight * std::max(options.aspect, 0.1))))), 1,
                                int(columns.size()));
    // Two rows would cost a back edge across the whole width for a layout only somewhat too wide (the bundled
    // presets); wrapping pays for pipelines several times longer than the view.
    if (rows < 3)
        return;
    const int perRow = int(std::ceil(double(columns.size()) / rows));
    qreal rowTop = options.origin.y();
    for (int first = 0; first < columns.size(); first += perRow) {
        const int last = std::min(int(columns.size()), first + perRow);
        qreal minY = std::numeric_limits<qreal>::max(), maxY = std::numeric_limits<qreal>::lowest();
        for (int c = first; c < last; ++c)
            for (const QString &id : columns.at(c)) {
                minY = std::min(minY, positions.value(id).y());
                maxY = std::max(maxY, positions.value(id).y() + sizeOf(id).height());
            }
        const QPointF shift(options.origin.x() - left.at(first), rowTop - minY);
        for (int c = first; c < last; ++c)
            for (const QString &id : columns.at(c))
                positions[id] += shift;
        rowTop = roundUp(rowTop + (maxY - minY) + options.rowGap, options.grid);
    }
}

} // namespace

QHash<QString, QPointF> autoLayout(const PipelineGraph &graph, const QHash<QString, QSizeF> &sizes,
                                   const LayoutOptions &options)
{
    const QHash<QString, int> column = columnsOf(graph);
    QMap<int, QList<const Node *>> columns;  // in graph order within each column
    for (const Node &node : graph.nodes)
        columns[column.value(node.id, 0)].append(&node);
    const std::function<QSizeF(const QString &)> sizeOf = [&](const QString &id) {
        return sizes.value(id, options.defaultSize);
    };
    QList<QStringList> columnIds;
    QList<qreal> columnLeft;

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
        columnIds.append(QStringList());
        columnLeft.append(x);
        for (const auto &[wantedY, node] : wanted) {
            columnIds.last().append(node->id);
            const QSizeF size = sizeOf(node->id);
            const qreal y = roundUp(std::max(wantedY == std::numeric_limits<qreal>::max() ? nextFree : wantedY,
                                             nextFree), options.grid);
            positions.insert(node->id, QPointF(x, y));
            nextFree = y + size.height() + options.nodeGap;
            width = std::max(width, size.width());
        }
        x = roundUp(x + width + options.columnGap, options.grid);
    }
    wrapIntoRows(positions, columnIds, columnLeft, x - options.columnGap, sizeOf, options);
    return positions;
}

} // namespace ty
