#pragma once
// Shared helpers of the widget tests: bundled presets, a document with a scene and view on screen
// (offscreen platform), and synthetic mouse and drop events on a view's viewport.

#include "pipeline_graph.h"
#include "preset.h"
#include "required_data.h"  // fashionMnistAvailable()

#include <QPoint>
#include <QString>
#include <QStringList>

#include <memory>

class QWidget;

namespace ty {
class CanvasView;
class PipelineDocument;
class PipelineScene;
} // namespace ty

namespace tytest {

QString presetsDir();
QStringList bundledPresetFiles();
QString presetPath(const QString &name);  // "fashion-mnist-mlp" -> its file
ty::Edge edge(const QString &from, const QString &to);
QString dump(const ty::PipelineGraph &graph);  // one line per node and edge, for failure messages
ty::PipelineGraph withoutPositions(ty::PipelineGraph graph);

// A document, its scene, and a view showing it at 1000x700 pixels.
struct Canvas {
    Canvas();
    ~Canvas();
    std::unique_ptr<ty::PipelineDocument> document;
    std::unique_ptr<ty::PipelineScene> scene;
    std::unique_ptr<ty::CanvasView> view;
};

// Synthetic input on a view's viewport (positions in viewport pixels).
void press(QWidget *viewport, const QPoint &pos, Qt::KeyboardModifiers mods = Qt::NoModifier);
void move(QWidget *viewport, const QPoint &pos, Qt::MouseButtons buttons = Qt::LeftButton);
void release(QWidget *viewport, const QPoint &pos, Qt::KeyboardModifiers mods = Qt::NoModifier);
// Press at `from`, move there in a few steps, release at `to`.
void drag(QWidget *viewport, const QPoint &from, const QPoint &to);
void click(QWidget *viewport, const QPoint &pos, Qt::KeyboardModifiers mods = Qt::NoModifier);
// Drops a palette block (kBlockMimeType) at `pos`, as a drag from the palette would.
void dropBlock(ty::CanvasView *view, const QString &blockType, const QPoint &pos);
// Where a port is in the view's viewport.
QPoint portPos(ty::CanvasView *view, const QString &nodeId, const QString &port, bool output);
QPoint nodeHeaderPos(ty::CanvasView *view, const QString &nodeId);

} // namespace tytest
