// Structural undo commands: add nodes, remove nodes and edges, connect, rename.

#include "document_commands.h"

#include "block_registry.h"

#include <QSet>

namespace ty {

DocumentCommand::DocumentCommand(PipelineDocument *document, const QString &text)
    : QUndoCommand(text), m_selectionBefore(document->selectedNodes()), m_document(document)
{
}

// --- AddNodesCommand

AddNodesCommand::AddNodesCommand(PipelineDocument *document, const PipelineGraph &fragment, const QString &text)
    : DocumentCommand(document, text), m_fragment(fragment)
{
}

void AddNodesCommand::redo()
{
    if (m_firstNode < 0) {
        m_firstNode = int(graph().nodes.size());
        m_firstEdge = int(graph().edges.size());
    }
    QStringList ids;
    for (int i = 0; i < m_fragment.nodes.size(); ++i) {
        insertNode(m_firstNode + i, m_fragment.nodes.at(i));
        ids << m_fragment.nodes.at(i).id;
    }
    for (int i = 0; i < m_fragment.edges.size(); ++i)
        insertEdge(m_firstEdge + i, m_fragment.edges.at(i));
    select(ids);
}

void AddNodesCommand::undo()
{
    for (int i = int(m_fragment.edges.size()) - 1; i >= 0; --i)
        removeEdgeAt(m_firstEdge + i);
    for (int i = int(m_fragment.nodes.size()) - 1; i >= 0; --i)
        removeNodeAt(m_firstNode + i);
    select(m_selectionBefore);
}

// --- RemoveItemsCommand

RemoveItemsCommand::RemoveItemsCommand(PipelineDocument *document, const QStringList &nodeIds,
                                       const QList<Edge> &edges, const QString &text)
    : DocumentCommand(document, text)
{
    const PipelineGraph &g = graph();
    const QSet<QString> removed(nodeIds.begin(), nodeIds.end());
    for (int i = 0; i < g.nodes.size(); ++i)
        if (removed.contains(g.nodes.at(i).id))
            m_nodes.insert(i, g.nodes.at(i));
    for (int i = 0; i < g.edges.size(); ++i) {
        const Edge &e = g.edges.at(i);
        if (removed.contains(e.from.node) || removed.contains(e.to.node))
            m_edges.insert(i, e);
    }
    for (const Edge &wanted : edges) {
        for (int i = 0; i < g.edges.size(); ++i) {
            if (g.edges.at(i) == wanted && !m_edges.contains(i)) {
                m_edges.insert(i, wanted);
                break;
            }
        }
    }
    if (text.isEmpty()) {
        if (m_nodes.isEmpty())
            setText(m_edges.size() == 1 ? QObject::tr("Disconnect %1").arg(m_edges.first().to.toString())
                                        : QObject::tr("Disconnect %n edges", nullptr, int(m_edges.size())));
        else
            setText(m_nodes.size() == 1 ? QObject::tr("Delete %1").arg(m_nodes.first().id)
                                        : QObject::tr("Delete %n nodes", nullptr, int(m_nodes.size())));
    }
}

void RemoveItemsCommand::redo()
{
    // Edges first (descending indices keep the lower ones valid), then nodes.
    for (auto it = m_edges.constEnd(); it != m_edges.constBegin();) {
        --it;
        removeEdgeAt(it.key());
    }
    for (auto it = m_nodes.constEnd(); it != m_nodes.constBegin();) {
        --it;
        removeNodeAt(it.key());
    }
    QStringList remaining;
    for (const QString &id : m_selectionBefore)
        if (graph().node(id))
            remaining << id;
    select(remaining);
}

void RemoveItemsCommand::undo()
{
    for (auto it = m_nodes.constBegin(); it != m_nodes.constEnd(); ++it)
        insertNode(it.key(), it.value());
    for (auto it = m_edges.constBegin(); it != m_edges.constEnd(); ++it)
        insertEdge(it.key(), it.value());
    select(m_selectionBefore);
}

// --- ConnectCommand

ConnectCommand::ConnectCommand(PipelineDocument *document, const Edge &edge)
    : DocumentCommand(document, QObject::tr("Connect %1 to %2").arg(edge.from.toString(), edge.to.toString())),
      m_edge(edge)
{
}

void ConnectCommand::redo()
{
    if (m_index < 0)
        m_index = int(graph().edges.size());
    insertEdge(m_index, m_edge);
}

void ConnectCommand::undo()
{
    removeEdgeAt(m_index);
}

// --- RenameNodeCommand

RenameNodeCommand::RenameNodeCommand(PipelineDocument *document, const QString &oldId, const QString &newId)
    : DocumentCommand(document, QObject::tr("Rename %1 to %2").arg(oldId, newId)), m_oldId(oldId), m_newId(newId)
{
}

void RenameNodeCommand::redo()
{
    setNodeId(m_oldId, m_newId);
    QStringList after = m_selectionBefore;
    for (QString &id : after)
        if (id == m_oldId)
            id = m_newId;
    select(after.contains(m_newId) ? after : QStringList{m_newId});
}

void RenameNodeCommand::undo()
{
    setNodeId(m_newId, m_oldId);
    select(m_selectionBefore);
}

} // namespace ty
