#pragma once
// Auto-arrange: node positions that lay a pipeline out left to right by topological depth (nodeDepths), one
// column per depth. A source that only feeds later nodes (a schedule) moves right next to its first consumer;
// within a column each node lines up with the node feeding its first input, so chains run straight, and the
// rest stack below without overlapping. Pure function of the graph and the drawn node sizes.

#include "pipeline_graph.h"

#include <QHash>
#include <QPointF>
#include <QSizeF>

namespace ty {

struct LayoutOptions {
    QPointF origin{40, 40};
    qreal columnGap = 60;
    qreal rowGap = 40;
    qreal grid = 20;               // positions are multiples of it (0: no rounding)
    QSizeF defaultSize{160, 80};   // for nodes missing from `sizes`
};

// Top-left position of every node.
QHash<QString, QPointF> autoLayout(const PipelineGraph &graph, const QHash<QString, QSizeF> &sizes = {},
                                   const LayoutOptions &options = {});

} // namespace ty
