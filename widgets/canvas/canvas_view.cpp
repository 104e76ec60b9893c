#include "canvas_view.h"

#include "common/canvas_style.h"
#include "document/pipeline_document.h"
#include "minimap.h"
#include "node_find_bar.h"
#include "node_item.h"
#include "pipeline_scene.h"

#include <QAction>
#include <QContextMenuEvent>
#include <QMimeData>
#include <QNativeGestureEvent>
#include <QScrollBar>
#include <QUrl>
#include <QWheelEvent>

#include <cmath>

namespace ty {

CanvasView::CanvasView(PipelineScene *scene, QWidget *parent)
    : QGraphicsView(scene, parent), m_scene(scene), m_findBar(new NodeFindBar(this)), m_minimap(new Minimap(this)),
      m_findAction(new QAction(tr("&Find Node…"), this))
{
    m_findAction->setShortcut(QKeySequence::Find);
    m_findAction->setShortcutContext(Qt::WindowShortcut);  // only while the canvas is shown
    m_findAction->setToolTip(tr("Find a node by id or block (Ctrl+F); Enter goes to the next match"));
    connect(m_findAction, &QAction::triggered, m_findBar, &NodeFindBar::open);
    addAction(m_findAction);
    connect(this, &CanvasView::zoomChanged, m_minimap, &Minimap::refresh);
    connect(m_scene, &QGraphicsScene::changed, m_minimap, &Minimap::refresh);
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing | QPainter::SmoothPixmapTransform);
    setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
    setOptimizationFlags(QGraphicsView::DontSavePainterState);
    setCacheMode(QGraphicsView::CacheBackground);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setResizeAnchor(QGraphicsView::AnchorViewCenter);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setRubberBandSelectionMode(Qt::IntersectsItemShape);
    setFrameShape(QFrame::NoFrame);
    setAcceptDrops(true);
    setFocusPolicy(Qt::StrongFocus);
    viewport()->grabGesture(Qt::PinchGesture);
    // The empty canvas's hint comes and goes with the first node.
    auto refreshHint = [this] {
        if (m_scene->nodeItems().size() <= 1)
            viewport()->update();
    };
    connect(m_scene->document(), &PipelineDocument::documentReset, this, refreshHint);
    connect(m_scene->document(), &PipelineDocument::nodeAdded, this, refreshHint);
    connect(m_scene->document(), &PipelineDocument::nodeRemoved, this, refreshHint);
}

qreal CanvasView::zoom() const
{
    return transform().m11();
}

void CanvasView::setZoom(qreal zoom)
{
    zoom = std::clamp(zoom, kMinZoom, kMaxZoom);
    if (qFuzzyCompare(zoom, this->zoom()))
        return;
    setTransform(QTransform::fromScale(zoom, zoom));
    Q_EMIT zoomChanged(zoom);
}

void CanvasView::zoomBy(qreal factor)
{
    setZoom(zoom() * factor);
}

void CanvasView::zoomIn()
{
    const ViewportAnchor anchor = transformationAnchor();
    setTransformationAnchor(AnchorViewCenter);
    zoomBy(1.25);
    setTransformationAnchor(anchor);
}

void CanvasView::zoomOut()
{
    const ViewportAnchor anchor = transformationAnchor();
    setTransformationAnchor(AnchorViewCenter);
    zoomBy(1 / 1.25);
    setTransformationAnchor(anchor);
}

void CanvasView::resetZoom()
{
    setZoom(1.0);
}

QPointF CanvasView::visibleCenter() const
{
    return mapToScene(viewport()->rect().center());
}

std::optional<QPointF> CanvasView::cursorScenePos() const
{
    const QPoint pos = viewport()->mapFromGlobal(QCursor::pos());
    if (!viewport()->rect().contains(pos))
        return std::nullopt;
    return mapToScene(pos);
}

QPointF CanvasView::pastePosition() const
{
    return cursorScenePos().value_or(visibleCenter());
}

void CanvasView::fitAll()
{
    m_scene->updateSceneRect();
    const QRectF content = m_scene->contentRect();
    if (content.isNull()) {
        resetZoom();
        centerOn(0, 0);
        return;
    }
    const QRectF target = content.adjusted(-40, -40, 40, 40);
    const qreal fit = std::min(viewport()->width() / target.width(), viewport()->height() / target.height());
    setZoom(std::min(fit, 1.0));
    centerOn(target.center());
    m_minimap->refresh();  // centring may not scroll, and the zoom changed before it
}

void CanvasView::arrangeAndFit()
{
    const QSize size = viewport()->size();
    m_scene->autoArrange(size.height() > 0 ? qreal(size.width()) / size.height() : 1.6);
    fitAll();
}

void CanvasView::ensureNodeVisible(const QString &id)
{
    if (NodeItem *item = m_scene->nodeItem(id)) {
        m_scene->updateSceneRect();
        ensureVisible(item, 40, 40);
    }
}

void CanvasView::centerOnNode(const QString &id)
{
    if (NodeItem *item = m_scene->nodeItem(id)) {
        m_scene->updateSceneRect();
        if (zoom() < 0.5)
            setZoom(0.8);
        centerOn(item);
    }
}

QString CanvasView::dropBlock(const QString &blockType, const QPointF &scenePos)
{
    const QPointF topLeft = scenePos - QPointF(style::kNodeWidth / 2, style::kHeaderHeight / 2);
    return m_scene->document()->addNode(blockType, m_scene->snapToGrid() ? m_scene->snapped(topLeft) : topLeft);
}

void CanvasView::drawBackground(QPainter *painter, const QRectF &rect)
{
    painter->fillRect(rect, style::canvasBackground(palette()));
    const qreal grid = style::kGrid;
    const bool minor = grid * zoom() >= 9;
    const qreal step = minor ? grid : grid * 5;
    QVector<QLineF> minorLines, majorLines;
    const qreal left = std::floor(rect.left() / step) * step;
    const qreal top = std::floor(rect.top() / step) * step;
    for (qreal x = left; x < rect.right(); x += step)
        (std::fmod(std::abs(x), grid * 5) < 0.5 ? majorLines : minorLines).append(QLineF(x, rect.top(), x, rect.bottom()));
    for (qreal y = top; y < rect.bottom(); y += step)
        (std::fmod(std::abs(y), grid * 5) < 0.5 ? majorLines : minorLines).append(QLineF(rect.left(), y, rect.right(), y));
    painter->setRenderHint(QPainter::Antialiasing, false);
    painter->setPen(QPen(style::gridColor(palette(), false), 0));
    painter->drawLines(minorLines);
    painter->setPen(QPen(style::gridColor(palette(), true), 0));
    painter->drawLines(majorLines);
}

void CanvasView::drawForeground(QPainter *painter, const QRectF &)
{
    if (!m_scene->nodeItems().isEmpty())
        return;
    // In viewport coordinates, so the hint stays put and readable whatever the zoom.
    painter->save();
    painter->resetTransform();
    QFont font = painter->font();
    font.setPointSizeF(font.pointSizeF() * 1.25);
    painter->setFont(font);
    painter->setPen(style::mutedText(palette()));
    painter->drawText(viewport()->rect().adjusted(40, 40, -40, -40), Qt::AlignCenter | Qt::TextWordWrap,
                      tr("Drag blocks from the palette onto the canvas,\nthen drag from an output port to an input "
                         "port to connect them.\n\nOr drop a preset file here."));
    painter->restore();
}

void CanvasView::contextMenuEvent(QContextMenuEvent *event)
{
    QGraphicsItem *item = itemAt(event->pos());
    if (item)
        item = item->topLevelItem();  // a port stands for its node
    if (item && (item->flags() & QGraphicsItem::ItemIsSelectable) && !item->isSelected()) {
        // Right-clicking an unselected node or edge selects it first, as a click would.
        m_scene->clearSelection();
        item->setSelected(true);
    }
    Q_EMIT contextMenuRequested(mapToScene(event->pos()), event->globalPos());
    event->accept();
}

void CanvasView::wheelEvent(QWheelEvent *event)
{
    if (event->modifiers() & Qt::ControlModifier) {
        const qreal steps = event->angleDelta().y() / 120.0;
        zoomBy(std::pow(1.15, steps));
        event->accept();
        return;
    }
    QGraphicsView::wheelEvent(event);
}

bool CanvasView::viewportEvent(QEvent *event)
{
    if (event->type() == QEvent::NativeGesture) {
        auto *gesture = static_cast<QNativeGestureEvent *>(event);
        if (gesture->gestureType() == Qt::ZoomNativeGesture) {
            zoomBy(1 + gesture->value());
            return true;
        }
    }
    return QGraphicsView::viewportEvent(event);
}

void CanvasView::mousePressEvent(QMouseEvent *event)
{
    const bool background = !itemAt(event->position().toPoint());
    const bool selectMods = event->modifiers() & (Qt::ShiftModifier | Qt::ControlModifier);
    if (event->button() == Qt::MiddleButton || (event->button() == Qt::LeftButton && background && !selectMods)) {
        m_panning = true;
        m_panMoved = false;
        m_panLast = event->position().toPoint();
        viewport()->setCursor(Qt::ClosedHandCursor);
        event->accept();
        return;
    }
    if (event->button() == Qt::LeftButton && background && selectMods)
        setDragMode(QGraphicsView::RubberBandDrag);
    QGraphicsView::mousePressEvent(event);
}

void CanvasView::mouseMoveEvent(QMouseEvent *event)
{
    if (m_panning) {
        const QPoint delta = event->position().toPoint() - m_panLast;
        m_panLast = event->position().toPoint();
        m_panMoved = m_panMoved || !delta.isNull();
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() - delta.x());
        verticalScrollBar()->setValue(verticalScrollBar()->value() - delta.y());
        event->accept();
        return;
    }
    QGraphicsView::mouseMoveEvent(event);
}

void CanvasView::mouseReleaseEvent(QMouseEvent *event)
{
    if (m_panning) {
        m_panning = false;
        viewport()->unsetCursor();
        if (!m_panMoved && event->button() == Qt::LeftButton)
            m_scene->clearSelection();  // a click on the background
        event->accept();
        return;
    }
    QGraphicsView::mouseReleaseEvent(event);
    setDragMode(QGraphicsView::NoDrag);
}

bool CanvasView::acceptsDrop(const QMimeData *mime) const
{
    if (mime->hasFormat(QString::fromLatin1(kBlockMimeType)))
        return true;
    for (const QUrl &url : mime->urls())
        if (url.isLocalFile() && url.toLocalFile().endsWith(QStringLiteral(".json")))
            return true;
    return false;
}

void CanvasView::dragEnterEvent(QDragEnterEvent *event)
{
    if (acceptsDrop(event->mimeData()))
        event->acceptProposedAction();
    else
        event->ignore();
}

void CanvasView::dragMoveEvent(QDragMoveEvent *event)
{
    if (acceptsDrop(event->mimeData()))
        event->acceptProposedAction();
    else
        event->ignore();
}

void CanvasView::dropEvent(QDropEvent *event)
{
    const QMimeData *mime = event->mimeData();
    if (mime->hasFormat(QString::fromLatin1(kBlockMimeType))) {
        const QString type = QString::fromUtf8(mime->data(QString::fromLatin1(kBlockMimeType)));
        dropBlock(type, mapToScene(event->position().toPoint()));
        setFocus();
        event->acceptProposedAction();
        return;
    }
    for (const QUrl &url : mime->urls()) {
        if (url.isLocalFile() && url.toLocalFile().endsWith(QStringLiteral(".json"))) {
            event->acceptProposedAction();
            Q_EMIT presetFileDropped(url.toLocalFile());
            return;
        }
    }
    event->ignore();
}

void CanvasView::scrollContentsBy(int dx, int dy)
{
    QGraphicsView::scrollContentsBy(dx, dy);
    m_minimap->refresh();
}

void CanvasView::resizeEvent(QResizeEvent *event)
{
    QGraphicsView::resizeEvent(event);
    m_minimap->refresh();
}

void CanvasView::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange) {
        resetCachedContent();
        viewport()->update();
    }
    QGraphicsView::changeEvent(event);
}

} // namespace ty
