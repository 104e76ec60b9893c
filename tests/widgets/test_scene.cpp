// The scene follows the document (items keyed by id), and the canvas gestures: connecting by dragging between
// ports (refused connections say why), moving nodes, deleting with the keyboard, selecting both ways.

#include "test_suite.h"
#include "widget_test_support.h"

#include "canvas/canvas_view.h"
#include "canvas/edge_item.h"
#include "canvas/node_item.h"
#include "canvas/pipeline_scene.h"
#include "canvas/port_item.h"
#include "document/pipeline_document.h"

#include <QSignalSpy>
#include <QTest>
#include <QUndoStack>

using namespace ty;

namespace {
bool itemsMatchGraph(const PipelineScene &scene, const PipelineGraph &graph, QString *why)
{
    if (scene.nodeItems().size() != graph.nodes.size()) {
        *why = QStringLiteral("%1 node items for %2 nodes").arg(scene.nodeItems().size()).arg(graph.nodes.size());
        return false;
    }
    for (const Node &node : graph.nodes) {
        NodeItem *item = scene.nodeItem(node.id);
        if (!item || item->nodeId() != node.id || item->pos() != node.pos) {
            *why = QStringLiteral("node %1 has no item at its position").arg(node.id);
            return false;
        }
    }
    if (scene.edgeItems().size() != graph.edges.size()) {
        *why = QStringLiteral("%1 edge items for %2 edges").arg(scene.edgeItems().size()).arg(graph.edges.size());
        return false;
    }
    for (const Edge &edge : graph.edges) {
        EdgeItem *item = scene.edgeItem(edge);
        if (!item || item->fromNode() != scene.nodeItem(edge.from.node) || item->toNode() != scene.nodeItem(edge.to.node)) {
            *why = QStringLiteral("edge %1 has no item").arg(edgeKey(edge));
            return false;
        }
    }
    return true;
}
} // namespace

class TestScene : public QObject {
    Q_OBJECT

    std::unique_ptr<tytest::Canvas> canvas;
    PipelineDocument *doc() const { return canvas->document.get(); }
    PipelineScene *scene() const { return canvas->scene.get(); }
    CanvasView *view() const { return canvas->view.get(); }

    void verifyItems()
    {
        QString why;
        QVERIFY2(itemsMatchGraph(*scene(), doc()->graph(), &why), qPrintable(why));
    }

private Q_SLOTS:
    void init()
    {
        canvas = std::make_unique<tytest::Canvas>();
        QVERIFY(doc()->load(tytest::presetPath(QStringLiteral("fashion-mnist-mlp"))).ok());
        view()->setZoom(1.0);
        view()->centerOn(scene()->nodeItem(QStringLiteral("fc1")));
    }

    void cleanup() { canvas.reset(); }

    void itemsFollowEveryEditAndUndo()
    {
        verifyItems();
        doc()->addNode(QStringLiteral("layer.dropout"), {300, 400});
        verifyItems();
        doc()->removeItems({QStringLiteral("fc2")}, {});
        verifyItems();
        QVERIFY(!scene()->nodeItem(QStringLiteral("fc2")));
        doc()->renameNode(QStringLiteral("fc1"), QStringLiteral("dense"));
        verifyItems();
        QCOMPARE(scene()->nodeItem(QStringLiteral("dense"))->nodeId(), QStringLiteral("dense"));
        doc()->connectPorts({QStringLiteral("relu1"), QStringLiteral("out")}, {QStringLiteral("dropout"), QStringLiteral("in")});
        verifyItems();
        QVERIFY(scene()->nodeItem(QStringLiteral("dropout"))->port(QStringLiteral("in"), false)->isConnected());
        doc()->moveNodes({{QStringLiteral("dropout"), QPointF(500, 500)}}, MoveKind::Drag);
        verifyItems();
        while (doc()->undoStack()->canUndo()) {
            doc()->undoStack()->undo();
            verifyItems();
        }
        while (doc()->undoStack()->canRedo()) {
            doc()->undoStack()->redo();
            verifyItems();
        }
        doc()->newDocument();
        verifyItems();
        QCOMPARE(scene()->nodeItems().size(), 0);
    }

    void selectionIsSharedBothWays()
    {
        doc()->setSelectedNodes({QStringLiteral("fc1"), QStringLiteral("relu1")});
        QVERIFY(scene()->nodeItem(QStringLiteral("fc1"))->isSelected());
        QVERIFY(!scene()->nodeItem(QStringLiteral("fc2"))->isSelected());
        scene()->clearSelection();
        scene()->nodeItem(QStringLiteral("fc2"))->setSelected(true);
        QCOMPARE(doc()->selectedNodes(), QStringList{QStringLiteral("fc2")});
        // Ctrl+click adds to the selection.
        tytest::click(view()->viewport(), tytest::nodeHeaderPos(view(), QStringLiteral("relu1")), Qt::ControlModifier);
        QCOMPARE(doc()->selectedNodes(), (QStringList{QStringLiteral("relu1"), QStringLiteral("fc2")}));
        // A click on the background clears it.
        tytest::click(view()->viewport(), QPoint(5, 5));
        QVERIFY(doc()->selectedNodes().isEmpty());
    }

    void connectionRulesThroughTheScene()
    {
        doc()->removeItems({}, {tytest::edge(QStringLiteral("relu1.out"), QStringLiteral("fc2.in"))});
        auto port = [&](const char *node, const char *name, bool output) {
            return scene()->nodeItem(QString::fromLatin1(node))->port(QString::fromLatin1(name), output);
        };
        QVERIFY(scene()->connectPorts(port("data", "labels", true), port("fc2", "in", false)).contains(QStringLiteral("target output")));
        QVERIFY(scene()->connectPorts(port("relu3", "out", true), port("fc2", "in", false)).contains(QStringLiteral("cycle")));
        QVERIFY(scene()->connectPorts(port("relu1", "out", true), port("fc3", "in", false)).contains(QStringLiteral("already connected")));
        QVERIFY(scene()->connectPorts(port("relu1", "out", true), port("relu2", "out", true)).contains(QStringLiteral("output")));
        QVERIFY(scene()->connectPorts(port("fc2", "in", false), port("relu1", "out", true)).isEmpty());  // either order
        QVERIFY(scene()->edgeItem(tytest::edge(QStringLiteral("relu1.out"), QStringLiteral("fc2.in"))));
    }

    void draggingBetweenPortsConnectsInOneStep()
    {
        const Edge e = tytest::edge(QStringLiteral("relu1.out"), QStringLiteral("fc2.in"));
        doc()->removeItems({}, {e});
        const int steps = doc()->undoStack()->count();
        tytest::drag(view()->viewport(), tytest::portPos(view(), QStringLiteral("relu1"), QStringLiteral("out"), true),
                     tytest::portPos(view(), QStringLiteral("fc2"), QStringLiteral("in"), false));
        QVERIFY(doc()->graph().edges.contains(e));
        QCOMPARE(doc()->undoStack()->count(), steps + 1);
        QVERIFY(scene()->edgeItem(e));
    }

    void anImpossibleConnectionIsRefusedWithTheReason()
    {
        doc()->removeItems({}, {tytest::edge(QStringLiteral("relu1.out"), QStringLiteral("fc2.in"))});
        const PipelineGraph before = doc()->graph();
        QSignalSpy refused(scene(), &PipelineScene::connectionRefused);
        QSignalSpy status(scene(), &PipelineScene::statusMessage);
        tytest::drag(view()->viewport(), tytest::portPos(view(), QStringLiteral("data"), QStringLiteral("labels"), true),
                     tytest::portPos(view(), QStringLiteral("fc2"), QStringLiteral("in"), false));
        QVERIFY(doc()->graph() == before);
        QCOMPARE(refused.count(), 1);
        QVERIFY(refused.first().first().toString().contains(QStringLiteral("target output cannot feed a tensor input")));
        QVERIFY(status.last().first().toString().startsWith(QStringLiteral("Cannot connect")));
    }

    void draggingAConnectedInputAwayRemovesItsEdge()
    {
        const Edge e = tytest::edge(QStringLiteral("relu1.out"), QStringLiteral("fc2.in"));
        const QPoint in = tytest::portPos(view(), QStringLiteral("fc2"), QStringLiteral("in"), false);
        tytest::drag(view()->viewport(), in, in + QPoint(0, 200));
        QVERIFY(!doc()->graph().edges.contains(e));
        doc()->undoStack()->undo();
        QVERIFY(doc()->graph().edges.contains(e));
        QVERIFY(scene()->edgeItem(e)->isVisible());
    }

    void draggingANodeIsOneSnappedMove()
    {
        const QPointF start = doc()->graph().node(QStringLiteral("fc1"))->pos;
        const QPoint header = tytest::nodeHeaderPos(view(), QStringLiteral("fc1"));
        const int steps = doc()->undoStack()->count();
        tytest::drag(view()->viewport(), header, header + QPoint(47, 33));
        const QPointF moved = doc()->graph().node(QStringLiteral("fc1"))->pos;
        QCOMPARE(doc()->undoStack()->count(), steps + 1);
        QVERIFY(moved != start);
        QCOMPARE(std::fmod(moved.x(), 20.0), 0.0);
        QCOMPARE(std::fmod(moved.y(), 20.0), 0.0);
        QCOMPARE(scene()->nodeItem(QStringLiteral("fc1"))->pos(), moved);
        // Edges follow their nodes.
        EdgeItem *edge = scene()->edgeItem(tytest::edge(QStringLiteral("fc1.out"), QStringLiteral("relu1.in")));
        QCOMPARE(edge->path().elementAt(0), scene()->nodeItem(QStringLiteral("fc1"))->portScenePos(QStringLiteral("out"), true));
        doc()->undoStack()->undo();
        QCOMPARE(scene()->nodeItem(QStringLiteral("fc1"))->pos(), start);
    }

    void arrowKeysNudgeAndDeleteRemoves()
    {
        doc()->setSelectedNodes({QStringLiteral("fc1")});
        view()->setFocus();
        const QPointF start = doc()->graph().node(QStringLiteral("fc1"))->pos;
        QTest::keyClick(view()->viewport(), Qt::Key_Right);
        QTest::keyClick(view()->viewport(), Qt::Key_Right);
        QTest::keyClick(view()->viewport(), Qt::Key_Down);
        QCOMPARE(doc()->graph().node(QStringLiteral("fc1"))->pos, start + QPointF(40, 20));
        QCOMPARE(doc()->undoStack()->count(), 1);  // the nudges merged
        QTest::keyClick(view()->viewport(), Qt::Key_Delete);
        QVERIFY(!doc()->graph().node(QStringLiteral("fc1")));
        QVERIFY(!scene()->nodeItem(QStringLiteral("fc1")));
        // Select an edge and delete it.
        EdgeItem *edge = scene()->edgeItem(tytest::edge(QStringLiteral("relu2.out"), QStringLiteral("fc3.in")));
        edge->setSelected(true);
        scene()->deleteSelection();
        QVERIFY(!doc()->graph().edges.contains(tytest::edge(QStringLiteral("relu2.out"), QStringLiteral("fc3.in"))));
    }

    void rubberBandSelectsWithShiftDrag()
    {
        // From the background above and left of fc2 (edges are routed through the gaps between nodes: the band
        // starts where none runs, as a press on an edge would pick the edge) to below and right of relu2.
        const QPoint corner = view()->mapFromScene(scene()->nodeItem(QStringLiteral("fc2"))->sceneBoundingRect().topLeft());
        QPoint a = corner - QPoint(10, 10);
        for (int d = 10; d <= 60 && !view()->items(a).isEmpty(); d += 5)
            a = corner - QPoint(d, d);
        QVERIFY(view()->items(a).isEmpty());
        const QPoint b = view()->mapFromScene(scene()->nodeItem(QStringLiteral("relu2"))->sceneBoundingRect().bottomRight()) + QPoint(10, 10);
        tytest::press(view()->viewport(), a, Qt::ShiftModifier);
        tytest::move(view()->viewport(), (a + b) / 2);
        tytest::move(view()->viewport(), b);
        tytest::release(view()->viewport(), b, Qt::ShiftModifier);
        QVERIFY(doc()->selectedNodes().contains(QStringLiteral("fc2")));
        QVERIFY(doc()->selectedNodes().contains(QStringLiteral("relu2")));
        QVERIFY(!doc()->selectedNodes().contains(QStringLiteral("fc1")));
    }

    void zoomAndPanChangeOnlyTheView()
    {
        const qreal zoom = view()->zoom();
        view()->zoomIn();
        QVERIFY(view()->zoom() > zoom);
        const QPointF center = view()->visibleCenter();
        tytest::drag(view()->viewport(), QPoint(5, 650), QPoint(105, 600));  // background drag pans
        QVERIFY(view()->visibleCenter() != center);
        view()->fitAll();
        const QRectF visible = view()->mapToScene(view()->viewport()->rect()).boundingRect();
        QVERIFY2(visible.contains(scene()->contentRect()),
                 qPrintable(QStringLiteral("visible %1,%2 %3x%4, zoom %5")
                                .arg(visible.x()).arg(visible.y()).arg(visible.width()).arg(visible.height()).arg(view()->zoom())));
        QCOMPARE(doc()->undoStack()->count(), 0);
    }
};

TY_TEST_CLASS(TestScene)

#include "test_scene.moc"
