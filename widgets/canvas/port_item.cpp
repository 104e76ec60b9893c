#include "port_item.h"

#include "common/canvas_style.h"
#include "node_item.h"

#include <QCursor>
#include <QGraphicsScene>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

namespace ty {

namespace {
constexpr qreal kHitRadius = 12;  // over twice the drawn dot, so ports are easy to grab
}

PortItem::PortItem(NodeItem *node, const PortSpec &spec, bool output)
    : QGraphicsItem(node), m_node(node), m_spec(spec), m_output(output)
{
    setAcceptHoverEvents(true);
    setCursor(Qt::CrossCursor);
    setZValue(1);
    refreshToolTip();
}

QString PortItem::nodeId() const
{
    return m_node->nodeId();
}

void PortItem::setConnected(bool connected)
{
    if (connected != m_connected) {
        m_connected = connected;
        update();
    }
}

void PortItem::setIssue(const QString &message)
{
    if (message != m_issue) {
        m_issue = message;
        refreshToolTip();
        update();
    }
}

void PortItem::setDropState(DropState state)
{
    if (state != m_dropState) {
        m_dropState = state;
        update();
    }
}

void PortItem::refreshToolTip()
{
    QString tip = QStringLiteral("<b>%1.%2</b> &mdash; %3 %4")
                      .arg(nodeId().toHtmlEscaped(), m_spec.name.toHtmlEscaped(), portKindName(m_spec.kind),
                           m_output ? QObject::tr("output") : QObject::tr("input"));
    if (!m_output && !m_spec.required)
        tip += QObject::tr(" (optional)");
    if (!m_spec.doc.isEmpty())
        tip += QStringLiteral("<br>") + m_spec.doc.toHtmlEscaped();
    if (!m_issue.isEmpty())
        tip += QStringLiteral("<br><span style='color:%1'>%2</span>")
                   .arg(style::errorColor().name(), m_issue.toHtmlEscaped());
    tip += QStringLiteral("<br><i>%1</i>").arg(m_output ? QObject::tr("Drag to an input to connect")
                                                        : QObject::tr("Drag to an output to connect"));
    setToolTip(tip);
}

QRectF PortItem::boundingRect() const
{
    return QRectF(-kHitRadius, -kHitRadius, 2 * kHitRadius, 2 * kHitRadius);
}

QPainterPath PortItem::shape() const
{
    QPainterPath path;
    path.addEllipse(boundingRect());
    return path;
}

void PortItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *widget)
{
    const QPalette palette = widget ? widget->palette() : scene()->palette();
    const QColor color = style::portColor(m_spec.kind);
    qreal radius = style::kPortRadius + (m_hovered || m_dropState != DropState::None ? 1.5 : 0);

    painter->setRenderHint(QPainter::Antialiasing);
    if (m_dropState != DropState::None) {
        const QColor glow = m_dropState == DropState::Accepted ? style::okColor() : style::errorColor();
        painter->setPen(Qt::NoPen);
        painter->setBrush(QColor(glow.red(), glow.green(), glow.blue(), 90));
        painter->drawEllipse(QPointF(0, 0), radius + 4, radius + 4);
    }
    if (!m_issue.isEmpty()) {
        painter->setPen(QPen(style::errorColor(), 2));
        painter->setBrush(Qt::NoBrush);
        painter->drawEllipse(QPointF(0, 0), radius + 2.5, radius + 2.5);
    }
    painter->setPen(QPen(m_connected ? style::nodeBody(palette) : color, m_connected ? 1.5 : 2));
    painter->setBrush(m_connected ? color : style::nodeBody(palette));
    painter->drawEllipse(QPointF(0, 0), radius, radius);
}

void PortItem::hoverEnterEvent(QGraphicsSceneHoverEvent *event)
{
    m_hovered = true;
    update();
    QGraphicsItem::hoverEnterEvent(event);
}

void PortItem::hoverLeaveEvent(QGraphicsSceneHoverEvent *event)
{
    m_hovered = false;
    update();
    QGraphicsItem::hoverLeaveEvent(event);
}

} // namespace ty
