#pragma once
// A port on a node: a small circle coloured by its kind, inputs on the node's left edge, outputs on its right.
// Filled when connected, a ring when free, red-ringed when an issue names it. The scene starts a connection
// drag when one is pressed. Ownership: a child of its NodeItem. Thread affinity: the GUI thread.

#include "block_descriptor.h"

#include <QGraphicsItem>

namespace ty {

class NodeItem;

class PortItem : public QGraphicsItem {
public:
    enum { Type = UserType + 2 };
    // Feedback while a connection is dragged over this port.
    enum class DropState { None, Accepted, Refused };

    PortItem(NodeItem *node, const PortSpec &spec, bool output);

    int type() const override { return Type; }
    NodeItem *node() const { return m_node; }
    const QString &name() const { return m_spec.name; }
    PortKind kind() const { return m_spec.kind; }
    const PortSpec &spec() const { return m_spec; }
    bool isOutput() const { return m_output; }
    QString nodeId() const;

    void setConnected(bool connected);
    bool isConnected() const { return m_connected; }
    void setIssue(const QString &message);  // empty: none
    bool hasIssue() const { return !m_issue.isEmpty(); }
    void setDropState(DropState state);
    void refreshToolTip();

    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

protected:
    void hoverEnterEvent(QGraphicsSceneHoverEvent *event) override;
    void hoverLeaveEvent(QGraphicsSceneHoverEvent *event) override;

private:
    NodeItem *m_node;
    PortSpec m_spec;
    bool m_output;
    bool m_connected = false;
    bool m_hovered = false;
    QString m_issue;
    DropState m_dropState = DropState::None;
};

} // namespace ty
