#include "pipeline_graph.h"


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

// Plain character tests, no regular expression: a QRegularExpression's first match on a thread registers a
// thread-local JIT stack, which waits for the dynamic loader's lock, and trainyard-cli validates its preset on
// one thread while another loads LibTorch (app/cli/run_data_prefetch.h).
namespace {

bool isNodeId(QStringView id)
{
    const auto letter = [](QChar c) { return (c >= u'A' && c <= u'Z') || (c >= u'a' && c <= u'z') || c == u'_'; };
    if (id.isEmpty() || !letter(id.front()))
        return false;
    for (const QChar c : id)
        if (!letter(c) && !(c >= u'0' && c <= u'9'))
            return false;
    return true;
}

} // namespace

bool isValidNodeId(const QString &id)
{
    return isNodeId(id);
}

bool isValidNodePath(const QString &path)
{
    // A step into a repeated block: 0, or 1 to 9999 without a leading zero.
    const auto isIndex = [](QStringView part) {
        if (part.isEmpty() || part.size() > 4 || (part.size() > 1 && part.front() == u'0'))
            return false;
        for (const QChar c : part)
            if (!(c >= u'0' && c <= u'9'))
                return false;
        return true;
    };
    int i = 0;
    for (const QStringView part : QStringView(path).split(QLatin1Char('/'))) {
        if (!isNodeId(part) && (i == 0 || !isIndex(part)))
            return false;
        ++i;
    }
    return true;
}

} // namespace ty
