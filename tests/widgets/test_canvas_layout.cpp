// Auto-arrange and edge routing on the canvas: a long chain wraps into rows with about the view's aspect and
// fits the view at a readable zoom, a branching graph keeps its edges pointing forward, and after
// auto-arrange no edge of a bundled preset (or of the wrapped chain) runs through a node it does not connect;
// the bundled presets open readable in a small window.

#include "test_suite.h"
#include "widget_test_support.h"

#include "canvas/canvas_view.h"
#include "canvas/edge_item.h"
#include "canvas/edge_routing.h"
#include "canvas/node_item.h"
#include "canvas/pipeline_scene.h"
#include "document/pipeline_document.h"

#include <QFileInfo>
#include <QTest>

using namespace ty;

namespace {

Preset chainOf(int length)
{
    Preset preset;
    preset.name = QStringLiteral("chain");
    for (int i = 0; i < length; ++i) {
        // Saved all on one line, as a script would write them.
        preset.graph.nodes.append(Node{QStringLiteral("fc%1").arg(i), QStringLiteral("layer.linear"), {},
                                       QPointF(i * 220, 40)});
        if (i > 0)
            preset.graph.edges.append(
                tytest::edge(QStringLiteral("fc%1.out").arg(i - 1), QStringLiteral("fc%1.in").arg(i)));
    }
    return preset;
}

// Every edge that passes through a node other than its own two ends, for the failure message.
QStringList edgesThroughNodes(const PipelineScene &scene)
{
    QStringList crossings;
    for (const EdgeItem *edge : scene.edgeItems())
        for (const NodeItem *node : scene.nodeItems())
            if (node != edge->fromNode() && node != edge->toNode()
                && pathCrossesRect(edge->path(), node->sceneBoundingRect()))
                crossings << QStringLiteral("%1->%2 through %3")
                                 .arg(edge->edge().from.toString(), edge->edge().to.toString(), node->nodeId());
    return crossings;
}

} // namespace

class TestCanvasLayout : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void aLongChainWrapsIntoRowsThatFitTheView()
    {
        tytest::Canvas canvas;
        canvas.document->setPreset(chainOf(200));
        canvas.view->arrangeAndFit();

        const QRectF content = canvas.scene->contentRect();
        const QSize viewport = canvas.view->viewport()->size();
        const qreal viewAspect = qreal(viewport.width()) / viewport.height();
        const qreal aspect = content.width() / content.height();
        QVERIFY2(aspect > viewAspect / 1.6 && aspect < viewAspect * 1.6,
                 qPrintable(QStringLiteral("layout %1 x %2 for a view of aspect %3")
                                .arg(content.width()).arg(content.height()).arg(viewAspect)));
        // Readable: node ids still show at this zoom (the overview font takes over below 40 %), and all fits.
        QVERIFY2(canvas.view->zoom() >= 0.25, qPrintable(QString::number(canvas.view->zoom())));
        const QRectF visible = canvas.view->mapToScene(canvas.view->viewport()->rect()).boundingRect();
        QVERIFY(visible.contains(content));
        // Within each row the chain still runs left to right.
        int forward = 0;
        for (const Edge &e : canvas.document->graph().edges)
            forward += canvas.document->graph().node(e.from.node)->pos.x() < canvas.document->graph().node(e.to.node)->pos.x();
        QVERIFY(forward >= 199 - 20);
        canvas.scene->rerouteEdges();
        const QStringList crossings = edgesThroughNodes(*canvas.scene);
        QVERIFY2(crossings.isEmpty(), qPrintable(crossings.join(QLatin1Char('\n'))));
    }

    void aBranchingGraphKeepsItsEdgesPointingForward()
    {
        tytest::Canvas canvas;
        QVERIFY(canvas.document->load(tytest::presetPath(QStringLiteral("fashion-mnist-resnet"))).ok());
        canvas.document->validateNow();
        // In one row (a view ten times wider than high): every edge goes left to right.
        canvas.scene->autoArrange(10.0);
        const PipelineGraph &graph = canvas.document->graph();
        for (const Edge &e : graph.edges)
            QVERIFY2(graph.node(e.from.node)->pos.x() < graph.node(e.to.node)->pos.x(), qPrintable(e.from.toString()));
        // Wrapped for a narrow view: an edge goes right, or down into a later row, never back up or left
        // within its row.
        canvas.scene->autoArrange(0.8);
        int wrapped = 0;
        for (const Edge &e : graph.edges) {
            const NodeItem *from = canvas.scene->nodeItem(e.from.node);
            const NodeItem *to = canvas.scene->nodeItem(e.to.node);
            const bool right = from->pos().x() < to->pos().x();
            const bool laterRow = to->pos().y() > from->sceneBoundingRect().bottom();
            QVERIFY2(right || laterRow, qPrintable(e.from.toString() + QStringLiteral(" -> ") + e.to.toString()));
            wrapped += !right;
        }
        QVERIFY(wrapped > 0);  // it did wrap
    }

    void edgesOfArrangedPresetsPassNoOtherNode_data()
    {
        QTest::addColumn<QString>("file");
        for (const QString &file : tytest::bundledPresetFiles())
            QTest::newRow(qPrintable(QFileInfo(file).fileName())) << file;
    }

    void edgesOfArrangedPresetsPassNoOtherNode()
    {
        QFETCH(QString, file);
        tytest::Canvas canvas;
        QVERIFY(canvas.document->load(file).ok());
        canvas.document->validateNow();  // nodes take their final heights (shapes, counts)
        canvas.view->arrangeAndFit();
        canvas.scene->rerouteEdges();
        const QStringList crossings = edgesThroughNodes(*canvas.scene);
        QVERIFY2(crossings.isEmpty(), qPrintable(crossings.join(QLatin1Char('\n'))));
    }

    // The canvas of the Design mode in a 1280x720 window is about 740 x 500: every bundled preset opens there
    // with its node ids readable, its saved layout already wrapped for such a view.
    void bundledPresetsOpenReadableInASmallWindow_data() { edgesOfArrangedPresetsPassNoOtherNode_data(); }

    void bundledPresetsOpenReadableInASmallWindow()
    {
        QFETCH(QString, file);
        tytest::Canvas canvas;
        canvas.view->resize(740, 500);
        QVERIFY(canvas.document->load(file).ok());
        canvas.document->validateNow();
        canvas.view->fitAll();
        QVERIFY2(canvas.view->zoom() >= 0.38, qPrintable(QString::number(canvas.view->zoom())));
        const QRectF visible = canvas.view->mapToScene(canvas.view->viewport()->rect()).boundingRect();
        QVERIFY(visible.contains(canvas.scene->contentRect()));
    }

    // The edge from the end of a row to the start of the next runs through the gap between the rows, not
    // diagonally across the graph.
    void anEdgeIntoTheNextRowRunsThroughTheGap()
    {
        tytest::Canvas canvas;
        QVERIFY(canvas.document->load(tytest::presetPath(QStringLiteral("fashion-mnist-mlp"))).ok());
        canvas.document->validateNow();
        canvas.scene->rerouteEdges();
        const QRectF fc1 = canvas.scene->nodeItem(QStringLiteral("fc1"))->sceneBoundingRect();
        const QRectF relu1 = canvas.scene->nodeItem(QStringLiteral("relu1"))->sceneBoundingRect();
        QVERIFY2(relu1.top() > fc1.bottom() && relu1.right() < fc1.left(), "relu1 starts the next row");
        const EdgeItem *edge = canvas.scene->edgeItem(tytest::edge(QStringLiteral("fc1.out"), QStringLiteral("relu1.in")));
        QVERIFY(edge);
        int between = 0;
        for (int i = 0; i <= 200; ++i) {
            const QPointF p = edge->path().pointAtPercent(i / 200.0);
            if (p.x() > relu1.right() + 5 && p.x() < fc1.left() - 5) {
                ++between;
                QVERIFY2(p.y() > fc1.bottom() && p.y() < relu1.top(),
                         qPrintable(QStringLiteral("(%1, %2) outside the gap").arg(p.x()).arg(p.y())));
            }
        }
        QVERIFY(between > 0);
    }

    // An edge connected by hand (through the document, as the drag gesture does) is routed around the node in its
    // way at once, on top of nothing: the same route it gets when the file is opened again.
    void anEdgeConnectedLiveIsRoutedAroundNodesAtOnce()
    {
        tytest::Canvas canvas;
        canvas.document->setPreset(chainOf(3));  // fc0, fc1, fc2 in a row; fc0 -> fc1 -> fc2
        const Edge middle = tytest::edge(QStringLiteral("fc1.out"), QStringLiteral("fc2.in"));
        QVERIFY(canvas.document->removeItems({}, {middle}));
        canvas.document->setPreset(canvas.document->preset());  // as saved and opened again
        QCoreApplication::processEvents();
        const Edge skip = tytest::edge(QStringLiteral("fc0.out"), QStringLiteral("fc2.in"));
        QVERIFY2(canvas.document->connectPorts(skip.from, skip.to).isEmpty(), "fc0 -> fc2 connects");
        const EdgeItem *edge = canvas.scene->edgeItem(skip);
        QVERIFY(edge);
        const QRectF inTheWay = canvas.scene->nodeItem(QStringLiteral("fc1"))->sceneBoundingRect();
        QVERIFY(pathCrossesRect(edgeCurve(edge->path().pointAtPercent(0), edge->path().pointAtPercent(1)), inTheWay));
        QVERIFY2(!pathCrossesRect(edge->path(), inTheWay), "the new edge runs through fc1");
        const QPainterPath live = edge->path();
        canvas.document->setPreset(canvas.document->preset());  // reopened
        QCoreApplication::processEvents();
        QCOMPARE(canvas.scene->edgeItem(skip)->path(), live);
    }

    void aRouteDetoursAroundANodeInTheWay()
    {
        const QPointF from(0, 100), to(600, 100);
        const QRectF obstacle(250, 40, 160, 120);
        QVERIFY(pathCrossesRect(edgeCurve(from, to), obstacle));  // the plain curve would cross it
        const QPainterPath route = routeEdge(from, to, {obstacle});
        QVERIFY(!pathCrossesRect(route, obstacle));
        QCOMPARE(route.pointAtPercent(0), from);
        QCOMPARE(route.pointAtPercent(1), to);
    }
};

TY_TEST_CLASS(TestCanvasLayout)

#include "test_canvas_layout.moc"
