#pragma once

#include "pipeline_graph.h"

#include <QStringList>

namespace ty {

// Node ids in an order where every edge goes forward (Kahn's algorithm; ties keep the graph's node order).
// Returns false and fills `cycle` with the ids left on a cycle when there is none.
bool topologicalOrder(const PipelineGraph &graph, QStringList *order, QStringList *cycle = nullptr);

// Depth of each node: 0 for nodes without inputs, else 1 + the deepest predecessor. For auto-arrange.
QHash<QString, int> nodeDepths(const PipelineGraph &graph);

} // namespace ty
