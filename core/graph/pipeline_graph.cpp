#include "pipeline_graph.h"

#include <QRegularExpression>

namespace ty {

bool Node::operator==(const Node &other) const
{
    return id == other.id && block == other.block && params == other.params && pos == other.pos
        && repeat == other.repeat;
}

bool Endpoint::parse(const QString &text, Endpoint *out)
{
    const int dot = text.lastIndexOf(QLatin1Char('.'));
    if (dot <= 0 || dot == text.size() - 1)
        return false;
    out->node = text.left(dot);
    out->port = text.mid(dot + 1);
    return true;
}

const Node *PipelineGraph::node(const QString &id) const
{
    const int i = indexOf(id);
    return i < 0 ? nullptr : &nodes.at(i);
}

Node *PipelineGraph::node(const QString &id)
{
    const int i = indexOf(id);
    return i < 0 ? nullptr : &nodes[i];
}

int PipelineGraph::indexOf(const QString &id) const
{
    for (int i = 0; i < nodes.size(); ++i)
        if (nodes.at(i).id == id)
            return i;
    return -1;
}

QList<Edge> PipelineGraph::edgesInto(const QString &nodeId, const QString &port) const
{
    QList<Edge> out;
    for (const Edge &edge : edges)
        if (edge.to.node == nodeId && (port.isEmpty() || edge.to.port == port))
            out.append(edge);
    return out;
}

QList<Edge> PipelineGraph::edgesFrom(const QString &nodeId, const QString &port) const
{
    QList<Edge> out;
    for (const Edge &edge : edges)
        if (edge.from.node == nodeId && (port.isEmpty() || edge.from.port == port))
            out.append(edge);
    return out;
}

QString PipelineGraph::uniqueId(const QString &base) const
{
    if (indexOf(base) < 0)
        return base;
    for (int n = 2;; ++n) {
        const QString candidate = base + QString::number(n);
        if (indexOf(candidate) < 0)
            return candidate;
    }
}

GraphIndex::GraphIndex(const PipelineGraph &graph) : m_graph(graph)
{
    m_nodes.reserve(graph.nodes.size());
    for (int i = 0; i < graph.nodes.size(); ++i)
        if (!m_nodes.contains(graph.nodes.at(i).id))
            m_nodes.insert(graph.nodes.at(i).id, i);  // the first node of an id wins, as in PipelineGraph::node()
    for (int i = 0; i < graph.edges.size(); ++i) {
        m_into[graph.edges.at(i).to.node].append(i);
        m_from[graph.edges.at(i).from.node].append(i);
    }
}

const Node *GraphIndex::node(const QString &id) const
{
    const auto it = m_nodes.constFind(id);
    return it == m_nodes.constEnd() ? nullptr : &m_graph.nodes.at(*it);
}

QList<Edge> GraphIndex::edgesInto(const QString &nodeId, const QString &port) const
{
    QList<Edge> out;
    for (int i : m_into.value(nodeId))
        if (port.isEmpty() || m_graph.edges.at(i).to.port == port)
            out.append(m_graph.edges.at(i));
    return out;
}

QList<Edge> GraphIndex::edgesFrom(const QString &nodeId, const QString &port) const
{
    QList<Edge> out;
    for (int i : m_from.value(nodeId))
        if (port.isEmpty() || m_graph.edges.at(i).from.port == port)
            out.append(m_graph.edges.at(i));
    return out;
}

bool isValidNodeId(const QString &id)
{
    static const QRegularExpression pattern(QStringLiteral("\\A[A-Za-z_][A-Za-z0-9_]*\\z"));
    return pattern.match(id).hasMatch();
}

bool isValidNodePath(const QString &path)
{
    static const QRegularExpression index(QStringLiteral("\\A(0|[1-9][0-9]{0,3})\\z"));
    const QStringList parts = path.split(QLatin1Char('/'));
    for (int i = 0; i < parts.size(); ++i)
        if (!isValidNodeId(parts.at(i)) && (i == 0 || !index.match(parts.at(i)).hasMatch()))
            return false;
    return true;
}

} // namespace ty
