// PipelineScene: building and updating items from the document's change signals.

#include "pipeline_scene.h"

#include "composite_expansion.h"

#include "common/canvas_style.h"
#include "document/pipeline_document.h"
#include "edge_item.h"
#include "node_item.h"
#include "port_item.h"

#include "block_registry.h"

#include <QTimer>

#include <cmath>

namespace ty {

QString edgeKey(const Edge &edge)
{
    return edge.from.toString() + QStringLiteral("->") + edge.to.toString();
}

PipelineScene::PipelineScene(PipelineDocument *document, QObject *parent)
    : QGraphicsScene(parent), m_document(document)
{
    setItemIndexMethod(QGraphicsScene::BspTreeIndex);
    connect(document, &PipelineDocument::documentReset, this, &PipelineScene::rebuild);
    connect(document, &PipelineDocument::nodeAdded, this, &PipelineScene::addNodeItem);
    connect(document, &PipelineDocument::nodeRemoved, this, &PipelineScene::removeNodeItem);
    connect(document, &PipelineDocument::nodeMoved, this, &PipelineScene::moveNodeItem);
    connect(document, &PipelineDocument::nodeRenamed, this, &PipelineScene::renameNodeItem);
    connect(document, &PipelineDocument::edgeAdded, this, &PipelineScene::addEdgeItem);
    connect(document, &PipelineDocument::edgeRemoved, this, &PipelineScene::removeEdgeItem);
    connect(document, &PipelineDocument::reportChanged, this, &PipelineScene::applyReport);
    connect(document, &PipelineDocument::selectionChanged, this, &PipelineScene::selectFromDocument);
    connect(document, &PipelineDocument::shownStageChanged, this, &PipelineScene::applyFrozenMarks);
    connect(this, &QGraphicsScene::selectionChanged, this, &PipelineScene::selectionFromScene);
    rebuild();
}

PipelineScene::~PipelineScene()
{
    // Deleting selected items emits selectionChanged: nobody may hear it from a half-destroyed scene.
    blockSignals(true);
    m_connection.reset();
    qDeleteAll(m_edges);  // edges refer to nodes: delete them first
    m_edges.clear();
    qDeleteAll(m_nodes);
    m_nodes.clear();
}

EdgeItem *PipelineScene::edgeItem(const Edge &edge) const
{
    return m_edges.value(edgeKey(edge));
}

QHash<QString, QSizeF> PipelineScene::nodeSizes() const
{
    QHash<QString, QSizeF> sizes;
    for (auto it = m_nodes.constBegin(); it != m_nodes.constEnd(); ++it)
        sizes.insert(it.key(), it.value()->size());
    return sizes;
}

QRectF PipelineScene::contentRect() const
{
    QRectF rect;
    for (const NodeItem *item : m_nodes)
        rect |= item->sceneBoundingRect();
    return rect;
}

QPointF PipelineScene::snapped(const QPointF &pos) const
{
    const qreal g = style::kGrid;
    return QPointF(std::round(pos.x() / g) * g, std::round(pos.y() / g) * g);
}

QPointF PipelineScene::constrainDraggedPosition(const QPointF &pos) const
{
    return m_snapToGrid && !m_applyingModel ? snapped(pos) : pos;
}

// --- Model to items

void PipelineScene::rebuild()
{
    m_connection.reset();
    m_syncingSelection = true;
    qDeleteAll(m_edges);
    m_edges.clear();
    qDeleteAll(m_nodes);
    m_nodes.clear();
    clear();
    m_syncingSelection = false;
    for (const Node &node : m_document->graph().nodes)
        addNodeItem(node.id);
    for (const Edge &edge : m_document->graph().edges)
        addEdgeItem(edge);
    applyReport();
    applyFrozenMarks();
    selectFromDocument();
    scheduleSceneRectUpdate();
}

void PipelineScene::addNodeItem(const QString &id)
{
    const Node *node = m_document->graph().node(id);
    if (!node || m_nodes.contains(id))
        return;
    m_applyingModel = true;
    auto *item = new NodeItem(*node, m_document->block(node->block));
    addItem(item);
    m_applyingModel = false;
    m_nodes.insert(id, item);
    if (m_document->shownStage() >= 0 && m_document->shownStageFrozenNodes().contains(id))
        item->setFrozenInStage(m_document->shownStageName());  // back by undo, still in the stage's freeze list
    scheduleSceneRectUpdate();
}

void PipelineScene::applyFrozenMarks()
{
    const QStringList frozen = m_document->shownStageFrozenNodes();
    const QString stage = frozen.isEmpty() ? QString() : m_document->shownStageName();
    for (auto it = m_nodes.constBegin(); it != m_nodes.constEnd(); ++it)
        it.value()->setFrozenInStage(frozen.contains(it.key()) ? stage : QString());
}

void PipelineScene::removeNodeItem(const QString &id)
{
    NodeItem *item = m_nodes.take(id);
    if (!item)
        return;
    if (m_connection && m_connection->anchor && m_connection->anchor->node() == item)
        endConnection();
    const QList<EdgeItem *> edges = item->edges();
    for (EdgeItem *edge : edges) {
        m_edges.remove(edgeKey(edge->edge()), edge);
        delete edge;
    }
    delete item;
    scheduleSceneRectUpdate();
}

void PipelineScene::addEdgeItem(const Edge &edge)
{
    NodeItem *from = m_nodes.value(edge.from.node);
    NodeItem *to = m_nodes.value(edge.to.node);
    if (!from || !to)
        return;  // a dangling edge in a broken file: validation reports it
    auto *item = new EdgeItem(edge, from, to);
    addItem(item);
    item->updatePath();  // routed around the nodes in its way now that it is on the scene, as a reopened file's are
    m_edges.insert(edgeKey(edge), item);
    refreshPortConnections(edge.from.node);
    refreshPortConnections(edge.to.node);
}

void PipelineScene::removeEdgeItem(const Edge &edge)
{
    EdgeItem *item = m_edges.value(edgeKey(edge));
    if (!item)
        return;
    if (m_connection && m_connection->detached && *m_connection->detached == edge)
        endConnection();
    m_edges.remove(edgeKey(edge), item);
    delete item;
    refreshPortConnections(edge.from.node);
    refreshPortConnections(edge.to.node);
}

void PipelineScene::renameNodeItem(const QString &oldId, const QString &newId)
{
    NodeItem *item = m_nodes.take(oldId);
    if (!item)
        return;
    m_nodes.insert(newId, item);
    item->setNodeId(newId);
    for (EdgeItem *edge : item->edges()) {
        Edge e = edge->edge();
        m_edges.remove(edgeKey(e), edge);
        if (e.from.node == oldId)
            e.from.node = newId;
        if (e.to.node == oldId)
            e.to.node = newId;
        edge->setEdge(e);
        m_edges.insert(edgeKey(e), edge);
    }
}

void PipelineScene::moveNodeItem(const QString &id)
{
    NodeItem *item = m_nodes.value(id);
    const Node *node = m_document->graph().node(id);
    if (!item || !node)
        return;
    m_applyingModel = true;
    item->setPos(node->pos);
    m_applyingModel = false;
    scheduleSceneRectUpdate();
}

void PipelineScene::refreshPortConnections(const QString &nodeId)
{
    NodeItem *item = m_nodes.value(nodeId);
    if (!item)
        return;
    const PipelineGraph &graph = m_document->graph();
    for (PortItem *port : item->ports()) {
        const bool connected = port->isOutput() ? !graph.edgesFrom(nodeId, port->name()).isEmpty()
                                                : !graph.edgesInto(nodeId, port->name()).isEmpty();
        port->setConnected(connected);
    }
    item->layoutPorts();  // a free optional input shows or hides
}

void PipelineScene::applyReport()
{
    const ShapeReport &report = m_document->report();
    QHash<QString, Issues> issuesByNode;
    for (const Issue &issue : report.issues)
        if (!issue.node.isEmpty())
            issuesByNode[topLevelNode(issue.node)].append(issue);  // an inner node's, on its composite

    const PipelineGraph &graph = m_document->graph();
    for (auto it = m_nodes.constBegin(); it != m_nodes.constEnd(); ++it) {
        NodeItem *item = it.value();
        QList<std::vector<qint64>> inputShapes;
        if (item->block()) {
            for (const PortSpec &port : item->block()->inputs) {
                if (port.kind != PortKind::Tensor)
                    continue;
                const QList<Edge> in = graph.edgesInto(it.key(), port.name);
                inputShapes.append(in.isEmpty() ? std::vector<qint64>()
                                                : report.nodes.value(in.first().from.node).outputShape);
            }
        }
        item->setReport(report.nodes.value(it.key()), inputShapes, report.totalParams, report.memory, report.cost,
                        issuesByNode.value(it.key()));
    }
    for (EdgeItem *edge : std::as_const(m_edges)) {
        bool problem = false;
        for (const Issue &issue : issuesByNode.value(edge->edge().to.node))
            if (issue.severity == Severity::Error && issue.port == edge->edge().to.port)
                problem = true;
        edge->setProblem(problem);
    }
}

// --- Selection, both ways

void PipelineScene::selectFromDocument()
{
    if (m_syncingSelection)
        return;
    m_syncingSelection = true;
    const QStringList &ids = m_document->selectedNodes();
    for (EdgeItem *edge : std::as_const(m_edges))
        edge->setSelected(false);
    for (auto it = m_nodes.constBegin(); it != m_nodes.constEnd(); ++it)
        it.value()->setSelected(ids.contains(it.key()));
    m_syncingSelection = false;
}

void PipelineScene::selectionFromScene()
{
    if (m_syncingSelection)
        return;
    m_syncingSelection = true;
    m_document->setSelectedNodes(selectedNodeIds());
    m_syncingSelection = false;
}

QStringList PipelineScene::selectedNodeIds() const
{
    QStringList ids;
    for (const Node &node : m_document->graph().nodes)
        if (NodeItem *item = m_nodes.value(node.id); item && item->isSelected())
            ids << node.id;
    return ids;
}

QList<Edge> PipelineScene::selectedEdges() const
{
    QList<Edge> edges;
    for (const Edge &edge : m_document->graph().edges)
        if (EdgeItem *item = edgeItem(edge); item && item->isSelected() && !edges.contains(edge))
            edges << edge;
    return edges;
}

void PipelineScene::scheduleSceneRectUpdate()
{
    if (m_sceneRectPending)
        return;
    m_sceneRectPending = true;
    QTimer::singleShot(0, this, [this] {
        updateSceneRect();
        rerouteEdges();  // a node moved or came may now stand in the way of edges it has nothing to do with
    });
}

void PipelineScene::rerouteEdges()
{
    for (EdgeItem *edge : std::as_const(m_edges))
        edge->updatePath();
}

void PipelineScene::updateSceneRect()
{
    m_sceneRectPending = false;
    // Room to pan around the graph, and to place new nodes beyond it.
    const QRectF content = contentRect().isNull() ? QRectF(0, 0, 800, 600) : contentRect();
    setSceneRect(content.adjusted(-1500, -1500, 1500, 1500));
}

} // namespace ty
