#include "edge_item.h"

#include "common/canvas_style.h"
#include "edge_routing.h"
#include "node_item.h"
#include "port_item.h"

#include <QGraphicsScene>
#include <QPainter>
#include <QPainterPathStroker>
#include <QStyleOptionGraphicsItem>

#include <cmath>

namespace ty {

EdgeItem::EdgeItem(const Edge &edge, NodeItem *from, NodeItem *to) : m_edge(edge), m_from(from), m_to(to)
{
    setFlags(ItemIsSelectable);
    setAcceptHoverEvents(true);
    setPen(QPen(Qt::transparent, 8));  // only widens the bounding rect to hold the selection halo
    setZValue(0);
    if (const PortItem *port = from->port(edge.from.port, true))
        m_kind = port->kind();
    from->addEdge(this);
    if (to != from)
        to->addEdge(this);
    setToolTip(QStringLiteral("%1 → %2").arg(edge.from.toString(), edge.to.toString()));
    updatePath();
}

EdgeItem::~EdgeItem()
{
    m_from->removeEdge(this);
    m_to->removeEdge(this);
}

void EdgeItem::setProblem(bool problem)
{
    if (problem != m_problem) {
        m_problem = problem;
        update();
    }
}

void EdgeItem::updatePath()
{
    const QPointF from = m_from->portScenePos(m_edge.from.port, true);
    const QPointF to = m_to->portScenePos(m_edge.to.port, false);
    QList<QRectF> obstacles;
    if (QGraphicsScene *canvas = scene()) {
        // The nodes around the straight line between the ports, with room for a detour.
        const QRectF around = QRectF(from, to).normalized().adjusted(-300, -300, 300, 300);
        for (QGraphicsItem *item : canvas->items(around, Qt::IntersectsItemBoundingRect))
            if (item->type() == NodeItem::Type && item != m_from && item != m_to)
                obstacles << item->sceneBoundingRect();
    }
    setPath(routeEdge(from, to, obstacles));
}

QPainterPath EdgeItem::shape() const
{
    QPainterPathStroker stroker;
    stroker.setWidth(10);
    return stroker.createStroke(path());
}

void EdgeItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *widget)
{
    const QPalette palette = widget ? widget->palette() : scene()->palette();
    painter->setRenderHint(QPainter::Antialiasing);
    QColor color = m_problem ? style::errorColor() : style::portColor(m_kind);
    qreal width = 2;
    if (isSelected()) {
        QPen halo(style::selectionColor(palette), 6, Qt::SolidLine, Qt::RoundCap);
        painter->setPen(halo);
        painter->drawPath(path());
        width = 2.5;
    } else if (m_hovered) {
        width = 3;
    }
    QPen pen(color, width, m_problem ? Qt::DashLine : Qt::SolidLine, Qt::RoundCap);
    painter->setPen(pen);
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(path());
}

void EdgeItem::hoverEnterEvent(QGraphicsSceneHoverEvent *event)
{
    m_hovered = true;
    update();
    QGraphicsPathItem::hoverEnterEvent(event);
}

void EdgeItem::hoverLeaveEvent(QGraphicsSceneHoverEvent *event)
{
    m_hovered = false;
    update();
    QGraphicsPathItem::hoverLeaveEvent(event);
}

} // namespace ty
