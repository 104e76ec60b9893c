#pragma once
// A node on the canvas: a header in its category's colour with the category glyph, the node id and the
// multiply-accumulates it computes per sample, the block's name, parameter count and memory estimate, and one row per port with the live output shape beside the tensor
// output. Issues pinned to the node mark it (red or amber outline and badge) and show on hover. A node frozen in
// the training stage the inspector shows carries a lock badge.
//
// A projection of one graph node, keyed by its id; it never changes the document. Moving it by mouse only
// moves the item: the scene turns finished drags into one undo command.
// Ownership: owned by the PipelineScene; owns its PortItems; knows (does not own) its EdgeItems.
// Thread affinity: the GUI thread.

#include "shape_types.h"
#include "pipeline_graph.h"

#include <QGraphicsItem>
#include <QList>

namespace ty {

class EdgeItem;
class PortItem;
struct BlockDescriptor;

class NodeItem : public QGraphicsItem {
public:
    enum { Type = UserType + 1 };

    // `block` is null for an unknown block type (drawn grey, without ports).
    NodeItem(const Node &node, const BlockDescriptor *block);

    int type() const override { return Type; }
    const QString &nodeId() const { return m_id; }
    void setNodeId(const QString &id);
    const BlockDescriptor *block() const { return m_block; }

    // Live validation results: the node's shape, the shapes feeding its tensor inputs (for losses and
    // metrics, which have no tensor output), the optimizer's totals (parameters, the run's memory and MACs), and
    // the issues pinned to it.
    void setReport(const NodeShape &shape, const QList<std::vector<qint64>> &inputShapes, qint64 totalParams,
                   const MemoryEstimate &runMemory, const CostEstimate &runCost, const Issues &issues);
    QString shapeText() const;       // what the node shows as its shape: "[256]", "in [10]", "" when unknown
    QString paramCountText() const;  // "201k params", "" when none
    QString memoryText() const;      // its memory estimate while training (the optimizer: the run's), "1.6 MB"
    QString countText() const;       // both: "201k params · 1.6 MB" (drawn apart when the port row has room)
    // Its forward multiply-accumulates per sample (the optimizer: the whole pipeline's), drawn in the header:
    // "10.0M MACs", "" when none.
    QString macsText() const;
    const Issues &issues() const { return m_issues; }
    bool hasErrors() const;
    // The training stage this node is frozen in (the one shown; PipelineDocument::shownStage), empty when none.
    void setFrozenInStage(const QString &stageName);
    const QString &frozenInStage() const { return m_frozenInStage; }

    PortItem *port(const QString &name, bool output) const;
    const QList<PortItem *> &ports() const { return m_ports; }
    QPointF portScenePos(const QString &name, bool output) const;

    void addEdge(EdgeItem *edge) { m_edges.append(edge); }
    void removeEdge(EdgeItem *edge) { m_edges.removeAll(edge); }
    const QList<EdgeItem *> &edges() const { return m_edges; }

    QSizeF size() const { return m_size; }
    // Places the ports row by row and sizes the node: optional tensor inputs show when connected, and the
    // first free one besides (called again whenever the node's connections change).
    void layoutPorts();
    QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

protected:
    QVariant itemChange(GraphicsItemChange change, const QVariant &value) override;

private:
    void refreshToolTip();
    bool countOnPortRow() const;
    bool memoryOnPortRow() const;
    QString outputLabel(const PortItem *port) const;
    QString inputLabel(const PortItem *port, int tensorIndex) const;
    void paintHeader(QPainter *painter, const QRectF &header, const QColor &color, bool detailed) const;
    void paintOverviewLabel(QPainter *painter, const QPalette &palette, qreal lod) const;
    void paintPortLabels(QPainter *painter, const QPalette &palette) const;

    QString m_id;
    const BlockDescriptor *m_block;
    QList<PortItem *> m_ports;
    QList<EdgeItem *> m_edges;
    QSizeF m_size;
    NodeShape m_shape;
    QList<std::vector<qint64>> m_inputShapes;
    qint64 m_totalParams = 0;
    MemoryEstimate m_runMemory;
    CostEstimate m_runCost;
    Issues m_issues;
    QString m_frozenInStage;
};

} // namespace ty
