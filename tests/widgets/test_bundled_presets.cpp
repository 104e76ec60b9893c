// Every bundled preset opens without issues and shows a shape on every node; breaking an edge marks the node
// whose input it fed, in the scene, the issues list and the inspector.

#include "required_data.h"
#include "test_suite.h"
#include "widget_test_support.h"

#include "canvas/canvas_view.h"
#include "canvas/edge_item.h"
#include "canvas/node_item.h"
#include "canvas/pipeline_scene.h"
#include "canvas/port_item.h"
#include "document/pipeline_document.h"
#include "issues/issues_panel.h"

#include "block_descriptor.h"
#include "memory_estimate.h"

#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QTest>
#include <QTreeWidget>

using namespace ty;

class TestBundledPresets : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void opensWithoutIssuesAndWithShapes_data()
    {
        QTest::addColumn<QString>("file");
        for (const QString &file : tytest::bundledPresetFiles())
            QTest::newRow(qPrintable(QFileInfo(file).fileName())) << file;
    }

    void opensWithoutIssuesAndWithShapes()
    {
        QFETCH(QString, file);
        if ((file.contains(QStringLiteral("fashion-mnist")) || file.contains(QStringLiteral("transfer-"))) && !tytest::fashionMnistAvailable())
            TY_SKIP_WITHOUT_DATA("dataset-fashion-mnist is not installed");
        // The image folder preset reads PNG files next to it: a copy of it beside a few, written by its script.
        QTemporaryDir images;
        if (file.contains(QStringLiteral("image-folder"))) {
            const QString python = QStandardPaths::findExecutable(QStringLiteral("python3"));
            if (!tytest::fashionMnistAvailable() || python.isEmpty())
                TY_SKIP_WITHOUT_DATA("needs dataset-fashion-mnist and python3 to write the PNG files");
            QProcess script;
            script.start(python, {QStringLiteral(TRAINYARD_SOURCE_DIR "/presets/fashion_mnist_to_png.py"),
                                  images.filePath(QStringLiteral("fashion-mnist-png")), QStringLiteral("--limit"), QStringLiteral("30")});
            QVERIFY(script.waitForFinished(60000) && script.exitCode() == 0);
            const QString copy = images.filePath(QFileInfo(file).fileName());
            QVERIFY(QFile::copy(file, copy));
            file = copy;
        }
        tytest::Canvas canvas;
        IssuesPanel issues(canvas.document.get());
        QVERIFY(canvas.document->load(file).ok());
        canvas.document->validateNow();
        // Notes are not problems: the fine-tuning preset says where its first weights come from.
        const Issues &found = canvas.document->report().issues;
        for (const Issue &issue : found)
            QVERIFY2(issue.severity == Severity::Info, qPrintable(issue.toString()));
        // A note is counted as one, not as a warning.
        QCOMPARE(issues.summary(), found.isEmpty() ? QStringLiteral("No issues")
                                   : found.size() == 1 ? QStringLiteral("1 note")
                                                       : QStringLiteral("%1 notes").arg(found.size()));
        QCOMPARE(canvas.scene->nodeItems().size(), canvas.document->graph().nodes.size());
        for (NodeItem *item : canvas.scene->nodeItems()) {
            QVERIFY(!item->hasErrors());
            const bool hasTensorPort = std::any_of(item->ports().begin(), item->ports().end(),
                                                   [](PortItem *p) { return p->kind() == PortKind::Tensor; });
            if (hasTensorPort)
                QVERIFY2(item->shapeText().startsWith(QLatin1Char('[')) || item->shapeText().startsWith(QStringLiteral("in [")),
                         qPrintable(item->nodeId() + QStringLiteral(": '") + item->shapeText() + QLatin1Char('\'')));
            const ShapeReport &report = canvas.document->report();
            if (item->block()->category == BlockCategory::Optimizer) {
                QVERIFY(item->paramCountText().endsWith(QStringLiteral("params")));
                // The run's memory estimate beside the parameters it trains.
                QVERIFY(report.memory.known);
                QCOMPARE(item->countText(), item->paramCountText() + QStringLiteral(" · ") + byteSizeText(report.memory.total()));
            } else if (report.nodes.value(item->nodeId()).paramCount > 0) {
                QCOMPARE(item->countText(), item->paramCountText() + QStringLiteral(" · ")
                                                + byteSizeText(report.nodes.value(item->nodeId()).memory.total()));
            } else if (item->block()->category == BlockCategory::Dataset) {
                QCOMPARE(item->countText(), byteSizeText(report.nodes.value(item->nodeId()).memory.total()));
            }
        }
        // No two nodes overlap as drawn.
        const QList<NodeItem *> items = canvas.scene->nodeItems();
        for (NodeItem *a : items)
            for (NodeItem *b : items)
                QVERIFY2(a == b || !QRectF(a->pos(), a->size()).intersects(QRectF(b->pos(), b->size())),
                         qPrintable(a->nodeId() + QStringLiteral(" overlaps ") + b->nodeId()));
        // Saved tidy: auto-arrange (left to right by depth, with the drawn sizes) has nothing to change.
        canvas.scene->autoArrange();
        QCOMPARE(canvas.document->undoStack()->count(), 0);
    }

    void breakingAnEdgeMarksTheNodeItFed()
    {
        tytest::Canvas canvas;
        IssuesPanel issues(canvas.document.get());
        QVERIFY(canvas.document->load(tytest::presetPath(QStringLiteral("wine-tabular"))).ok());
        canvas.document->validateNow();
        QVERIFY(canvas.document->report().issues.isEmpty());
        canvas.document->removeItems({}, {tytest::edge(QStringLiteral("relu.out"), QStringLiteral("dropout.in"))});
        canvas.document->validateNow();

        NodeItem *dropout = canvas.scene->nodeItem(QStringLiteral("dropout"));
        QVERIFY(dropout->hasErrors());
        QVERIFY(dropout->port(QStringLiteral("in"), false)->hasIssue());
        QVERIFY(dropout->toolTip().contains(QStringLiteral("is not connected")));
        QVERIFY(!canvas.scene->nodeItem(QStringLiteral("relu"))->hasErrors());
        QVERIFY(!canvas.scene->nodeItem(QStringLiteral("data"))->hasErrors());
        QVERIFY(issues.issueCount() >= 1);

        // The issue names the node; clicking it asks to show that node.
        QSignalSpy activated(&issues, &IssuesPanel::issueActivated);
        int row = -1;
        for (int i = 0; i < issues.list()->topLevelItemCount(); ++i)
            if (issues.list()->topLevelItem(i)->text(1) == QStringLiteral("dropout"))
                row = i;
        QVERIFY(row >= 0);
        issues.activateRow(row);
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.first().first().value<Issue>().node, QStringLiteral("dropout"));

        // Reconnecting clears the mark.
        canvas.document->connectPorts({QStringLiteral("relu"), QStringLiteral("out")}, {QStringLiteral("dropout"), QStringLiteral("in")});
        canvas.document->validateNow();
        QVERIFY(!dropout->hasErrors());
        QCOMPARE(issues.summary(), QStringLiteral("No issues"));
    }

    void aBrokenGraphStillOpensWithItsProblemsMarked()
    {
        tytest::Canvas canvas;
        Preset broken;
        broken.graph.nodes = {Node{QStringLiteral("mystery"), QStringLiteral("layer.quantum"), {}, {0, 0}},
                              Node{QStringLiteral("fc"), QStringLiteral("layer.linear"), {{QStringLiteral("out_features"), -3}}, {200, 0}}};
        broken.graph.edges = {tytest::edge(QStringLiteral("mystery.out"), QStringLiteral("fc.in")),
                              tytest::edge(QStringLiteral("ghost.out"), QStringLiteral("fc.in"))};
        canvas.document->setPreset(broken);
        canvas.document->validateNow();
        QCOMPARE(canvas.scene->nodeItems().size(), 2);
        QCOMPARE(canvas.scene->edgeItems().size(), 1);  // the edge from a missing node has nothing to join
        QVERIFY(canvas.scene->nodeItem(QStringLiteral("mystery"))->hasErrors());
        QVERIFY(canvas.scene->nodeItem(QStringLiteral("mystery"))->ports().isEmpty());
        QVERIFY(canvas.scene->nodeItem(QStringLiteral("fc"))->hasErrors());
        canvas.view->fitAll();
        QVERIFY(!canvas.view->grab().isNull());  // paints without trouble
        canvas.document->removeItems({QStringLiteral("mystery")}, {});
        QCOMPARE(canvas.scene->edgeItems().size(), 0);
    }

    void aKindMismatchInAFileMarksTheEdge()
    {
        tytest::Canvas canvas;
        QVERIFY(canvas.document->load(tytest::presetPath(QStringLiteral("wine-tabular"))).ok());
        Preset broken = canvas.document->preset();
        broken.graph.edges.removeOne(tytest::edge(QStringLiteral("data.features"), QStringLiteral("fc1.in")));
        broken.graph.edges.append(tytest::edge(QStringLiteral("data.target"), QStringLiteral("fc1.in")));
        canvas.document->setPreset(broken);
        canvas.document->validateNow();
        EdgeItem *edge = canvas.scene->edgeItem(tytest::edge(QStringLiteral("data.target"), QStringLiteral("fc1.in")));
        QVERIFY(edge);
        QVERIFY(edge->hasProblem());
        QVERIFY(canvas.scene->nodeItem(QStringLiteral("fc1"))->hasErrors());
    }
};

TY_TEST_CLASS(TestBundledPresets)

#include "test_bundled_presets.moc"
