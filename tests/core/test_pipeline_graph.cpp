// core/graph/pipeline_graph: endpoints, lookups, fresh ids, node id rules and equality.

#include "test_suite.h"
#include "core_test_support.h"

#include "pipeline_graph.h"

#include <QtTest>

using namespace ty;
using tytest::edge;
using tytest::node;

namespace {

class TestPipelineGraph : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parseEndpoint_data();
    void parseEndpoint();
    void endpointToString();
    void nodeLookup();
    void edgesIntoAndFrom();
    void uniqueId();
    void validNodeIds_data();
    void validNodeIds();
    void equality();
    void indexAnswersAsTheGraph();
};

void TestPipelineGraph::parseEndpoint_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("node");
    QTest::addColumn<QString>("port");
    QTest::newRow("plain") << "conv1.out" << true << "conv1" << "out";
    QTest::newRow("underscores") << "b1_add.a" << true << "b1_add" << "a";
    QTest::newRow("last dot splits") << "a.b.c" << true << "a.b" << "c";
    QTest::newRow("no dot") << "conv1" << false << "" << "";
    QTest::newRow("no port") << "conv1." << false << "" << "";
    QTest::newRow("no node") << ".out" << false << "" << "";
    QTest::newRow("empty") << "" << false << "" << "";
    QTest::newRow("just a dot") << "." << false << "" << "";
}

void TestPipelineGraph::parseEndpoint()
{
    QFETCH(QString, text);
    QFETCH(bool, ok);
    QFETCH(QString, node);
    QFETCH(QString, port);
    Endpoint endpoint;
    QCOMPARE(Endpoint::parse(text, &endpoint), ok);
    if (ok) {
        QCOMPARE(endpoint.node, node);
        QCOMPARE(endpoint.port, port);
        QCOMPARE(endpoint.toString(), text);
    }
}

void TestPipelineGraph::endpointToString()
{
    QCOMPARE((Endpoint{QStringLiteral("data"), QStringLiteral("images")}).toString(), QStringLiteral("data.images"));
    QVERIFY((Endpoint{QStringLiteral("a"), QStringLiteral("b")}) == (Endpoint{QStringLiteral("a"), QStringLiteral("b")}));
    QVERIFY(!((Endpoint{QStringLiteral("a"), QStringLiteral("b")}) == (Endpoint{QStringLiteral("a"), QStringLiteral("c")})));
}

void TestPipelineGraph::nodeLookup()
{
    PipelineGraph g = tytest::minimalGraph();
    QCOMPARE(g.indexOf(QStringLiteral("data")), 0);
    QCOMPARE(g.indexOf(QStringLiteral("opt")), 3);
    QCOMPARE(g.indexOf(QStringLiteral("ghost")), -1);
    QVERIFY(!g.node(QStringLiteral("ghost")));
    const PipelineGraph &cg = g;
    QVERIFY(cg.node(QStringLiteral("fc")));
    QCOMPARE(cg.node(QStringLiteral("fc"))->block, QStringLiteral("layer.linear"));
    // The mutable overload edits the graph's own node.
    g.node(QStringLiteral("fc"))->params.insert(QStringLiteral("bias"), false);
    QCOMPARE(g.nodes.at(1).params.value(QStringLiteral("bias")), QJsonValue(false));
}

void TestPipelineGraph::edgesIntoAndFrom()
{
    const PipelineGraph g = tytest::minimalGraph();
    QCOMPARE(g.edgesInto(QStringLiteral("loss")),
             (QList<Edge>{edge(QStringLiteral("fc.out"), QStringLiteral("loss.input")),
                          edge(QStringLiteral("data.labels"), QStringLiteral("loss.target"))}));
    QCOMPARE(g.edgesInto(QStringLiteral("loss"), QStringLiteral("target")),
             QList<Edge>{edge(QStringLiteral("data.labels"), QStringLiteral("loss.target"))});
    QVERIFY(g.edgesInto(QStringLiteral("data")).isEmpty());
    QCOMPARE(g.edgesFrom(QStringLiteral("data")).size(), 2);
    QCOMPARE(g.edgesFrom(QStringLiteral("data"), QStringLiteral("images")),
             QList<Edge>{edge(QStringLiteral("data.images"), QStringLiteral("fc.in"))});
    QVERIFY(g.edgesFrom(QStringLiteral("opt")).isEmpty());
    QVERIFY(g.edgesFrom(QStringLiteral("data"), QStringLiteral("nope")).isEmpty());
}

void TestPipelineGraph::uniqueId()
{
    PipelineGraph g = tytest::minimalGraph();
    QCOMPARE(g.uniqueId(QStringLiteral("conv")), QStringLiteral("conv"));
    QCOMPARE(g.uniqueId(QStringLiteral("fc")), QStringLiteral("fc2"));
    g.nodes << node(QStringLiteral("fc2"), QStringLiteral("layer.relu"));
    QCOMPARE(g.uniqueId(QStringLiteral("fc")), QStringLiteral("fc3"));
}

void TestPipelineGraph::validNodeIds_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<bool>("valid");
    QTest::newRow("letters") << "conv" << true;
    QTest::newRow("digits after") << "conv1" << true;
    QTest::newRow("underscore first") << "_tmp" << true;
    QTest::newRow("mixed case") << "Block_2b" << true;
    QTest::newRow("empty") << "" << false;
    QTest::newRow("digit first") << "1fc" << false;
    QTest::newRow("dash") << "fc-1" << false;
    QTest::newRow("space") << "fc 1" << false;
    QTest::newRow("dot") << "fc.1" << false;
    QTest::newRow("non-ascii") << QStringLiteral("caf\u00e9") << false;
    QTest::newRow("trailing newline") << "fc\n" << false;
}

void TestPipelineGraph::validNodeIds()
{
    QFETCH(QString, id);
    QFETCH(bool, valid);
    QCOMPARE(isValidNodeId(id), valid);
}

void TestPipelineGraph::equality()
{
    const PipelineGraph a = tytest::minimalGraph();
    PipelineGraph b = tytest::minimalGraph();
    QVERIFY(a == b);
    b.nodes[1].pos = QPointF(10, 20);
    QVERIFY(!(a == b));
    b = tytest::minimalGraph();
    b.nodes[1].params.insert(QStringLiteral("out_features"), 11);
    QVERIFY(!(a == b));
    b = tytest::minimalGraph();
    b.edges.removeLast();
    QVERIFY(!(a == b));
    b = tytest::minimalGraph();
    b.nodes[2].block = QStringLiteral("loss.mse");
    QVERIFY(!(a == b));
}

} // namespace

// GraphIndex gives the answers of PipelineGraph's own lookups, duplicates and unknown ids included.
void TestPipelineGraph::indexAnswersAsTheGraph()
{
    PipelineGraph g = tytest::minimalGraph();
    g.nodes.append(Node{QStringLiteral("fc"), QStringLiteral("layer.relu"), {}, {}});  // a duplicate id: the first wins
    g.edges.append(Edge{{QStringLiteral("data"), QStringLiteral("images")}, {QStringLiteral("ghost"), QStringLiteral("in")}});
    const GraphIndex index(g);
    QStringList ids;
    for (const Node &n : g.nodes)
        ids << n.id;
    ids << QStringLiteral("ghost") << QStringLiteral("nothing");
    for (const QString &id : ids) {
        QCOMPARE(index.node(id), g.node(id));
        for (const QString &port : {QString(), QStringLiteral("in"), QStringLiteral("images"), QStringLiteral("labels"),
                                    QStringLiteral("out"), QStringLiteral("loss"), QStringLiteral("target")}) {
            QCOMPARE(index.edgesInto(id, port), g.edgesInto(id, port));
            QCOMPARE(index.edgesFrom(id, port), g.edgesFrom(id, port));
        }
    }
    QCOMPARE(index.node(QStringLiteral("fc"))->block, QStringLiteral("layer.linear"));
    QCOMPARE(index.edgesFrom(QStringLiteral("data")).size(), 3);
}

TY_TEST_CLASS(TestPipelineGraph)

#include "test_pipeline_graph.moc"
