#pragma once
// Auto-arrange: node positions that lay a pipeline out left to right by topological depth (nodeDepths), one
// column per depth. A source that only feeds later nodes (a schedule) moves right next to its first consumer;
// within a column each node lines up with the node feeding its first input, so chains run straight, and the
// rest stack below without overlapping. A pipeline too long for the view wraps into rows of columns, one row
// under the other, as many as show the whole layout largest in a view of the given aspect ratio (when that is
// clearly larger than one row): a 200-node chain becomes a block of rows instead of one line that fits only at
// an unreadable zoom. Pure function of the
// graph and the drawn node sizes.

#include "pipeline_graph.h"

#include <QHash>
#include <QPointF>
#include <QSizeF>

namespace ty {

struct LayoutOptions {
    QPointF origin{40, 40};
    qreal columnGap = 60;
    qreal nodeGap = 40;            // between nodes in one column
    qreal grid = 20;               // positions are multiples of it (0: no rounding)
    QSizeF defaultSize{160, 80};   // for nodes missing from `sizes`
    qreal aspect = 1.6;            // width / height of the view: long pipelines wrap into rows to fit it
    qreal rowGap = 100;            // between wrapped rows, room for the edges running back to the next row
};

// Top-left position of every node.
QHash<QString, QPointF> autoLayout(const PipelineGraph &graph, const QHash<QString, QSizeF> &sizes = {},
                                   const LayoutOptions &options = {});

} // namespace ty
