#pragma once
// The undo commands of a PipelineDocument: every user edit is one of these, pushed on the document's stack.
// Each command records exactly what it needs to restore the graph to its previous state (node and edge
// indices included, so undo gives back an identical graph). Undo restores the selection from before the
// command; redo selects what the command is about (new nodes, the edited node, nothing for training settings).
//
// Ownership: the QUndoStack owns pushed commands; a command keeps a plain pointer to its document, which
// owns the stack and so outlives it. Thread affinity: the GUI thread.

#include "pipeline_document.h"

#include <QJsonObject>
#include <QMap>
#include <QUndoCommand>

namespace ty {

// Base: access to the document's mutators, and selection restore on undo and redo.
class DocumentCommand : public QUndoCommand {
public:
    DocumentCommand(PipelineDocument *document, const QString &text);

protected:
    PipelineDocument *document() const { return m_document; }
    const PipelineGraph &graph() const { return m_document->graph(); }
    void insertNode(int index, const Node &node) { m_document->insertNode(index, node); }
    void removeNodeAt(int index) { m_document->removeNodeAt(index); }
    void insertEdge(int index, const Edge &edge) { m_document->insertEdge(index, edge); }
    void removeEdgeAt(int index) { m_document->removeEdgeAt(index); }
    void setNodePos(const QString &id, const QPointF &pos) { m_document->setNodePos(id, pos); }
    void setNodeParams(const QString &id, const QJsonObject &params) { m_document->setNodeParams(id, params); }
    void setNodeId(const QString &oldId, const QString &newId) { m_document->setNodeId(oldId, newId); }
    void setTraining(const QJsonObject &training) { m_document->setTraining(training); }
    void setBlocks(const QJsonObject &blocks) { m_document->setBlocks(blocks); }
    void setPresetInfoFields(const PresetInfo &info)
    {
        m_document->setPresetInfoFields(info);
    }
    void select(const QStringList &ids) { m_document->setSelectedNodes(ids); }

    QStringList m_selectionBefore;  // the selection when the command was made

private:
    PipelineDocument *m_document;
};

// Adds nodes and the edges among them (a new block, or a paste); selects the new nodes.
class AddNodesCommand : public DocumentCommand {
public:
    AddNodesCommand(PipelineDocument *document, const PipelineGraph &fragment, const QString &text);
    void redo() override;
    void undo() override;

private:
    PipelineGraph m_fragment;
    int m_firstNode = -1;  // where the nodes and edges go: the end of the lists at first redo
    int m_firstEdge = -1;
};

// Removes nodes, every edge touching them, and further edges; undo puts each back at its index.
class RemoveItemsCommand : public DocumentCommand {
public:
    RemoveItemsCommand(PipelineDocument *document, const QStringList &nodeIds, const QList<Edge> &edges,
                       const QString &text);
    bool isEmpty() const { return m_nodes.isEmpty() && m_edges.isEmpty(); }
    void redo() override;
    void undo() override;

private:
    QMap<int, Node> m_nodes;  // by index in the graph before removal
    QMap<int, Edge> m_edges;
};

// Moves nodes. Keyboard nudges of the same nodes merge into one step.
class MoveNodesCommand : public DocumentCommand {
public:
    MoveNodesCommand(PipelineDocument *document, const QMap<QString, QPointF> &from,
                     const QMap<QString, QPointF> &to, MoveKind kind);
    int id() const override;
    bool mergeWith(const QUndoCommand *other) override;
    void redo() override;
    void undo() override;

private:
    void apply(const QMap<QString, QPointF> &positions);
    QMap<QString, QPointF> m_from, m_to;
    MoveKind m_kind;
};

// Adds one edge from an output to an input port.
class ConnectCommand : public DocumentCommand {
public:
    ConnectCommand(PipelineDocument *document, const Edge &edge);
    void redo() override;
    void undo() override;

private:
    Edge m_edge;
    int m_index = -1;
};

// Renames a node; every edge naming it follows.
class RenameNodeCommand : public DocumentCommand {
public:
    RenameNodeCommand(PipelineDocument *document, const QString &oldId, const QString &newId);
    void redo() override;
    void undo() override;

private:
    QString m_oldId, m_newId;
};

// Sets (or, with an undefined value, resets to its default) one parameter of a node. Consecutive edits of
// the same parameter within one edit session (typing in one field) merge.
class SetParamCommand : public DocumentCommand {
public:
    SetParamCommand(PipelineDocument *document, const QString &nodeId, const QString &param,
                    const QJsonValue &value, int session);
    int id() const override;
    bool mergeWith(const QUndoCommand *other) override;
    void redo() override;
    void undo() override;

private:
    QString m_nodeId, m_param;
    QJsonObject m_oldParams, m_newParams;
    int m_session;
};

// Sets (or resets) one training setting; merges like SetParamCommand. Shows the training settings (no
// selection) after undo and redo.
class SetTrainingCommand : public DocumentCommand {
public:
    SetTrainingCommand(PipelineDocument *document, const QString &key, const QJsonValue &value, int session);
    // Replaces the whole section (stages and the epochs they make unused change together); merges with commands
    // of the same `mergeKey` and session.
    SetTrainingCommand(PipelineDocument *document, const QJsonObject &training, const QString &text,
                       const QString &mergeKey, int session);
    int id() const override;
    bool mergeWith(const QUndoCommand *other) override;
    void redo() override;
    void undo() override;

private:
    QString m_key;
    QJsonObject m_old, m_new;
    int m_session;
};

// Replaces the preset's composite block definitions (a library block copied in).
class SetBlocksCommand : public DocumentCommand {
public:
    SetBlocksCommand(PipelineDocument *document, const QJsonObject &blocks, const QString &text);
    void redo() override { setBlocks(m_new); }
    void undo() override { setBlocks(m_old); }

private:
    QJsonObject m_old, m_new;
};

// Sets the preset's name and description; merges within one edit session.
class SetPresetInfoCommand : public DocumentCommand {
public:
    SetPresetInfoCommand(PipelineDocument *document, const PresetInfo &info, int session);
    int id() const override;
    bool mergeWith(const QUndoCommand *other) override;
    void redo() override;
    void undo() override;

private:
    PresetInfo m_old, m_new;
    int m_session;
};

} // namespace ty
