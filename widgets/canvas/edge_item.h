#pragma once
// An edge on the canvas: a curve from an output port to an input port, routed around the nodes in its way
// (edge_routing.h), coloured by the ports' kind; drawn
// red and dashed when an issue names its input. Selectable (Delete removes it through the document).
// Ownership: owned by the PipelineScene; refers to (does not own) its two NodeItems, which outlive it.
// Thread affinity: the GUI thread.

#include "block_descriptor.h"
#include "pipeline_graph.h"

#include <QGraphicsPathItem>

namespace ty {

class NodeItem;

class EdgeItem : public QGraphicsPathItem {
public:
    enum { Type = UserType + 3 };

    EdgeItem(const Edge &edge, NodeItem *from, NodeItem *to);
    ~EdgeItem() override;

    int type() const override { return Type; }
    const Edge &edge() const { return m_edge; }
    void setEdge(const Edge &edge) { m_edge = edge; }  // after a rename
    NodeItem *fromNode() const { return m_from; }
    NodeItem *toNode() const { return m_to; }

    void setProblem(bool problem);
    bool hasProblem() const { return m_problem; }
    void updatePath();  // re-routes it around the nodes now on the scene

    QPainterPath shape() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

protected:
    void hoverEnterEvent(QGraphicsSceneHoverEvent *event) override;
    void hoverLeaveEvent(QGraphicsSceneHoverEvent *event) override;

private:
    Edge m_edge;
    NodeItem *m_from;
    NodeItem *m_to;
    PortKind m_kind = PortKind::Tensor;
    bool m_problem = false;
    bool m_hovered = false;
};

} // namespace ty
