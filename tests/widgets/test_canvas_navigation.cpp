// Finding one's way on the canvas: an opened preset fits the view, ports can be grabbed beyond their dot,
// paste lands at the cursor (or the view's middle) without covering nodes, Ctrl+F finds nodes and cycles
// through the matches, and the minimap shows the visible part of a big graph and moves the view.

#include "test_suite.h"
#include "widget_test_support.h"

#include "main_window.h"

#include "canvas/canvas_view.h"
#include "canvas/minimap.h"
#include "canvas/node_find_bar.h"
#include "canvas/node_item.h"
#include "canvas/pipeline_scene.h"
#include "canvas/port_item.h"
#include "common/canvas_style.h"
#include "document/pipeline_document.h"

#include <QAction>
#include <QLineEdit>
#include <QTest>

using namespace ty;

namespace {

QRectF visibleRect(const CanvasView *view)
{
    return view->mapToScene(view->viewport()->rect()).boundingRect();
}

} // namespace

class TestCanvasNavigation : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void anOpenedPresetFitsTheView()
    {
        MainWindow window;
        window.setInteractive(false);
        window.resize(1280, 720);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        // The ResNet is the widest preset: shown whole, never above 100 %.
        QVERIFY(window.openFile(tytest::presetPath(QStringLiteral("fashion-mnist-resnet"))));
        QTRY_VERIFY(visibleRect(window.view()).contains(window.scene()->contentRect()));
        QVERIFY(window.view()->zoom() <= 1.0);
        // A small one is not blown up past 100 %.
        QVERIFY(window.openFile(tytest::presetPath(QStringLiteral("wine-tabular"))));
        QTRY_VERIFY(visibleRect(window.view()).contains(window.scene()->contentRect()));
        QVERIFY(window.view()->zoom() <= 1.0);
    }

    void aPortIsGrabbedBeyondItsDot()
    {
        tytest::Canvas canvas;
        QVERIFY(canvas.document->load(tytest::presetPath(QStringLiteral("fashion-mnist-mlp"))).ok());
        PortItem *input = canvas.scene->nodeItem(QStringLiteral("fc2"))->port(QStringLiteral("in"), false);
        QVERIFY(input);
        // Twice the drawn radius away from the centre, outside the node: still the port.
        const qreal away = 2 * style::kPortRadius;
        QGraphicsItem *hit = canvas.scene->itemAt(input->scenePos() - QPointF(away, 0), QTransform());
        QVERIFY(hit);
        QCOMPARE(hit->type(), int(PortItem::Type));
        QCOMPARE(static_cast<PortItem *>(hit), input);
        // A drag starting there takes the port, not the background: fc2's edge comes away with it.
        canvas.view->setZoom(1.0);
        canvas.view->centerOn(input);
        const Edge feeding = canvas.document->graph().edgesInto(QStringLiteral("fc2")).first();
        const QPoint start = canvas.view->mapFromScene(input->scenePos() - QPointF(away, 0));
        tytest::drag(canvas.view->viewport(), start, start + QPoint(-60, 200));
        QVERIFY2(!canvas.document->graph().edges.contains(feeding), qPrintable(tytest::dump(canvas.document->graph())));
    }

    void pasteLandsAtThePointWithoutCoveringNodes()
    {
        tytest::Canvas canvas;
        QVERIFY(canvas.document->load(tytest::presetPath(QStringLiteral("fashion-mnist-mlp"))).ok());
        canvas.document->setSelectedNodes({QStringLiteral("fc2"), QStringLiteral("relu2")});
        canvas.scene->copySelection();
        // Right on top of fc2: the copy goes below it, in the column of the point.
        const QPointF at = canvas.scene->nodeItem(QStringLiteral("fc2"))->pos();
        const QStringList pasted = canvas.scene->paste(at);
        QCOMPARE(pasted.size(), 2);
        const QList<NodeItem *> items = canvas.scene->nodeItems();
        for (const QString &id : pasted) {
            const NodeItem *item = canvas.scene->nodeItem(id);
            for (const NodeItem *other : items)
                QVERIFY2(pasted.contains(other->nodeId()) || !item->sceneBoundingRect().intersects(other->sceneBoundingRect()),
                         qPrintable(id + QStringLiteral(" covers ") + other->nodeId()));
        }
        const QPointF pastedAt = canvas.scene->nodeItem(pasted.first())->pos();
        QCOMPARE(pastedAt.x(), canvas.scene->snapped(at).x());
        QVERIFY(pastedAt.y() > at.y());
        // Where the cursor is not over the view, paste goes to the middle of what is shown.
        QCursor::setPos(canvas.view->viewport()->mapToGlobal(QPoint(-300, -300)));
        QCOMPARE(canvas.view->pastePosition(), canvas.view->visibleCenter());
        const QPoint inside(200, 150);
        QCursor::setPos(canvas.view->viewport()->mapToGlobal(inside));
        QTRY_COMPARE(canvas.view->pastePosition(), canvas.view->mapToScene(inside));
    }

    void findSelectsCentresAndCyclesMatches()
    {
        tytest::Canvas canvas;
        QVERIFY(canvas.document->load(tytest::presetPath(QStringLiteral("fashion-mnist-resnet"))).ok());
        canvas.view->setZoom(1.0);
        canvas.view->findAction()->trigger();
        NodeFindBar *bar = canvas.view->findBar();
        QVERIFY(bar->isVisible());
        QTRY_VERIFY(bar->field()->hasFocus());

        // What should match, by id or block type id.
        const QString text = QStringLiteral("stage");
        QStringList expected;
        for (const Node &node : canvas.document->graph().nodes)
            if (node.id.contains(text, Qt::CaseInsensitive) || node.block.contains(text, Qt::CaseInsensitive))
                expected << node.id;
        QVERIFY(expected.size() >= 2);
        QTest::keyClicks(bar->field(), text);
        for (int round = 0; round < expected.size() + 1; ++round) {
            QTest::keyClick(bar->field(), Qt::Key_Return);
            const QString wanted = expected.at(round % expected.size());  // past the last: the first again
            QCOMPARE(canvas.document->selectedNodes(), QStringList{wanted});
            const QPointF centre = canvas.scene->nodeItem(wanted)->sceneBoundingRect().center();
            QVERIFY(QLineF(canvas.view->visibleCenter(), centre).length() < 2);
        }
        QCOMPARE(findNodes(*canvas.document, QStringLiteral("layer.conv2d")).isEmpty(),
                 !std::any_of(canvas.document->graph().nodes.cbegin(), canvas.document->graph().nodes.cend(),
                              [](const Node &n) { return n.block == QStringLiteral("layer.conv2d"); }));
        QTest::keyClick(bar->field(), Qt::Key_Escape);
        QVERIFY(!bar->isVisible());
    }

    void theMinimapShowsTheViewAndMovesIt()
    {
        tytest::Canvas canvas;
        QVERIFY(canvas.document->load(tytest::presetPath(QStringLiteral("fashion-mnist-resnet"))).ok());
        canvas.view->fitAll();
        Minimap *map = canvas.view->minimap();
        QVERIFY(!map->isVisible());  // everything fits: no overview
        canvas.view->setZoom(1.0);
        const QString first = canvas.document->graph().nodes.first().id;
        canvas.view->centerOn(canvas.scene->nodeItem(first));
        QVERIFY(map->isVisible());

        // The frame is the visible part of the scene, drawn to the map's scale.
        const QRectF frame = map->viewportFrame();
        const QRectF visible = visibleRect(canvas.view.get());
        const qreal tolerance = 2 / (frame.width() / visible.width());  // two map pixels, in scene units
        QVERIFY(QLineF(map->toScene(frame.center()), visible.center()).length() < tolerance);
        QVERIFY(qAbs(frame.width() / frame.height() - visible.width() / visible.height()) < 0.05);

        // Clicking the map centres the view on the place clicked: the last node.
        const QString last = canvas.document->graph().nodes.last().id;
        const QPointF target = canvas.scene->nodeItem(last)->sceneBoundingRect().center();
        QVERIFY(!visibleRect(canvas.view.get()).contains(target));
        QTest::mouseClick(map, Qt::LeftButton, Qt::NoModifier, map->toMap(target).toPoint());
        QVERIFY(QLineF(canvas.view->visibleCenter(), target).length() < tolerance);
        QVERIFY(map->viewportFrame().contains(map->toMap(target)));
    }
};

TY_TEST_CLASS(TestCanvasNavigation)

#include "test_canvas_navigation.moc"
