// Saving and loading through the document, copy and paste (fragments, fresh ids, the clipboard through the
// scene), and auto-arrange.

#include "test_suite.h"
#include "widget_test_support.h"

#include "canvas/canvas_view.h"
#include "canvas/node_item.h"
#include "canvas/pipeline_scene.h"
#include "document/auto_layout.h"
#include "document/graph_fragment.h"
#include "document/pipeline_document.h"

#include "preset_format.h"

#include <QApplication>
#include <QClipboard>
#include <QMimeData>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using namespace ty;

class TestFilesAndFragments : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void saveAndLoadGiveTheSameGraph_data()
    {
        QTest::addColumn<QString>("file");
        for (const QString &file : tytest::bundledPresetFiles())
            QTest::newRow(qPrintable(QFileInfo(file).fileName())) << file;
    }

    void saveAndLoadGiveTheSameGraph()
    {
        QFETCH(QString, file);
        QTemporaryDir dir;
        PipelineDocument doc;
        QVERIFY(doc.load(file).ok());
        // Edit a little so the saved file is not just a copy.
        doc.moveNodes({{doc.graph().nodes.first().id, QPointF(-20, -40)}}, MoveKind::Drag);
        doc.setTrainingValue(QStringLiteral("epochs"), 2);
        QVERIFY(doc.isModified());
        const QString path = dir.filePath(QStringLiteral("copy.trainyard.json"));
        QSignalSpy renamed(&doc, &PipelineDocument::fileNameChanged);
        QVERIFY(doc.save(path).ok());
        QVERIFY(!doc.isModified());
        QCOMPARE(renamed.count(), 1);
        QCOMPARE(doc.fileName(), QFileInfo(path).absoluteFilePath());

        PipelineDocument reopened;
        QVERIFY(reopened.load(path).ok());
        QVERIFY2(reopened.graph() == doc.graph(), qPrintable(tytest::dump(reopened.graph())));
        QVERIFY(reopened.preset() == doc.preset());
        QCOMPARE(reopened.undoStack()->count(), 0);
    }

    void aBadFileChangesNothing()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad.trainyard.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{ \"format\": \"trainyard-preset\", \"version\": 1, \"nodes\": [ }");
        f.close();
        PipelineDocument doc;
        QVERIFY(doc.load(tytest::presetPath(QStringLiteral("wine-tabular"))).ok());
        const Preset before = doc.preset();
        QSignalSpy reset(&doc, &PipelineDocument::documentReset);
        const Status loaded = doc.load(path);
        QVERIFY(!loaded.ok());
        QVERIFY(loaded.error().line > 0);
        QCOMPARE(reset.count(), 0);
        QVERIFY(doc.preset() == before);
    }

    void fragmentsKeepInternalEdgesOnly()
    {
        PipelineDocument doc;
        QVERIFY(doc.load(tytest::presetPath(QStringLiteral("fashion-mnist-mlp"))).ok());
        const PipelineGraph fragment = fragmentOf(doc.graph(), {QStringLiteral("relu1"), QStringLiteral("fc1")});
        QCOMPARE(fragment.nodes.size(), 2);
        QCOMPARE(fragment.nodes.first().id, QStringLiteral("fc1"));  // graph order
        QCOMPARE(fragment.edges, QList<Edge>{tytest::edge(QStringLiteral("fc1.out"), QStringLiteral("relu1.in"))});
        const Result<PipelineGraph> parsed = fragmentFromJson(fragmentToJson(fragment));
        QVERIFY(parsed.ok());
        QVERIFY(parsed.value() == fragment);
        QVERIFY(!fragmentFromJson("not json").ok());
        // A whole preset file pastes too.
        QFile file(tytest::presetPath(QStringLiteral("wine-tabular")));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(fragmentFromJson(file.readAll()).value().nodes.size(), 9);
    }

    void freshIdsAreUniqueAndEdgesFollow()
    {
        PipelineDocument doc;
        QVERIFY(doc.load(tytest::presetPath(QStringLiteral("fashion-mnist-mlp"))).ok());
        const PipelineGraph fragment = fragmentOf(doc.graph(), {QStringLiteral("fc1"), QStringLiteral("relu1"), QStringLiteral("fc2")});
        const PipelineGraph first = freshFragment(fragment, doc.graph(), {40, 40});
        QCOMPARE(first.nodes.at(0).id, QStringLiteral("fc"));
        QCOMPARE(first.nodes.at(1).id, QStringLiteral("relu"));
        QCOMPARE(first.nodes.at(2).id, QStringLiteral("fc5"));  // fc is taken by the first pasted node
        QCOMPARE(first.nodes.at(0).pos, doc.graph().node(QStringLiteral("fc1"))->pos + QPointF(40, 40));
        QCOMPARE(first.edges.size(), 2);
        QVERIFY(first.edges.contains(tytest::edge(QStringLiteral("fc.out"), QStringLiteral("relu.in"))));
        QVERIFY(first.edges.contains(tytest::edge(QStringLiteral("relu.out"), QStringLiteral("fc5.in"))));
        // Into an empty graph the ids stay.
        const PipelineGraph elsewhere = freshFragment(fragment, PipelineGraph(), {});
        QCOMPARE(elsewhere.nodes.at(0).id, QStringLiteral("fc1"));
    }

    void copyAndPasteThroughTheClipboard()
    {
        tytest::Canvas canvas;
        QVERIFY(canvas.document->load(tytest::presetPath(QStringLiteral("fashion-mnist-mlp"))).ok());
        canvas.document->setSelectedNodes({QStringLiteral("fc2"), QStringLiteral("relu2")});
        canvas.scene->copySelection();
        QVERIFY(QApplication::clipboard()->mimeData()->hasFormat(QString::fromLatin1(kPresetMimeType)));
        const int nodes = int(canvas.document->graph().nodes.size());
        const int edges = int(canvas.document->graph().edges.size());
        const QStringList pasted = canvas.scene->paste();
        QCOMPARE(pasted, (QStringList{QStringLiteral("fc"), QStringLiteral("relu")}));
        QCOMPARE(canvas.document->graph().nodes.size(), nodes + 2);
        QCOMPARE(canvas.document->graph().edges.size(), edges + 1);
        QCOMPARE(canvas.document->selectedNodes(), pasted);
        QCOMPARE(canvas.scene->nodeItems().size(), nodes + 2);
        QVERIFY(canvas.scene->edgeItem(tytest::edge(QStringLiteral("fc.out"), QStringLiteral("relu.in"))));
        // A second paste lands further along, with new ids again; paste at a point puts the top-left there.
        const QStringList again = canvas.scene->paste(QPointF(1000, 1000));
        QCOMPARE(again, (QStringList{QStringLiteral("fc5"), QStringLiteral("relu4")}));
        QCOMPARE(canvas.document->graph().node(QStringLiteral("fc5"))->pos, QPointF(1000, 1000));
        // Cut is copy plus one undoable removal.
        canvas.document->setSelectedNodes(again);
        canvas.scene->cutSelection();
        QVERIFY(!canvas.document->graph().node(QStringLiteral("fc5")));
        canvas.document->undoStack()->undo();
        QVERIFY(canvas.document->graph().node(QStringLiteral("fc5")));
    }

    void autoLayoutGoesLeftToRightWithoutOverlaps()
    {
        PipelineDocument doc;
        QVERIFY(doc.load(tytest::presetPath(QStringLiteral("fashion-mnist-resnet"))).ok());
        const PipelineGraph &g = doc.graph();
        LayoutOptions options;
        options.aspect = 10;  // a very wide view: one row (wrapping has its tests in test_canvas_layout.cpp)
        const QHash<QString, QPointF> pos = autoLayout(g, {}, options);
        QCOMPARE(pos.size(), g.nodes.size());
        for (const Edge &e : g.edges)
            QVERIFY2(pos.value(e.from.node).x() < pos.value(e.to.node).x(), qPrintable(e.from.toString()));
        QList<QRectF> rects;
        for (const QPointF &p : pos)
            rects << QRectF(p, options.defaultSize);
        for (int i = 0; i < rects.size(); ++i)
            for (int j = i + 1; j < rects.size(); ++j)
                QVERIFY(!rects.at(i).intersects(rects.at(j)));
        // A chain runs straight, and the schedule sits just before the optimizer it feeds.
        QCOMPARE(pos.value(QStringLiteral("crop")).y(), pos.value(QStringLiteral("data")).y());
        QCOMPARE(pos.value(QStringLiteral("fc")).y(), pos.value(QStringLiteral("data")).y());
        QVERIFY(pos.value(QStringLiteral("schedule")).x() > pos.value(QStringLiteral("fc")).x());
    }

    void autoArrangeThroughTheSceneUsesDrawnSizes()
    {
        tytest::Canvas canvas;
        QVERIFY(canvas.document->load(tytest::presetPath(QStringLiteral("fashion-mnist-cnn"))).ok());
        QVERIFY(canvas.document->moveNodes({{QStringLiteral("conv1"), QPointF(900, 700)}}, MoveKind::Drag));
        canvas.scene->autoArrange();
        QCOMPARE(canvas.document->undoStack()->count(), 2);
        const QList<NodeItem *> items = canvas.scene->nodeItems();
        for (NodeItem *item : items) {
            QCOMPARE(item->pos(), canvas.document->graph().node(item->nodeId())->pos);
            for (NodeItem *other : items)
                QVERIFY(item == other || !item->sceneBoundingRect().intersects(other->sceneBoundingRect()));
        }
    }
};

TY_TEST_CLASS(TestFilesAndFragments)

#include "test_files_and_fragments.moc"
