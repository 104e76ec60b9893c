#pragma once
// The canvas's overview: a small map in the bottom-right corner of the view with every node as a rectangle
// in its category's colour and the part of the graph the view shows as a frame. Clicking or dragging on it
// centres the view there. It shows only while the graph does not fit in the view, so small graphs keep the
// whole canvas. Ownership: a child of its CanvasView. Thread affinity: the GUI thread.

#include <QWidget>

namespace ty {

class CanvasView;

class Minimap : public QWidget {
    Q_OBJECT
public:
    explicit Minimap(CanvasView *view);

    // Shows or hides it (does the graph fit?), places it in the corner and repaints; the view calls it after
    // every scroll, zoom, resize or change of the scene.
    void refresh();

    QRectF mapArea() const;  // the part of the scene the map draws: the graph with a margin
    QRectF viewportFrame() const;  // the view's visible part, in this widget's coordinates
    QPointF toScene(const QPointF &mapPos) const;
    QPointF toMap(const QPointF &scenePos) const;

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;

private:
    qreal scale() const;
    QPointF origin() const;  // where mapArea's top-left lands in this widget

    CanvasView *m_view;
};

} // namespace ty
