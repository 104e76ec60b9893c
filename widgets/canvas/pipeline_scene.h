#pragma once
// The canvas scene: a projection of a PipelineDocument's graph, with one NodeItem per node and one EdgeItem
// per edge, keyed by id. It only listens to the document's change signals to build and update items; every
// user gesture (connect, move, delete, paste, arrange) becomes a call of the document's edit API, i.e. an undo
// command. The scene and the document share the node selection (both ways). Nodes frozen in the training stage
// the inspector shows (PipelineDocument::shownStage) carry a lock badge.
//
// Gestures handled here: drag from a port to a port of the other direction to connect (refused connections
// say why, in the status bar and a tooltip); drag from a connected input to re-wire or drop its edge; node
// drags (one undo step each, snapped to the grid); arrow keys nudge; Delete removes the selection.
//
// Ownership: the scene owns its items; the document is not owned and must outlive the scene.
// Thread affinity: the GUI thread.

#include "pipeline_graph.h"

#include <QGraphicsScene>
#include <QHash>
#include <QMultiHash>

#include <optional>

class QGraphicsPathItem;

namespace ty {

class EdgeItem;
class NodeItem;
class PipelineDocument;
class PortItem;

class PipelineScene : public QGraphicsScene {
    Q_OBJECT
public:
    explicit PipelineScene(PipelineDocument *document, QObject *parent = nullptr);
    ~PipelineScene() override;

    PipelineDocument *document() const { return m_document; }

    // --- Items, keyed by the model's ids
    NodeItem *nodeItem(const QString &id) const { return m_nodes.value(id); }
    EdgeItem *edgeItem(const Edge &edge) const;
    QList<NodeItem *> nodeItems() const { return m_nodes.values(); }
    QList<EdgeItem *> edgeItems() const { return m_edges.values(); }
    QHash<QString, QSizeF> nodeSizes() const;
    QRectF contentRect() const;  // the nodes' bounding rectangle
    // The scene rect is the content with a wide margin, updated once per event-loop turn after changes;
    // this updates it now (before centring the view on something new).
    void updateSceneRect();
    // Routes every edge again around the nodes where they are now; done once per event-loop turn after
    // changes, this does it at once.
    void rerouteEdges();

    // --- Grid
    void setSnapToGrid(bool snap) { m_snapToGrid = snap; }
    bool snapToGrid() const { return m_snapToGrid; }
    QPointF snapped(const QPointF &pos) const;
    QPointF constrainDraggedPosition(const QPointF &pos) const;  // NodeItem, while the user drags it

    // --- Edits through the document
    QStringList selectedNodeIds() const;  // in graph order
    QList<Edge> selectedEdges() const;
    void deleteSelection();
    void selectAllNodes();
    void nudgeSelection(const QPointF &delta);
    void copySelection() const;
    void cutSelection();
    // Pastes the clipboard's nodes with fresh ids: with their top-left corner at `at` when given, else offset
    // from where they were copied; then moved down, if need be, until they cover no node already there.
    // Returns the new ids (empty when the clipboard holds no nodes).
    QStringList paste(const std::optional<QPointF> &at = std::nullopt);
    void autoArrange(qreal aspect = 1.6);  // long pipelines wrap towards this width / height
    // Connects two ports in whichever order they come; returns the refusal reason, or empty when connected.
    QString connectPorts(PortItem *a, PortItem *b);
    // Why `a` and `b` cannot be connected (empty when they can); `without` is an edge to ignore (re-wiring).
    QString connectionProblemBetween(PortItem *a, PortItem *b, const std::optional<Edge> &without = {}) const;

Q_SIGNALS:
    void statusMessage(const QString &message);
    void connectionRefused(const QString &reason);
    void nodeDoubleClicked(const QString &id);

protected:
    void mousePressEvent(QGraphicsSceneMouseEvent *event) override;
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent *event) override;
    void mouseMoveEvent(QGraphicsSceneMouseEvent *event) override;
    void mouseReleaseEvent(QGraphicsSceneMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;

private:
    // Model to items (pipeline_scene.cpp)
    void rebuild();
    void addNodeItem(const QString &id);
    void removeNodeItem(const QString &id);
    void addEdgeItem(const Edge &edge);
    void removeEdgeItem(const Edge &edge);
    void renameNodeItem(const QString &oldId, const QString &newId);
    void moveNodeItem(const QString &id);
    void applyReport();
    void applyFrozenMarks();  // lock badges on the nodes frozen in the document's shown stage
    void refreshPortConnections(const QString &nodeId);
    void selectFromDocument();
    void selectionFromScene();
    void scheduleSceneRectUpdate();

    // Gestures (scene_gestures.cpp)
    struct ConnectionDrag {
        PortItem *anchor = nullptr;    // the fixed end
        std::optional<Edge> detached;  // the edge being re-wired, hidden while dragging
        QGraphicsPathItem *line = nullptr;
        PortItem *target = nullptr;
        QString problem;
    };
    PortItem *portAt(const QPointF &scenePos) const;
    PortItem *targetFor(const QPointF &scenePos) const;
    void beginConnection(PortItem *port);
    void updateConnection(const QPointF &scenePos, const QPoint &screenPos);
    void finishConnection(const QPointF &scenePos, const QPoint &screenPos);
    void endConnection();
    void commitDraggedNodes();
    // How far below `offset` a pasted fragment must go to cover no node (zero when it covers none).
    QPointF clearanceBelowNodes(const PipelineGraph &fragment, const QPointF &offset) const;

    PipelineDocument *m_document;
    QHash<QString, NodeItem *> m_nodes;
    QMultiHash<QString, EdgeItem *> m_edges;  // by "from->to"; a broken file may repeat an edge
    bool m_snapToGrid = true;
    bool m_syncingSelection = false;
    bool m_applyingModel = false;
    bool m_sceneRectPending = false;
    mutable int m_pasteCount = 0;  // pastes since the last copy, to offset each one further
    std::optional<ConnectionDrag> m_connection;
};

QString edgeKey(const Edge &edge);

} // namespace ty
