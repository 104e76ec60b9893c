// core/graph/graph_order: topological order (every edge forward, ties in node order), cycle detection and
// node depths for auto-arrange.

#include "test_suite.h"
#include "core_test_support.h"

#include "graph_order.h"
#include "preset_format.h"

#include <QFileInfo>
#include <QtTest>

using namespace ty;
using tytest::edge;
using tytest::node;

namespace {

// A residual block, with nodes listed out of order on purpose:
// data -> stem -> conv1 -> bn -> add.a; stem -> add.b; add -> fc -> loss -> opt; data.labels -> loss; sched -> opt.
PipelineGraph residualGraph()
{
    return tytest::graph({node(QStringLiteral("opt"), QStringLiteral("optimizer.sgd")),
                          node(QStringLiteral("add"), QStringLiteral("layer.add")),
                          node(QStringLiteral("loss"), QStringLiteral("loss.cross_entropy")),
                          node(QStringLiteral("fc"), QStringLiteral("layer.linear")),
                          node(QStringLiteral("conv1"), QStringLiteral("layer.conv2d")),
                          node(QStringLiteral("bn"), QStringLiteral("layer.batchnorm2d")),
                          node(QStringLiteral("stem"), QStringLiteral("layer.conv2d")),
                          node(QStringLiteral("data"), QStringLiteral("dataset.fashion_mnist")),
                          node(QStringLiteral("sched"), QStringLiteral("schedule.cosine"))},
                         {{"data.images", "stem.in"},
                          {"stem.out", "conv1.in"},
                          {"conv1.out", "bn.in"},
                          {"bn.out", "add.a"},
                          {"stem.out", "add.b"},
                          {"add.out", "fc.in"},
                          {"fc.out", "loss.input"},
                          {"data.labels", "loss.target"},
                          {"loss.loss", "opt.loss"},
                          {"sched.schedule", "opt.schedule"}});
}

// Empty when `order` holds every node once and every edge goes forward; else what is wrong.
QString orderProblem(const PipelineGraph &g, const QStringList &order)
{
    if (order.size() != g.nodes.size())
        return QStringLiteral("%1 ids for %2 nodes: %3").arg(order.size()).arg(g.nodes.size()).arg(order.join(QStringLiteral(", ")));
    for (const Node &n : g.nodes)
        if (order.count(n.id) != 1)
            return QStringLiteral("%1 appears %2 times").arg(n.id).arg(order.count(n.id));
    for (const Edge &e : g.edges)
        if (order.indexOf(e.from.node) >= order.indexOf(e.to.node))
            return QStringLiteral("edge %1 -> %2 goes backwards in %3")
                .arg(e.from.toString(), e.to.toString(), order.join(QStringLiteral(", ")));
    return QString();
}

class TestGraphOrder : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void residualOrderRespectsEveryEdge();
    void tiesKeepNodeOrder();
    void emptyGraph();
    void danglingEdgesAreIgnored();
    void bundledPresetsOrder_data();
    void bundledPresetsOrder();
    void detectsACycle();
    void detectsASelfLoop();
    void cycleListsOnlyTheNodesOnIt();
    void cycleMayBeLeftOut();
    void depthsOfTheResidualGraph();
    void depthsOfBundledPresetsGrowAlongEdges_data();
    void depthsOfBundledPresetsGrowAlongEdges();
};

void TestGraphOrder::residualOrderRespectsEveryEdge()
{
    const PipelineGraph g = residualGraph();
    QStringList order{QStringLiteral("stale")};  // cleared by topologicalOrder
    QStringList cycle{QStringLiteral("stale")};
    QVERIFY(topologicalOrder(g, &order, &cycle));
    const QString problem = orderProblem(g, order);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QCOMPARE(order, (QStringList{QStringLiteral("data"), QStringLiteral("sched"), QStringLiteral("stem"),
                                 QStringLiteral("conv1"), QStringLiteral("bn"), QStringLiteral("add"), QStringLiteral("fc"),
                                 QStringLiteral("loss"), QStringLiteral("opt")}));
}

void TestGraphOrder::tiesKeepNodeOrder()
{
    const PipelineGraph free = tytest::graph({node(QStringLiteral("c"), QStringLiteral("layer.relu")),
                                              node(QStringLiteral("a"), QStringLiteral("layer.relu")),
                                              node(QStringLiteral("b"), QStringLiteral("layer.relu"))},
                                             {});
    QStringList order;
    QVERIFY(topologicalOrder(free, &order));
    QCOMPARE(order, (QStringList{QStringLiteral("c"), QStringLiteral("a"), QStringLiteral("b")}));

    const PipelineGraph oneEdge = tytest::graph({node(QStringLiteral("x"), QStringLiteral("layer.relu")),
                                                 node(QStringLiteral("y"), QStringLiteral("layer.relu")),
                                                 node(QStringLiteral("z"), QStringLiteral("layer.relu"))},
                                                {{"z.out", "x.in"}});
    QVERIFY(topologicalOrder(oneEdge, &order));
    QCOMPARE(order, (QStringList{QStringLiteral("y"), QStringLiteral("z"), QStringLiteral("x")}));
}

void TestGraphOrder::emptyGraph()
{
    QStringList order{QStringLiteral("stale")};
    QVERIFY(topologicalOrder(PipelineGraph{}, &order));
    QVERIFY(order.isEmpty());
    QVERIFY(nodeDepths(PipelineGraph{}).isEmpty());
}

void TestGraphOrder::danglingEdgesAreIgnored()
{
    PipelineGraph g = residualGraph();
    g.edges << edge(QStringLiteral("ghost.out"), QStringLiteral("fc.in")) << edge(QStringLiteral("fc.out"), QStringLiteral("phantom.in"));
    QStringList order;
    QVERIFY(topologicalOrder(g, &order));
    QCOMPARE(order.size(), g.nodes.size());
    QVERIFY(!order.contains(QStringLiteral("ghost")));
}

void TestGraphOrder::bundledPresetsOrder_data()
{
    QTest::addColumn<QString>("path");
    const QStringList files = tytest::bundledPresetFiles();
    QVERIFY(!files.isEmpty());
    for (const QString &file : files)
        QTest::newRow(qPrintable(QFileInfo(file).fileName())) << file;
}

void TestGraphOrder::bundledPresetsOrder()
{
    QFETCH(QString, path);
    const Result<Preset> preset = loadPreset(path);
    QVERIFY2(preset.ok(), qPrintable(preset.error().toString()));
    QStringList order;
    QVERIFY(topologicalOrder(preset.value().graph, &order));
    const QString problem = orderProblem(preset.value().graph, order);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

void TestGraphOrder::detectsACycle()
{
    // data -> a -> b -> c -> a (through a.b of an add).
    const PipelineGraph g = tytest::graph({node(QStringLiteral("data"), QStringLiteral("dataset.synthetic")),
                                           node(QStringLiteral("a"), QStringLiteral("layer.add")),
                                           node(QStringLiteral("b"), QStringLiteral("layer.relu")),
                                           node(QStringLiteral("c"), QStringLiteral("layer.tanh"))},
                                          {{"data.features", "a.a"}, {"a.out", "b.in"}, {"b.out", "c.in"}, {"c.out", "a.b"}});
    QStringList order, cycle;
    QVERIFY(!topologicalOrder(g, &order, &cycle));
    QCOMPARE(order, QStringList{QStringLiteral("data")});
    QCOMPARE(cycle, (QStringList{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}));
}

void TestGraphOrder::detectsASelfLoop()
{
    const PipelineGraph g = tytest::graph({node(QStringLiteral("r"), QStringLiteral("layer.add")),
                                           node(QStringLiteral("s"), QStringLiteral("layer.relu"))},
                                          {{"r.out", "r.a"}});
    QStringList order, cycle;
    QVERIFY(!topologicalOrder(g, &order, &cycle));
    QCOMPARE(order, QStringList{QStringLiteral("s")});
    QCOMPARE(cycle, QStringList{QStringLiteral("r")});
}

void TestGraphOrder::cycleListsOnlyTheNodesOnIt()
{
    // a -> b -> c -> b, and c -> d: d hangs below the cycle (b, c) but is not on it.
    const PipelineGraph g = tytest::graph({node(QStringLiteral("a"), QStringLiteral("layer.relu")),
                                           node(QStringLiteral("b"), QStringLiteral("layer.add")),
                                           node(QStringLiteral("c"), QStringLiteral("layer.relu")),
                                           node(QStringLiteral("d"), QStringLiteral("layer.relu"))},
                                          {{"a.out", "b.a"}, {"b.out", "c.in"}, {"c.out", "b.b"}, {"c.out", "d.in"}});
    QStringList order, cycle;
    QVERIFY(!topologicalOrder(g, &order, &cycle));
    QCOMPARE(order, QStringList{QStringLiteral("a")});
    QCOMPARE(cycle, (QStringList{QStringLiteral("b"), QStringLiteral("c")}));
}

void TestGraphOrder::cycleMayBeLeftOut()
{
    const PipelineGraph g = tytest::graph({node(QStringLiteral("r"), QStringLiteral("layer.add"))}, {{"r.out", "r.a"}});
    QStringList order;
    QVERIFY(!topologicalOrder(g, &order, nullptr));
    QVERIFY(order.isEmpty());
}

void TestGraphOrder::depthsOfTheResidualGraph()
{
    const QHash<QString, int> expected{{QStringLiteral("data"), 0}, {QStringLiteral("sched"), 0}, {QStringLiteral("stem"), 1},
                                       {QStringLiteral("conv1"), 2}, {QStringLiteral("bn"), 3},   {QStringLiteral("add"), 4},
                                       {QStringLiteral("fc"), 5},    {QStringLiteral("loss"), 6}, {QStringLiteral("opt"), 7}};
    QCOMPARE(nodeDepths(residualGraph()), expected);
}

void TestGraphOrder::depthsOfBundledPresetsGrowAlongEdges_data()
{
    bundledPresetsOrder_data();
}

void TestGraphOrder::depthsOfBundledPresetsGrowAlongEdges()
{
    QFETCH(QString, path);
    const Result<Preset> preset = loadPreset(path);
    QVERIFY2(preset.ok(), qPrintable(preset.error().toString()));
    const PipelineGraph &g = preset.value().graph;
    const QHash<QString, int> depths = nodeDepths(g);
    QCOMPARE(depths.size(), g.nodes.size());
    for (const Node &n : g.nodes)
        if (g.edgesInto(n.id).isEmpty())
            QCOMPARE(depths.value(n.id, -1), 0);
    for (const Edge &e : g.edges)
        QVERIFY2(depths.value(e.to.node) > depths.value(e.from.node),
                 qPrintable(QStringLiteral("%1 -> %2").arg(e.from.toString(), e.to.toString())));
}

} // namespace

TY_TEST_CLASS(TestGraphOrder)

#include "test_graph_order.moc"
