#pragma once
// The canvas: a QGraphicsView on a PipelineScene with a grid background in the palette's colours, zoom with
// Ctrl+wheel (or a pinch), pan by dragging the background or with the middle button, rubber-band selection
// with Shift- or Ctrl-drag on the background, and drops: a block from the palette adds a node where it is
// dropped, a preset file asks the window to open it. An empty canvas says how to start.
// Ownership: does not own the scene. Thread affinity: the GUI thread.

#include <QGraphicsView>

#include <optional>

class QAction;
class QMimeData;

namespace ty {

class Minimap;
class NodeFindBar;
class PipelineScene;

inline constexpr char kBlockMimeType[] = "application/x-trainyard-block";  // payload: the block's type id

class CanvasView : public QGraphicsView {
    Q_OBJECT
public:
    explicit CanvasView(PipelineScene *scene, QWidget *parent = nullptr);

    PipelineScene *pipelineScene() const { return m_scene; }
    NodeFindBar *findBar() const { return m_findBar; }
    Minimap *minimap() const { return m_minimap; }
    QAction *findAction() const { return m_findAction; }  // Ctrl+F: opens the find bar
    qreal zoom() const;
    void setZoom(qreal zoom);
    QPointF visibleCenter() const;
    // Where the mouse is on the scene, when it is over the view (paste goes there).
    std::optional<QPointF> cursorScenePos() const;
    QPointF pastePosition() const;  // the cursor when it is over the view, else the middle of what is visible
    // Adds a node of `blockType` centred on `scenePos` (snapped to the grid). Returns its id.
    QString dropBlock(const QString &blockType, const QPointF &scenePos);

    static constexpr qreal kMinZoom = 0.03;  // a 200-node chain in one row still fits
    static constexpr qreal kMaxZoom = 3.0;

public Q_SLOTS:
    void zoomIn();
    void zoomOut();
    void resetZoom();
    void fitAll();            // the whole graph, at most at 100% (what an opened preset shows)
    void arrangeAndFit();     // auto-arrange towards this view's aspect ratio, then show the whole graph
    void centerOnNode(const QString &id);
    void ensureNodeVisible(const QString &id);  // scrolls only as far as needed

Q_SIGNALS:
    void zoomChanged(qreal zoom);
    void presetFileDropped(const QString &path);
    // Right click: `scenePos` is where it happened (new blocks go there), `globalPos` where the menu opens.
    void contextMenuRequested(const QPointF &scenePos, const QPoint &globalPos);

protected:
    void drawBackground(QPainter *painter, const QRectF &rect) override;
    void drawForeground(QPainter *painter, const QRectF &rect) override;  // the empty canvas's hint
    void contextMenuEvent(QContextMenuEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    bool viewportEvent(QEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dragMoveEvent(QDragMoveEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    void changeEvent(QEvent *event) override;
    void scrollContentsBy(int dx, int dy) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void zoomBy(qreal factor);
    bool acceptsDrop(const QMimeData *mime) const;

    PipelineScene *m_scene;
    NodeFindBar *m_findBar;
    Minimap *m_minimap;
    QAction *m_findAction;
    bool m_panning = false;
    bool m_panMoved = false;
    QPoint m_panLast;
};

} // namespace ty
