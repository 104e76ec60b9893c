#include "widget_test_support.h"

#include "canvas/canvas_view.h"
#include "canvas/node_item.h"
#include "canvas/pipeline_scene.h"
#include "canvas/port_item.h"
#include "document/pipeline_document.h"

#include <QApplication>
#include <QDir>
#include <QDropEvent>
#include <QFileInfo>
#include <QJsonDocument>
#include <QMimeData>
#include <QMouseEvent>
#include <QTest>

namespace tytest {

QString presetsDir()
{
    return QStringLiteral(TRAINYARD_SOURCE_DIR "/presets");
}

QStringList bundledPresetFiles()
{
    QStringList files;
    const QDir dir(presetsDir());
    for (const QString &name : dir.entryList({QStringLiteral("*.trainyard.json")}, QDir::Files, QDir::Name))
        files << dir.filePath(name);
    return files;
}

QString presetPath(const QString &name)
{
    return QDir(presetsDir()).filePath(name + QStringLiteral(".trainyard.json"));
}

ty::Edge edge(const QString &from, const QString &to)
{
    ty::Edge e;
    e.from = ty::Endpoint{from.section(QLatin1Char('.'), 0, -2), from.section(QLatin1Char('.'), -1)};
    e.to = ty::Endpoint{to.section(QLatin1Char('.'), 0, -2), to.section(QLatin1Char('.'), -1)};
    return e;
}

QString dump(const ty::PipelineGraph &graph)
{
    QStringList lines;
    for (const ty::Node &n : graph.nodes)
        lines << QStringLiteral("%1 %2 %3 (%4, %5)")
                     .arg(n.id, n.block, QString::fromUtf8(QJsonDocument(n.params).toJson(QJsonDocument::Compact)))
                     .arg(n.pos.x())
                     .arg(n.pos.y());
    for (const ty::Edge &e : graph.edges)
        lines << e.from.toString() + QStringLiteral(" -> ") + e.to.toString();
    return lines.join(QLatin1Char('\n'));
}

ty::PipelineGraph withoutPositions(ty::PipelineGraph graph)
{
    for (ty::Node &n : graph.nodes)
        n.pos = QPointF();
    return graph;
}

Canvas::Canvas()
    : document(std::make_unique<ty::PipelineDocument>()),
      scene(std::make_unique<ty::PipelineScene>(document.get())),
      view(std::make_unique<ty::CanvasView>(scene.get()))
{
    view->resize(1000, 700);
    view->show();
    (void)QTest::qWaitForWindowExposed(view.get());
}

Canvas::~Canvas()
{
    view.reset();
    scene.reset();
    document.reset();
}

namespace {
void send(QWidget *viewport, QEvent::Type type, const QPoint &pos, Qt::MouseButton button, Qt::MouseButtons buttons,
          Qt::KeyboardModifiers mods)
{
    QMouseEvent event(type, QPointF(pos), viewport->mapToGlobal(QPointF(pos)), button, buttons, mods);
    QApplication::sendEvent(viewport, &event);
}
} // namespace

void press(QWidget *viewport, const QPoint &pos, Qt::KeyboardModifiers mods)
{
    send(viewport, QEvent::MouseButtonPress, pos, Qt::LeftButton, Qt::LeftButton, mods);
}

void move(QWidget *viewport, const QPoint &pos, Qt::MouseButtons buttons)
{
    send(viewport, QEvent::MouseMove, pos, Qt::NoButton, buttons, Qt::NoModifier);
}

void release(QWidget *viewport, const QPoint &pos, Qt::KeyboardModifiers mods)
{
    send(viewport, QEvent::MouseButtonRelease, pos, Qt::LeftButton, Qt::NoButton, mods);
}

void drag(QWidget *viewport, const QPoint &from, const QPoint &to)
{
    press(viewport, from);
    for (int i = 1; i <= 4; ++i)
        move(viewport, from + (to - from) * i / 4);
    release(viewport, to);
}

void click(QWidget *viewport, const QPoint &pos, Qt::KeyboardModifiers mods)
{
    press(viewport, pos, mods);
    release(viewport, pos, mods);
}

void dropBlock(ty::CanvasView *view, const QString &blockType, const QPoint &pos)
{
    QMimeData mime;
    mime.setData(QString::fromLatin1(ty::kBlockMimeType), blockType.toUtf8());
    QDragEnterEvent enter(pos, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(view->viewport(), &enter);
    QDropEvent drop(QPointF(pos), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(view->viewport(), &drop);
}

QPoint portPos(ty::CanvasView *view, const QString &nodeId, const QString &port, bool output)
{
    ty::NodeItem *item = view->pipelineScene()->nodeItem(nodeId);
    if (!item || !item->port(port, output))
        return QPoint(-1000, -1000);
    return view->mapFromScene(item->port(port, output)->scenePos());
}

QPoint nodeHeaderPos(ty::CanvasView *view, const QString &nodeId)
{
    ty::NodeItem *item = view->pipelineScene()->nodeItem(nodeId);
    if (!item)
        return QPoint(-1000, -1000);
    return view->mapFromScene(item->mapToScene(QPointF(item->size().width() / 2, 12)));
}

} // namespace tytest
