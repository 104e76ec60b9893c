#include "graph_order.h"

#include <QHash>
#include <QSet>

namespace ty {

bool topologicalOrder(const PipelineGraph &graph, QStringList *order, QStringList *cycle)
{
    QHash<QString, int> inDegree;
    QHash<QString, QStringList> successors;
    for (const Node &node : graph.nodes)
        inDegree.insert(node.id, 0);
    for (const Edge &edge : graph.edges) {
        if (!inDegree.contains(edge.from.node) || !inDegree.contains(edge.to.node))
            continue;  // dangling edges are reported by validation
        ++inDegree[edge.to.node];
        successors[edge.from.node].append(edge.to.node);
    }
    order->clear();
    QStringList ready;
    for (const Node &node : graph.nodes)
        if (inDegree.value(node.id) == 0)
            ready.append(node.id);
    while (!ready.isEmpty()) {
        const QString id = ready.takeFirst();
        order->append(id);
        for (const QString &next : successors.value(id))
            if (--inDegree[next] == 0)
                ready.append(next);
    }
    if (order->size() == graph.nodes.size())
        return true;
    if (cycle) {
        // Nodes left over are on a cycle or downstream of one: peel off those that feed no other left-over
        // node until only the cycles (and paths between them) remain.
        QSet<QString> left;
        for (const Node &node : graph.nodes)
            if (inDegree.value(node.id) > 0)
                left.insert(node.id);
        for (bool changed = true; changed;) {
            changed = false;
            for (auto it = left.begin(); it != left.end();) {
                bool feedsLeft = false;
                for (const QString &next : successors.value(*it))
                    feedsLeft = feedsLeft || left.contains(next);
                if (feedsLeft) {
                    ++it;
                } else {
                    it = left.erase(it);
                    changed = true;
                }
            }
        }
        cycle->clear();
        for (const Node &node : graph.nodes)
            if (left.contains(node.id))
                cycle->append(node.id);
    }
    return false;
}

QHash<QString, int> nodeDepths(const PipelineGraph &graph)
{
    QStringList order;
    topologicalOrder(graph, &order);
    QHash<QString, int> depth;
    const GraphIndex index(graph);
    for (const QString &id : order) {
        int d = 0;
        for (const Edge &edge : index.edgesInto(id))
            d = std::max(d, depth.value(edge.from.node, 0) + 1);
        depth.insert(id, d);
    }
    return depth;
}

} // namespace ty
