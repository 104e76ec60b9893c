// Every undo command of PipelineDocument: redo gives the edited graph, undo gives back exactly the graph (and
// selection) from before; merging rules; refused edits push nothing; validation runs once per event-loop turn.

#include "test_suite.h"
#include "widget_test_support.h"

#include "document/graph_fragment.h"
#include "document/pipeline_document.h"

#include <QSignalSpy>
#include <QTest>
#include <QUndoStack>

using namespace ty;

namespace {

struct State {
    PipelineGraph graph;
    QJsonObject training;
    QString name, description;
    QStringList selection;
    bool operator==(const State &o) const
    {
        return graph == o.graph && training == o.training && name == o.name && description == o.description
               && selection == o.selection;
    }
};

State stateOf(const PipelineDocument &doc)
{
    return {doc.graph(), doc.preset().training, doc.preset().name, doc.preset().description, doc.selectedNodes()};
}

QString describe(const State &s)
{
    return tytest::dump(s.graph) + QStringLiteral("\nselection: ") + s.selection.join(QLatin1Char(','));
}

} // namespace

class TestDocumentCommands : public QObject {
    Q_OBJECT

    PipelineDocument doc;

    // Runs `edit`, expects `steps` new undo steps, then checks undo restores the state before and redo the
    // state after. Returns the state after.
    State roundTrip(const std::function<void()> &edit, int steps = 1)
    {
        const State before = stateOf(doc);
        const int index = doc.undoStack()->index();
        edit();
        const State after = stateOf(doc);
        if (doc.undoStack()->index() != index + steps)
            QTest::qFail(qPrintable(QStringLiteral("expected %1 undo step(s), got %2").arg(steps).arg(doc.undoStack()->index() - index)),
                         __FILE__, __LINE__);
        for (int i = 0; i < steps; ++i)
            doc.undoStack()->undo();
        if (!(stateOf(doc) == before))
            QTest::qFail(qPrintable(QStringLiteral("undo did not restore:\n%1\nexpected:\n%2")
                                        .arg(describe(stateOf(doc)), describe(before))),
                         __FILE__, __LINE__);
        for (int i = 0; i < steps; ++i)
            doc.undoStack()->redo();
        if (!(stateOf(doc) == after))
            QTest::qFail(qPrintable(QStringLiteral("redo did not restore:\n%1\nexpected:\n%2")
                                        .arg(describe(stateOf(doc)), describe(after))),
                         __FILE__, __LINE__);
        return after;
    }

private Q_SLOTS:
    void init()
    {
        QVERIFY(doc.load(tytest::presetPath(QStringLiteral("fashion-mnist-mlp"))).ok());
    }

    void addNodeGivesFreshIdsAndSelectsIt()
    {
        doc.newDocument();
        const State after = roundTrip([&] { QCOMPARE(doc.addNode(QStringLiteral("layer.linear"), {100, 60}), QStringLiteral("fc")); });
        QCOMPARE(after.graph.nodes.size(), 1);
        QCOMPARE(after.graph.nodes.first().pos, QPointF(100, 60));
        QCOMPARE(after.selection, QStringList{QStringLiteral("fc")});
        QCOMPARE(doc.addNode(QStringLiteral("layer.linear"), {}), QStringLiteral("fc2"));
        QCOMPARE(doc.addNode(QStringLiteral("layer.conv2d"), {}), QStringLiteral("conv"));
        QCOMPARE(doc.addNode(QStringLiteral("optimizer.adam"), {}), QStringLiteral("opt"));
        QVERIFY(doc.addNode(QStringLiteral("layer.nonexistent"), {}).isEmpty());
        QCOMPARE(doc.undoStack()->count(), 4);
    }

    void removeNodesTakesTheirEdgesAndUndoPutsEverythingBack()
    {
        doc.setSelectedNodes({QStringLiteral("fc2"), QStringLiteral("relu2")});
        const int edges = int(doc.graph().edges.size());
        const State after = roundTrip([&] { QVERIFY(doc.removeItems({QStringLiteral("fc2"), QStringLiteral("relu2")}, {})); });
        QVERIFY(!after.graph.node(QStringLiteral("fc2")));
        QCOMPARE(after.graph.edges.size(), edges - 3);  // relu1->fc2, fc2->relu2, relu2->fc3
        QVERIFY(after.selection.isEmpty());
        doc.undoStack()->undo();
        QCOMPARE(doc.selectedNodes(), (QStringList{QStringLiteral("fc2"), QStringLiteral("relu2")}));
    }

    void disconnectRemovesOnlyTheEdge()
    {
        const Edge e = tytest::edge(QStringLiteral("relu1.out"), QStringLiteral("fc2.in"));
        const State after = roundTrip([&] { QVERIFY(doc.removeItems({}, {e})); });
        QVERIFY(!after.graph.edges.contains(e));
        QCOMPARE(after.graph.nodes.size(), doc.graph().nodes.size());
        QVERIFY(!doc.removeItems({}, {e}));  // already gone: nothing pushed
    }

    void dragsAreSeparateStepsAndNudgesMerge()
    {
        const QPointF start = doc.graph().node(QStringLiteral("fc1"))->pos;
        roundTrip([&] { doc.moveNodes({{QStringLiteral("fc1"), start + QPointF(20, 0)}}, MoveKind::Drag); });
        doc.undoStack()->undo();
        roundTrip([&] {
            doc.moveNodes({{QStringLiteral("fc1"), start + QPointF(20, 0)}}, MoveKind::Drag);
            doc.moveNodes({{QStringLiteral("fc1"), start + QPointF(40, 0)}}, MoveKind::Drag);
        }, 2);
        doc.undoStack()->undo();
        doc.undoStack()->undo();
        const State after = roundTrip([&] {
            for (int i = 1; i <= 3; ++i)
                doc.moveNodes({{QStringLiteral("fc1"), start + QPointF(0, 20 * i)}, {QStringLiteral("fc2"), QPointF(0, 20 * i)}},
                              MoveKind::Nudge);
        });
        QCOMPARE(after.graph.node(QStringLiteral("fc1"))->pos, start + QPointF(0, 60));
        QVERIFY(!doc.moveNodes({{QStringLiteral("fc1"), start + QPointF(0, 60)}}, MoveKind::Drag));  // no change
    }

    void connectAddsOneEdgeAndRefusesImpossibleOnes()
    {
        const Edge e = tytest::edge(QStringLiteral("relu1.out"), QStringLiteral("fc2.in"));
        doc.removeItems({}, {e});
        const State after = roundTrip([&] { QVERIFY(doc.connectPorts(e.from, e.to).isEmpty()); });
        QCOMPARE(after.graph.edges.last(), e);
        const int steps = doc.undoStack()->count();
        QVERIFY(doc.connectPorts(e.from, e.to).contains(QStringLiteral("already connected")));
        QVERIFY(doc.connectPorts({QStringLiteral("data"), QStringLiteral("labels")}, {QStringLiteral("fc3"), QStringLiteral("in")})
                    .contains(QStringLiteral("target output cannot feed a tensor input")));
        QCOMPARE(doc.undoStack()->count(), steps);
    }

    void renameUpdatesEdgesAndSelection()
    {
        doc.setSelectedNodes({QStringLiteral("fc1")});
        const State after = roundTrip([&] { QVERIFY(doc.renameNode(QStringLiteral("fc1"), QStringLiteral("dense")).isEmpty()); });
        QVERIFY(after.graph.node(QStringLiteral("dense")));
        QVERIFY(after.graph.edges.contains(tytest::edge(QStringLiteral("flatten.out"), QStringLiteral("dense.in"))));
        QVERIFY(after.graph.edges.contains(tytest::edge(QStringLiteral("dense.out"), QStringLiteral("relu1.in"))));
        QCOMPARE(after.selection, QStringList{QStringLiteral("dense")});
        doc.undoStack()->undo();
        QCOMPARE(doc.selectedNodes(), QStringList{QStringLiteral("fc1")});
        const int steps = doc.undoStack()->count();
        QVERIFY(!doc.renameNode(QStringLiteral("fc1"), QStringLiteral("fc2")).isEmpty());
        QVERIFY(!doc.renameNode(QStringLiteral("fc1"), QStringLiteral("2fc")).isEmpty());
        QVERIFY(!doc.renameNode(QStringLiteral("fc1"), QStringLiteral("training")).isEmpty());
        QCOMPARE(doc.undoStack()->count(), steps);
    }

    // init_from's explicit map names the network's tensors by node: a rename follows there, not into the file's names.
    void renameFollowsIntoTheInitFromMap()
    {
        const QJsonObject map{{QStringLiteral("fc1.weight"), QStringLiteral("fc1.weight")}, {QStringLiteral("fc1.bias"), QStringLiteral("1.bias")},
                              {QStringLiteral("fc10.weight"), QStringLiteral("9.weight")}};
        QJsonObject training = doc.preset().training;
        training.insert(QStringLiteral("init_from"), QJsonObject{{QStringLiteral("file"), QStringLiteral("w.safetensors")}, {QStringLiteral("map"), map}});
        QVERIFY(doc.setTrainingSection(training, QStringLiteral("Start From Weights")));
        const State after = roundTrip([&] { QVERIFY(doc.renameNode(QStringLiteral("fc1"), QStringLiteral("dense")).isEmpty()); });
        QCOMPARE(after.training.value(QStringLiteral("init_from")).toObject().value(QStringLiteral("map")).toObject(),
                 (QJsonObject{{QStringLiteral("dense.weight"), QStringLiteral("fc1.weight")}, {QStringLiteral("dense.bias"), QStringLiteral("1.bias")},
                              {QStringLiteral("fc10.weight"), QStringLiteral("9.weight")}}));
        doc.undoStack()->undo();
    }

    void setParamSelectsTheNodeAndTypingMerges()
    {
        doc.setSelectedNodes({});
        const State after = roundTrip([&] {
            QVERIFY(doc.setParam(QStringLiteral("fc1"), QStringLiteral("out_features"), 512).isEmpty());
        });
        QCOMPARE(after.graph.node(QStringLiteral("fc1"))->params.value(QStringLiteral("out_features")).toInt(), 512);
        QCOMPARE(after.selection, QStringList{QStringLiteral("fc1")});
        doc.undoStack()->undo();
        const int session = nextEditSession();
        const State typed = roundTrip([&] {
            for (int v : {5, 51, 512})
                doc.setParam(QStringLiteral("fc1"), QStringLiteral("out_features"), v, session);
        });
        QCOMPARE(typed.graph.node(QStringLiteral("fc1"))->params.value(QStringLiteral("out_features")).toInt(), 512);
        doc.undoStack()->undo();
        // Typing back to the original value leaves no step at all.
        const int index = doc.undoStack()->index();
        const int again = nextEditSession();
        doc.setParam(QStringLiteral("fc1"), QStringLiteral("out_features"), 300, again);
        doc.setParam(QStringLiteral("fc1"), QStringLiteral("out_features"), 256, again);
        QCOMPARE(doc.graph().node(QStringLiteral("fc1"))->params.value(QStringLiteral("out_features")).toInt(), 256);
        QCOMPARE(doc.undoStack()->index(), index);
        QCOMPARE(doc.undoStack()->count(), index);
    }

    void refusedValuesPushNothing()
    {
        const int steps = doc.undoStack()->count();
        QVERIFY(doc.setParam(QStringLiteral("fc1"), QStringLiteral("out_features"), 0).contains(QStringLiteral("at least 1")));
        QVERIFY(!doc.setParam(QStringLiteral("fc1"), QStringLiteral("no_such_param"), 1).isEmpty());
        QVERIFY(!doc.setTrainingValue(QStringLiteral("device"), QStringLiteral("tpu")).isEmpty());
        QCOMPARE(doc.undoStack()->count(), steps);
    }

    void resetParamRemovesTheExplicitValue()
    {
        const State after = roundTrip([&] { QVERIFY(doc.resetParam(QStringLiteral("fc1"), QStringLiteral("out_features"))); });
        QVERIFY(!after.graph.node(QStringLiteral("fc1"))->params.contains(QStringLiteral("out_features")));
        QVERIFY(!doc.resetParam(QStringLiteral("fc1"), QStringLiteral("out_features")));  // nothing to reset
    }

    void trainingSettingsAndPresetInfo()
    {
        doc.setSelectedNodes({QStringLiteral("fc1")});
        const State set = roundTrip([&] { QVERIFY(doc.setTrainingValue(QStringLiteral("epochs"), 3).isEmpty()); });
        QCOMPARE(set.training.value(QStringLiteral("epochs")).toInt(), 3);
        QVERIFY(set.selection.isEmpty());  // the training settings show when nothing is selected
        const State reset = roundTrip([&] { QVERIFY(doc.resetTrainingValue(QStringLiteral("seed"))); });
        QVERIFY(!reset.training.contains(QStringLiteral("seed")));
        const int session = nextEditSession();
        const State info = roundTrip([&] {
            doc.setPresetInfo(QStringLiteral("M"), QStringLiteral("d"), session);
            doc.setPresetInfo(QStringLiteral("My"), QStringLiteral("d"), session);
        });
        QCOMPARE(info.name, QStringLiteral("My"));
    }

    void pasteAddsNodesWithInternalEdges()
    {
        const PipelineGraph fresh = freshFragment(
            fragmentOf(doc.graph(), {QStringLiteral("fc1"), QStringLiteral("relu1")}), doc.graph(), {0, 200});
        const State after = roundTrip([&] { QCOMPARE(doc.addNodes(fresh, QStringLiteral("Paste")).size(), 2); });
        QCOMPARE(after.selection, (QStringList{QStringLiteral("fc"), QStringLiteral("relu")}));
        QVERIFY(after.graph.edges.contains(tytest::edge(QStringLiteral("fc.out"), QStringLiteral("relu.in"))));
    }

    void autoArrangeIsOneStep()
    {
        // The bundled presets are saved arranged: move a node out of line first.
        QVERIFY(doc.moveNodes({{QStringLiteral("norm"), QPointF(900, 700)}}, MoveKind::Drag));
        const QPointF norm = doc.graph().node(QStringLiteral("norm"))->pos;
        const State after = roundTrip([&] { QVERIFY(doc.autoArrange()); });
        QVERIFY(after.graph.node(QStringLiteral("norm"))->pos != norm);
        QVERIFY(!doc.autoArrange());  // already arranged: nothing to do
    }

    void modifiedFollowsTheCleanState()
    {
        QVERIFY(!doc.isModified());
        QSignalSpy modified(&doc, &PipelineDocument::modifiedChanged);
        doc.setParam(QStringLiteral("fc1"), QStringLiteral("out_features"), 300);
        QVERIFY(doc.isModified());
        doc.undoStack()->undo();
        QVERIFY(!doc.isModified());
        QCOMPARE(modified.count(), 2);
    }

    void aBurstOfEditsValidatesOnce()
    {
        doc.validateNow();
        const int count = doc.validationCount();
        for (int v : {10, 20, 30, 40, 50})
            doc.setParam(QStringLiteral("fc1"), QStringLiteral("out_features"), v);
        doc.renameNode(QStringLiteral("fc2"), QStringLiteral("dense2"));
        QVERIFY(doc.validationPending());
        QCOMPARE(doc.validationCount(), count);
        QTRY_VERIFY(!doc.validationPending());
        QCOMPARE(doc.validationCount(), count + 1);
        QVERIFY(doc.report().nodes.contains(QStringLiteral("dense2")) || !tytest::fashionMnistAvailable());
    }
};

TY_TEST_CLASS(TestDocumentCommands)

#include "test_document_commands.moc"
