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

// How many columns per row show the layout largest in a view of `aspect` (width / height): each row is as
// tall as its tallest column, rows stack with `rowGap` between them.
int bestColumnsPerRow(const QList<qreal> &left, const QList<qreal> &right, const QList<qreal> &top,
                      const QList<qreal> &bottom, const LayoutOptions &options)
{
    const int count = int(left.size());
    const qreal aspect = std::max(options.aspect, 0.1);
    // The zoom that fits `perRow` columns per row into a view 1 unit high and `aspect` units wide.
    const auto fitFor = [&](int perRow) {
        qreal width = 0, height = -options.rowGap;
        for (int first = 0; first < count; first += perRow) {
            const int last = std::min(count, first + perRow) - 1;
            qreal rowTop = std::numeric_limits<qreal>::max(), rowBottom = std::numeric_limits<qreal>::lowest();
            for (int c = first; c <= last; ++c) {
                rowTop = std::min(rowTop, top.at(c));
                rowBottom = std::max(rowBottom, bottom.at(c));
            }
            width = std::max(width, right.at(last) - left.at(first));
            height += rowBottom - rowTop + options.rowGap;
        }
        return std::min(aspect / std::max(width, 1.0), 1.0 / std::max(height, 1.0));
    };
    int best = count;
    qreal bestFit = fitFor(count);
    const qreal oneRow = bestFit;
    // Up to 256 rows: linear in the columns, however long the pipeline.
    for (int rows = 2; rows <= std::min(count, 256); ++rows) {
        const int perRow = (count + rows - 1) / rows;
        if (const qreal fit = fitFor(perRow); perRow < best && fit > bestFit) {
            best = perRow;
            bestFit = fit;
        }
    }
    // Each wrap costs an edge running back across the row: only worth it when the layout shows clearly larger.
    return bestFit >= oneRow * 1.25 ? best : count;
}

// Moves whole columns into rows laid one under the other, when one long row would show far smaller than
// rows in the view's aspect: `columns` holds each column's node ids and `left` its left edge, in column order.
void wrapIntoRows(QHash<QString, QPointF> &positions, const QList<QStringList> &columns, const QList<qreal> &left,
                  const std::function<QSizeF(const QString &)> &sizeOf, const LayoutOptions &options)
{
    if (columns.size() < 2 || positions.isEmpty())
        return;
    QList<qreal> right, top, bottom;
    for (int c = 0; c < columns.size(); ++c) {
        qreal r = left.at(c), t = std::numeric_limits<qreal>::max(), b = std::numeric_limits<qreal>::lowest();
        for (const QString &id : columns.at(c)) {
            const QSizeF size = sizeOf(id);
            r = std::max(r, positions.value(id).x() + size.width());
            t = std::min(t, positions.value(id).y());
            b = std::max(b, positions.value(id).y() + size.height());
        }
        right << r;
        top << t;
        bottom << b;
    }
    const int perRow = bestColumnsPerRow(left, right, top, bottom, options);
    if (perRow >= columns.size())
        return;
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
    wrapIntoRows(positions, columnIds, columnLeft, sizeOf, options);
    return positions;
}

} // namespace ty
