#pragma once
// The pipeline graph: nodes (an id, a block type, explicit parameter values, a canvas position) and edges
// from `node.port` to `node.port`. A plain value type; the document and the engine both work on copies.

#include <QJsonObject>
#include <QHash>
#include <QList>
#include <QPointF>
#include <QString>

namespace ty {

struct Node {
    QString id;          // human name, a valid identifier: conv1, opt
    QString block;       // block type id: layer.conv2d
    QJsonObject params;  // explicit values only; missing parameters take the block's defaults
    QPointF pos;         // canvas position
    int repeat = 1;      // a composite block stacked this many times in a chain (docs/presets.md)

    bool operator==(const Node &other) const;
};

struct Endpoint {
    QString node;
    QString port;

    QString toString() const { return node + QLatin1Char('.') + port; }
    static bool parse(const QString &text, Endpoint *out);  // "conv1.out"
    bool operator==(const Endpoint &other) const { return node == other.node && port == other.port; }
};

struct Edge {
    Endpoint from;  // an output port
    Endpoint to;    // an input port

    bool operator==(const Edge &other) const { return from == other.from && to == other.to; }
};

class PipelineGraph {
public:
    QList<Node> nodes;
    QList<Edge> edges;

    const Node *node(const QString &id) const;
    Node *node(const QString &id);
    int indexOf(const QString &id) const;
    // Edges arriving at `nodeId` (optionally only at `port`), and leaving it.
    QList<Edge> edgesInto(const QString &nodeId, const QString &port = QString()) const;
    QList<Edge> edgesFrom(const QString &nodeId, const QString &port = QString()) const;
    // A fresh id "base", "base2", "base3", ... not used by any node.
    QString uniqueId(const QString &base) const;

    bool operator==(const PipelineGraph &other) const { return nodes == other.nodes && edges == other.edges; }
};

// The lookups of PipelineGraph in constant time, for code that walks a whole graph (validation, ordering,
// planning): PipelineGraph's own scan the lists, which made validating N nodes take N² steps. Built once from a
// graph that must outlive it and stay unchanged meanwhile. With duplicate ids, node() finds the first.
class GraphIndex {
public:
    explicit GraphIndex(const PipelineGraph &graph);
    const Node *node(const QString &id) const;
    QList<Edge> edgesInto(const QString &nodeId, const QString &port = QString()) const;
    QList<Edge> edgesFrom(const QString &nodeId, const QString &port = QString()) const;

private:
    const PipelineGraph &m_graph;
    QHash<QString, int> m_nodes;              // id -> index of its first node
    QHash<QString, QList<int>> m_into, m_from;  // node id -> indices of its edges, in graph order
};

// Node ids are identifiers: a letter or underscore, then letters, digits or underscores.
bool isValidNodeId(const QString &id);
// Inside an expanded composite, nodes are named by their path: "stage2/unit1/conv1", "stage2/0/conv1" for a
// repeated one. Each part an id, or a repeat's index after the first.
bool isValidNodePath(const QString &path);
constexpr int kMaxRepeat = 1000;

} // namespace ty
