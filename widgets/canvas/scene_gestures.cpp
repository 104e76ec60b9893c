// PipelineScene: mouse and keyboard gestures, and the edit actions they lead to.

#include "pipeline_scene.h"

#include "common/canvas_style.h"
#include "document/auto_layout.h"
#include "document/graph_fragment.h"
#include "document/pipeline_document.h"
#include "edge_item.h"
#include "edge_routing.h"
#include "graph_validation.h"
#include "node_item.h"
#include "port_item.h"

#include <QApplication>
#include <QClipboard>
#include <QGraphicsPathItem>
#include <QGraphicsSceneMouseEvent>
#include <QKeyEvent>
#include <QMimeData>
#include <QToolTip>
#include <QUndoStack>

namespace ty {

namespace {
constexpr qreal kSnapRadius = 18;  // a port this close to the cursor counts as under it

Endpoint endpointOf(const PortItem *port)
{
    return Endpoint{port->nodeId(), port->name()};
}
} // namespace

// --- Connections

QString PipelineScene::connectionProblemBetween(PortItem *a, PortItem *b, const std::optional<Edge> &without) const
{
    if (a->isOutput() == b->isOutput())
        return a->isOutput() ? tr("connect an output to an input, not to another output")
                             : tr("connect an input to an output, not to another input");
    PortItem *out = a->isOutput() ? a : b;
    PortItem *in = a->isOutput() ? b : a;
    if (!without)
        return connectionProblem(m_document->graph(), endpointOf(out), endpointOf(in));
    PipelineGraph probe = m_document->graph();
    probe.edges.removeOne(*without);
    return connectionProblem(probe, endpointOf(out), endpointOf(in));
}

QString PipelineScene::connectPorts(PortItem *a, PortItem *b)
{
    const QString problem = connectionProblemBetween(a, b);
    if (!problem.isEmpty())
        return problem;
    PortItem *out = a->isOutput() ? a : b;
    PortItem *in = a->isOutput() ? b : a;
    return m_document->connectPorts(endpointOf(out), endpointOf(in));
}

PortItem *PipelineScene::portAt(const QPointF &scenePos) const
{
    PortItem *best = nullptr;
    qreal bestDistance = kSnapRadius;
    const QRectF area(scenePos - QPointF(kSnapRadius, kSnapRadius), QSizeF(2 * kSnapRadius, 2 * kSnapRadius));
    for (QGraphicsItem *item : items(area)) {
        if (item->type() != PortItem::Type)
            continue;
        const qreal distance = QLineF(item->scenePos(), scenePos).length();
        if (distance < bestDistance) {
            bestDistance = distance;
            best = static_cast<PortItem *>(item);
        }
    }
    return best;
}

// The port a connection dragged to `scenePos` would join: a port near the cursor, or, over a node's body,
// the node's first port that fits (else its first port of the right direction, to show why not).
PortItem *PipelineScene::targetFor(const QPointF &scenePos) const
{
    PortItem *anchor = m_connection->anchor;
    if (PortItem *port = portAt(scenePos); port && port != anchor)
        return port;
    for (QGraphicsItem *item : items(scenePos)) {
        if (item->type() != NodeItem::Type || item == anchor->node())
            continue;
        PortItem *fallback = nullptr;
        for (PortItem *port : static_cast<NodeItem *>(item)->ports()) {
            if (port->isOutput() == anchor->isOutput() || !port->isVisible())
                continue;
            if (connectionProblemBetween(anchor, port, m_connection->detached).isEmpty())
                return port;
            if (!fallback)
                fallback = port;
        }
        return fallback;
    }
    return nullptr;
}

void PipelineScene::beginConnection(PortItem *port)
{
    m_connection = ConnectionDrag();
    m_connection->anchor = port;
    if (!port->isOutput()) {
        // Pressing a connected input picks its edge up: re-wire it, or drop it on empty canvas to remove it.
        const QList<Edge> in = m_document->graph().edgesInto(port->nodeId(), port->name());
        if (!in.isEmpty()) {
            if (NodeItem *source = m_nodes.value(in.first().from.node)) {
                if (PortItem *sourcePort = source->port(in.first().from.port, true)) {
                    m_connection->detached = in.first();
                    m_connection->anchor = sourcePort;
                    if (EdgeItem *edge = edgeItem(in.first()))
                        edge->setVisible(false);
                }
            }
        }
    }
    auto *line = new QGraphicsPathItem;
    QPen pen(style::portColor(m_connection->anchor->kind()), 2, Qt::DashLine, Qt::RoundCap);
    line->setPen(pen);
    line->setZValue(5);
    addItem(line);
    m_connection->line = line;
}

void PipelineScene::updateConnection(const QPointF &scenePos, const QPoint &screenPos)
{
    ConnectionDrag &drag = *m_connection;
    PortItem *target = targetFor(scenePos);
    if (drag.target && drag.target != target)
        drag.target->setDropState(PortItem::DropState::None);
    drag.target = target;
    drag.problem = target ? connectionProblemBetween(drag.anchor, target, drag.detached) : QString();
    const QPointF end = target ? target->scenePos() : scenePos;
    const QPointF anchorPos = drag.anchor->scenePos();
    drag.line->setPath(drag.anchor->isOutput() ? edgeCurve(anchorPos, end) : edgeCurve(end, anchorPos));
    QPen pen = drag.line->pen();
    pen.setColor(target && !drag.problem.isEmpty() ? style::errorColor() : style::portColor(drag.anchor->kind()));
    drag.line->setPen(pen);
    if (!target) {
        Q_EMIT statusMessage(drag.detached ? tr("Release on empty canvas to remove the edge") : QString());
        QToolTip::hideText();
        return;
    }
    target->setDropState(drag.problem.isEmpty() ? PortItem::DropState::Accepted : PortItem::DropState::Refused);
    if (drag.problem.isEmpty()) {
        Q_EMIT statusMessage(tr("Release to connect %1.%2 and %3.%4")
                                 .arg(drag.anchor->nodeId(), drag.anchor->name(), target->nodeId(), target->name()));
        QToolTip::hideText();
    } else {
        Q_EMIT statusMessage(tr("Cannot connect: %1").arg(drag.problem));
        QToolTip::showText(screenPos, drag.problem);
    }
}

void PipelineScene::finishConnection(const QPointF &scenePos, const QPoint &screenPos)
{
    updateConnection(scenePos, screenPos);
    const ConnectionDrag drag = *m_connection;
    endConnection();
    if (!drag.target) {
        if (drag.detached)
            m_document->removeItems({}, {*drag.detached});
        Q_EMIT statusMessage(QString());
        return;
    }
    if (!drag.problem.isEmpty()) {
        Q_EMIT statusMessage(tr("Cannot connect: %1").arg(drag.problem));
        Q_EMIT connectionRefused(drag.problem);
        QToolTip::showText(screenPos, drag.problem);
        return;
    }
    PortItem *out = drag.anchor->isOutput() ? drag.anchor : drag.target;
    PortItem *in = drag.anchor->isOutput() ? drag.target : drag.anchor;
    const Edge wanted{endpointOf(out), endpointOf(in)};
    if (drag.detached && *drag.detached == wanted)
        return;  // dropped back where it was
    QUndoStack *stack = m_document->undoStack();
    if (drag.detached) {
        stack->beginMacro(tr("Reconnect %1").arg(wanted.to.toString()));
        m_document->removeItems({}, {*drag.detached});
        m_document->connectPorts(wanted.from, wanted.to);
        stack->endMacro();
    } else {
        m_document->connectPorts(wanted.from, wanted.to);
    }
    Q_EMIT statusMessage(tr("Connected %1 to %2").arg(wanted.from.toString(), wanted.to.toString()));
}

void PipelineScene::endConnection()
{
    if (!m_connection)
        return;
    if (m_connection->target)
        m_connection->target->setDropState(PortItem::DropState::None);
    if (m_connection->detached)
        if (EdgeItem *edge = edgeItem(*m_connection->detached))
            edge->setVisible(true);
    delete m_connection->line;
    m_connection.reset();
}

// --- Mouse and keyboard

void PipelineScene::mouseDoubleClickEvent(QGraphicsSceneMouseEvent *event)
{
    if (event->button() == Qt::LeftButton)
        for (QGraphicsItem *item : items(event->scenePos()))
            if (auto *node = qgraphicsitem_cast<NodeItem *>(item)) {
                Q_EMIT nodeDoubleClicked(node->nodeId());
                event->accept();
                return;
            }
    QGraphicsScene::mouseDoubleClickEvent(event);
}

void PipelineScene::mousePressEvent(QGraphicsSceneMouseEvent *event)
{
    if (event->button() == Qt::LeftButton && !m_connection) {
        if (PortItem *port = portAt(event->scenePos())) {
            beginConnection(port);
            updateConnection(event->scenePos(), event->screenPos());
            event->accept();
            return;
        }
    }
    QGraphicsScene::mousePressEvent(event);
}

void PipelineScene::mouseMoveEvent(QGraphicsSceneMouseEvent *event)
{
    if (m_connection) {
        updateConnection(event->scenePos(), event->screenPos());
        event->accept();
        return;
    }
    QGraphicsScene::mouseMoveEvent(event);
}

void PipelineScene::mouseReleaseEvent(QGraphicsSceneMouseEvent *event)
{
    if (m_connection) {
        if (event->button() == Qt::LeftButton)
            finishConnection(event->scenePos(), event->screenPos());
        event->accept();
        return;
    }
    QGraphicsScene::mouseReleaseEvent(event);
    if (event->button() == Qt::LeftButton)
        commitDraggedNodes();
}

void PipelineScene::commitDraggedNodes()
{
    QHash<QString, QPointF> moved;
    for (auto it = m_nodes.constBegin(); it != m_nodes.constEnd(); ++it) {
        const Node *node = m_document->graph().node(it.key());
        if (node && node->pos != it.value()->pos())
            moved.insert(it.key(), it.value()->pos());
    }
    if (!moved.isEmpty())
        m_document->moveNodes(moved, MoveKind::Drag);
}

void PipelineScene::keyPressEvent(QKeyEvent *event)
{
    if (m_connection && event->key() == Qt::Key_Escape) {
        endConnection();
        Q_EMIT statusMessage(QString());
        return;
    }
    const qreal step = (event->modifiers() & Qt::ShiftModifier) ? 1 : style::kGrid;
    switch (event->key()) {
    case Qt::Key_Left: nudgeSelection(QPointF(-step, 0)); return;
    case Qt::Key_Right: nudgeSelection(QPointF(step, 0)); return;
    case Qt::Key_Up: nudgeSelection(QPointF(0, -step)); return;
    case Qt::Key_Down: nudgeSelection(QPointF(0, step)); return;
    case Qt::Key_Delete:
    case Qt::Key_Backspace: deleteSelection(); return;
    default: break;
    }
    QGraphicsScene::keyPressEvent(event);
}

// --- Edit actions

void PipelineScene::deleteSelection()
{
    m_document->removeItems(selectedNodeIds(), selectedEdges());
}

void PipelineScene::selectAllNodes()
{
    QStringList ids;
    for (const Node &node : m_document->graph().nodes)
        ids << node.id;
    m_document->setSelectedNodes(ids);
}

void PipelineScene::nudgeSelection(const QPointF &delta)
{
    QHash<QString, QPointF> positions;
    for (const QString &id : selectedNodeIds())
        positions.insert(id, m_nodes.value(id)->pos() + delta);
    m_document->moveNodes(positions, MoveKind::Nudge);
}

void PipelineScene::copySelection() const
{
    const QStringList ids = selectedNodeIds();
    if (ids.isEmpty())
        return;
    QApplication::clipboard()->setMimeData(fragmentMimeData(fragmentOf(m_document->graph(), ids)));
    m_pasteCount = 0;  // the next paste lands just beside the copied nodes
}

void PipelineScene::cutSelection()
{
    const QStringList ids = selectedNodeIds();
    if (ids.isEmpty())
        return;
    copySelection();
    m_document->removeItems(ids, {}, tr("Cut %1").arg(style::counted(ids.size(), tr("node"), tr("nodes"))));
}

QStringList PipelineScene::paste(const std::optional<QPointF> &at)
{
    const Result<PipelineGraph> fragment = fragmentFromMimeData(QApplication::clipboard()->mimeData());
    if (!fragment || fragment.value().nodes.isEmpty()) {
        Q_EMIT statusMessage(tr("Nothing to paste: %1").arg(fragment ? tr("no nodes") : fragment.error().message));
        return {};
    }
    QPointF offset;
    if (at) {
        QPointF topLeft = fragment.value().nodes.first().pos;
        for (const Node &node : fragment.value().nodes)
            topLeft = QPointF(std::min(topLeft.x(), node.pos.x()), std::min(topLeft.y(), node.pos.y()));
        offset = snapped(*at) - topLeft;
    } else {
        ++m_pasteCount;
        offset = QPointF(2 * style::kGrid, 2 * style::kGrid) * m_pasteCount;
    }
    offset += clearanceBelowNodes(fragment.value(), offset);
    const PipelineGraph fresh = freshFragment(fragment.value(), m_document->graph(), offset);
    return m_document->addNodes(fresh, tr("Paste %1").arg(style::counted(fresh.nodes.size(), tr("node"), tr("nodes"))));
}

QPointF PipelineScene::clearanceBelowNodes(const PipelineGraph &fragment, const QPointF &offset) const
{
    // Each pasted node's rectangle: as drawn where the copied node is on the canvas, else a typical node's.
    const QSizeF typical(style::kNodeWidth, 4 * style::kHeaderHeight);
    QList<QRectF> pasted;
    for (const Node &node : fragment.nodes) {
        const NodeItem *copied = m_nodes.value(node.id);
        pasted << QRectF(node.pos + offset, copied ? copied->size() : typical);
    }
    const qreal gap = 2 * style::kGrid;
    qreal down = 0;
    // Step below whatever the fragment would cover until it covers nothing; each step clears at least one
    // node, so this ends.
    for (int step = 0; step <= m_nodes.size(); ++step) {
        qreal clearBelow = -1;
        for (const QRectF &rect : std::as_const(pasted)) {
            const QRectF moved = rect.translated(0, down).adjusted(-gap / 2, -gap / 2, gap / 2, gap / 2);
            for (const NodeItem *item : m_nodes)
                if (moved.intersects(item->sceneBoundingRect()))
                    clearBelow = std::max(clearBelow, item->sceneBoundingRect().bottom() + gap - rect.top());
        }
        if (clearBelow < 0)
            break;
        down = std::max(down + style::kGrid, clearBelow);
    }
    return QPointF(0, m_snapToGrid ? std::ceil(down / style::kGrid) * style::kGrid : down);
}

void PipelineScene::autoArrange(qreal aspect)
{
    LayoutOptions options;
    options.aspect = aspect;
    m_document->autoArrange(nodeSizes(), options);
}

} // namespace ty
