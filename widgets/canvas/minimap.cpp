#include "minimap.h"

#include "block_descriptor.h"
#include "canvas_view.h"
#include "common/canvas_style.h"
#include "node_item.h"
#include "pipeline_scene.h"

#include <QMouseEvent>
#include <QPainter>

#include <algorithm>

namespace ty {

namespace {

constexpr int kMargin = 12;   // from the view's edges
constexpr int kPadding = 6;   // inside the map, around the drawing
constexpr QSize kSize(240, 160);

QRectF visibleSceneRect(const CanvasView *view)
{
    return view->mapToScene(view->viewport()->rect()).boundingRect();
}

} // namespace

Minimap::Minimap(CanvasView *view) : QWidget(view), m_view(view)
{
    setFixedSize(kSize);
    setCursor(Qt::PointingHandCursor);
    setToolTip(tr("Overview: click or drag to move the view"));
    hide();
}

QRectF Minimap::mapArea() const
{
    // The graph alone, not what the view shows, so the map holds still while it is dragged.
    const QRectF content = m_view->pipelineScene()->contentRect();
    return content.isNull() ? visibleSceneRect(m_view) : content.adjusted(-40, -40, 40, 40);
}

qreal Minimap::scale() const
{
    const QRectF area = mapArea();
    if (area.width() <= 0 || area.height() <= 0)
        return 1;
    return std::min((width() - 2 * kPadding) / area.width(), (height() - 2 * kPadding) / area.height());
}

QPointF Minimap::origin() const
{
    // Centred in the widget.
    const QRectF area = mapArea();
    const qreal s = scale();
    return QPointF((width() - area.width() * s) / 2, (height() - area.height() * s) / 2);
}

QPointF Minimap::toMap(const QPointF &scenePos) const
{
    return origin() + (scenePos - mapArea().topLeft()) * scale();
}

QPointF Minimap::toScene(const QPointF &mapPos) const
{
    return mapArea().topLeft() + (mapPos - origin()) / scale();
}

QRectF Minimap::viewportFrame() const
{
    const QRectF visible = visibleSceneRect(m_view);
    return QRectF(toMap(visible.topLeft()), toMap(visible.bottomRight()));
}

void Minimap::refresh()
{
    // A scene being destroyed first leaves its views (QGraphicsView::setScene(nullptr)), and the scroll bars'
    // reset calls this: the scene is no PipelineScene any more by then (UBSan reported the call).
    if (!m_view->scene()) {
        hide();
        return;
    }
    const QRectF content = m_view->pipelineScene()->contentRect();
    const QRectF visible = visibleSceneRect(m_view);
    const bool needed = !content.isNull() && !visible.contains(content);
    move(m_view->viewport()->width() - width() - kMargin, m_view->viewport()->height() - height() - kMargin);
    setVisible(needed);
    if (needed)
        update();
}

void Minimap::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const QPalette pal = m_view->palette();
    QColor background = style::canvasBackground(pal);
    background.setAlpha(235);
    painter.setPen(QPen(style::nodeBorder(pal), 1));
    painter.setBrush(background);
    painter.drawRoundedRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5), 4, 4);

    painter.setPen(Qt::NoPen);
    for (const NodeItem *node : m_view->pipelineScene()->nodeItems()) {
        const QRectF r = node->sceneBoundingRect();
        const QColor color = node->block() ? style::categoryColor(node->block()->category) : QColor(Qt::gray);
        painter.setBrush(node->isSelected() ? style::selectionColor(pal) : color);
        painter.drawRect(QRectF(toMap(r.topLeft()), toMap(r.bottomRight())));
    }
    painter.setClipRect(rect());
    painter.setPen(QPen(style::selectionColor(pal), 1.5));
    painter.setBrush(QColor(128, 128, 128, 40));
    painter.drawRect(viewportFrame());
}

void Minimap::mousePressEvent(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton) {
        m_view->centerOn(toScene(event->position()));
        event->accept();
    }
}

void Minimap::mouseMoveEvent(QMouseEvent *event)
{
    if (event->buttons() & Qt::LeftButton) {
        m_view->centerOn(toScene(event->position()));
        event->accept();
    }
}

} // namespace ty
