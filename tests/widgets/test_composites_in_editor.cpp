// Composite blocks in the editor: a composite node is drawn with its ports, shape and parameter count; an
// issue inside it shows on its node; the inspector edits its exposed parameters (tests/widgets/test_inspector.cpp
// on the ResNet); a block of the user's library appears under "My blocks" and, added to a preset, is copied
// into it in one undo step.

#include "test_suite.h"
#include "widget_test_support.h"

#include "canvas/canvas_view.h"
#include "canvas/composite_view.h"
#include "canvas/node_item.h"
#include "canvas/pipeline_scene.h"
#include "document/pipeline_document.h"
#include "inspector/inspector_panel.h"
#include "inspector/param_form.h"
#include "palette/block_palette.h"

#include "composite_blocks.h"
#include "preset_format.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QToolButton>
#include <QTest>
#include <QUndoStack>

using namespace ty;

class TestCompositesInEditor : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void aCompositeNodeShowsItsShapeAndItsInnerIssues()
    {
        tytest::Canvas canvas;
        QVERIFY(canvas.document->load(tytest::presetPath(QStringLiteral("fashion-mnist-resnet"))).ok());
        canvas.document->validateNow();
        NodeItem *stage2 = canvas.scene->nodeItem(QStringLiteral("stage2"));
        QVERIFY(stage2 && stage2->block());
        QCOMPARE(stage2->block()->typeId, QStringLiteral("residual_down"));
        QVERIFY(stage2->port(QStringLiteral("in"), false) && stage2->port(QStringLiteral("out"), true));
        QCOMPARE(stage2->shapeText(), QStringLiteral("[64, 7, 7]"));
        QCOMPARE(stage2->paramCountText(), QStringLiteral("58k params"));
        QVERIFY(!stage2->hasErrors());

        // A value that breaks a nested composite (the shortcut's conv_bn): the issue names the inner path and
        // sits on the outer composite's node.
        Preset broken = canvas.document->preset();
        broken.graph.node(QStringLiteral("stage2"))->params.insert(QStringLiteral("shortcut.kernel_size"), 0);
        canvas.document->setPreset(broken);
        canvas.document->validateNow();
        QVERIFY(canvas.scene->nodeItem(QStringLiteral("stage2"))->hasErrors());
        bool inner = false;
        for (const Issue &issue : canvas.document->issuesOf(QStringLiteral("stage2")))
            inner = inner || (issue.node == QStringLiteral("stage2/shortcut") && issue.param == QStringLiteral("kernel_size"));
        QVERIFY2(inner, "the issue names the inner path");
        QVERIFY(!canvas.scene->nodeItem(QStringLiteral("stage1"))->hasErrors());
    }

    void aLibraryBlockIsCopiedIntoThePresetInOneUndoStep()
    {
        QTemporaryDir library;
        const Result<Preset> resnet = loadPreset(tytest::presetPath(QStringLiteral("fashion-mnist-resnet")));
        QVERIFY(saveLibraryBlock(resnet.value(), QStringLiteral("residual_unit"), library.path()).ok());

        BlockPalette palette;
        palette.loadLibrary(library.path());
        palette.setFilterText(QStringLiteral("residual"));
        QCOMPARE(palette.visibleBlocks(), QStringList{QStringLiteral("residual_unit")});

        tytest::Canvas canvas;
        canvas.document->setBlockLibraryFolder(library.path());
        QVERIFY(canvas.document->load(tytest::presetPath(QStringLiteral("fashion-mnist-mlp"))).ok());
        QVERIFY(canvas.document->preset().blocks.isEmpty());
        const int before = canvas.document->undoStack()->count();
        tytest::dropBlock(canvas.view.get(), QStringLiteral("residual_unit"), QPoint(200, 200));
        const QString id = canvas.document->selectedNodes().value(0);
        QVERIFY(canvas.document->graph().node(id));
        QCOMPARE(canvas.document->graph().node(id)->block, QStringLiteral("residual_unit"));
        // The definition and the composite it uses are in the preset now.
        QVERIFY(canvas.document->preset().blocks.contains(QStringLiteral("residual_unit")));
        QVERIFY(canvas.document->preset().blocks.contains(QStringLiteral("conv_bn")));
        QVERIFY(canvas.scene->nodeItem(id)->block());
        QCOMPARE(canvas.document->undoStack()->count(), before + 1);
        canvas.document->undoStack()->undo();
        QVERIFY(!canvas.document->graph().node(id));
        QVERIFY(canvas.document->preset().blocks.isEmpty());
        canvas.document->undoStack()->redo();
        QVERIFY(canvas.document->graph().node(id));
        QVERIFY(canvas.document->preset().blocks.contains(QStringLiteral("residual_unit")));
        // A name in no library and no registry adds nothing.
        tytest::dropBlock(canvas.view.get(), QStringLiteral("no_such_block"), QPoint(300, 300));
        QCOMPARE(canvas.document->undoStack()->count(), before + 1);
    }

    void groupAndUngroupAreOneUndoStepEach()
    {
        tytest::Canvas canvas;
        PipelineDocument &doc = *canvas.document;
        QVERIFY(doc.load(tytest::presetPath(QStringLiteral("fashion-mnist-cnn"))).ok());
        doc.validateNow();
        const Preset original = doc.preset();
        const qint64 params = doc.report().totalParams;

        QVERIFY(doc.groupIntoBlock({QStringLiteral("conv2"), QStringLiteral("relu2"), QStringLiteral("pool2")}).isEmpty());
        QCOMPARE(doc.undoStack()->count(), 1);
        QCOMPARE(doc.selectedNodes(), QStringList{QStringLiteral("group")});
        QVERIFY(canvas.scene->nodeItem(QStringLiteral("group")));
        QVERIFY(!canvas.scene->nodeItem(QStringLiteral("conv2")));
        QCOMPARE(canvas.scene->nodeItem(QStringLiteral("group"))->block()->typeId, QStringLiteral("block"));
        doc.validateNow();
        QVERIFY2(doc.report().ok(), qPrintable(doc.report().issues.value(0).toString()));
        QCOMPARE(doc.report().totalParams, params);

        QVERIFY(doc.ungroupBlock(QStringLiteral("group")).isEmpty());
        QCOMPARE(doc.undoStack()->count(), 2);
        // The nodes are back under the ids the user gave them (their --set keys still work), where they were,
        // with their items on the canvas.
        for (const char *id : {"conv2", "relu2", "pool2"}) {
            const Node *node = doc.graph().node(QString::fromLatin1(id));
            QVERIFY2(node, id);
            QCOMPARE(node->pos, original.graph.node(QString::fromLatin1(id))->pos);
            QVERIFY(canvas.scene->nodeItem(QString::fromLatin1(id)));
        }
        QVERIFY(!doc.graph().node(QStringLiteral("group_conv2")));
        QCOMPARE(doc.graph().edges.size(), original.graph.edges.size());
        for (const Edge &edge : original.graph.edges)
            QVERIFY2(doc.graph().edges.contains(edge), qPrintable(edge.from.toString() + QStringLiteral(" -> ") + edge.to.toString()));
        doc.validateNow();
        QCOMPARE(doc.report().totalParams, params);

        doc.undoStack()->undo();
        QVERIFY(doc.graph().node(QStringLiteral("group")));
        doc.undoStack()->undo();
        QCOMPARE(doc.preset(), original);  // nodes, edges and blocks as they were, in their order
        QCOMPARE(canvas.scene->nodeItems().size(), original.graph.nodes.size());

        // Refused with the reason, changing nothing.
        QVERIFY(doc.groupIntoBlock({QStringLiteral("loss")}).contains(QStringLiteral("only transforms, layers")));
        QVERIFY(!doc.ungroupBlock(QStringLiteral("conv1")).isEmpty());
        QCOMPARE(doc.preset(), original);
    }

    void theInspectorExposesAnInnerParameter()
    {
        PipelineDocument doc;
        QVERIFY(doc.load(tytest::presetPath(QStringLiteral("fashion-mnist-resnet"))).ok());
        InspectorPanel panel(&doc);
        panel.resize(340, 800);
        panel.show();
        doc.setSelectedNodes({QStringLiteral("stem")});
        auto *expose = panel.findChild<QToolButton *>(QStringLiteral("expose:bn.momentum"));
        QVERIFY(expose && expose->isEnabled());
        QVERIFY(!panel.findChild<QToolButton *>(QStringLiteral("expose:conv.out_channels"))->isEnabled());  // it is width
        expose->click();
        QCOMPARE(doc.undoStack()->count(), 1);
        QVERIFY(panel.nodeForm()->editor(QStringLiteral("momentum")));  // a parameter of the block now
        QTRY_VERIFY(!panel.findChild<QToolButton *>(QStringLiteral("expose:bn.momentum"))->isEnabled());
        doc.undoStack()->undo();
        QVERIFY(!panel.nodeForm()->editor(QStringLiteral("momentum")));
    }

    void aCompositeOpensOnTheCanvasAndEditsGoBackIntoItsBlock()
    {
        tytest::Canvas canvas;
        PipelineDocument &root = *canvas.document;
        QVERIFY(root.load(tytest::presetPath(QStringLiteral("fashion-mnist-resnet"))).ok());
        CompositeView area(&root, canvas.view.get());
        QSignalSpy levels(&area, &CompositeView::levelChanged);
        QVERIFY(!area.open(QStringLiteral("gap")));  // not a composite
        // A double click on the node opens it, as in the app.
        connect(canvas.scene.get(), &PipelineScene::nodeDoubleClicked, &area, &CompositeView::open);
        area.resize(1000, 700);
        area.show();
        QVERIFY(QTest::qWaitForWindowExposed(&area));
        canvas.view->fitAll();
        QTest::mouseDClick(canvas.view->viewport(), Qt::LeftButton, {}, tytest::nodeHeaderPos(canvas.view.get(), QStringLiteral("stage2")));
        QCOMPARE(area.depth(), 1);
        QCOMPARE(levels.count(), 1);
        QCOMPARE(area.path(), QStringLiteral("stage2"));
        PipelineDocument *inside = area.currentDocument();
        QVERIFY(inside != &root);
        QVERIFY(inside->graph().node(QStringLiteral("shortcut")));
        // Shapes as the block has them where it is used.
        QCOMPARE(inside->report().nodes.value(QStringLiteral("shortcut")).outputShape, (std::vector<qint64>{64, 7, 7}));
        QVERIFY(inside->report().ok());

        // One level deeper: the shortcut's conv_bn.
        QVERIFY(area.open(QStringLiteral("shortcut")));
        QCOMPARE(area.path(), QStringLiteral("stage2/shortcut"));
        QCOMPARE(area.currentDocument()->report().nodes.value(QStringLiteral("conv")).paramCount, qint64(64 * 32));
        area.backTo(1);
        QCOMPARE(area.depth(), 1);
        QCOMPARE(root.undoStack()->count(), 0);  // nothing edited, nothing written back

        // An edit inside: the second convolution with stride 2 breaks the addition; the issue shows inside.
        inside = area.currentDocument();
        QVERIFY(inside->setParam(QStringLiteral("conv2"), QStringLiteral("stride"), 2, 0).isEmpty());
        inside->validateNow();
        QVERIFY(!inside->report().ok());
        QVERIFY(!inside->issuesOf(QStringLiteral("add")).isEmpty());
        // Back at the pipeline: the block holds the edit, as one undo step, and the pipeline sees the error.
        area.backTo(0);
        QCOMPARE(area.depth(), 0);
        QCOMPARE(root.undoStack()->count(), 1);
        QVERIFY(root.undoStack()->text(0).contains(QStringLiteral("residual_down")));
        root.validateNow();
        QVERIFY(!root.report().ok());
        root.undoStack()->undo();
        root.validateNow();
        QVERIFY(root.report().ok());
        QCOMPARE(root.report().totalParams, qint64(77290));
        canvas.view->setParent(nullptr);  // the area made it its child; the test's Canvas owns it
    }
};

TY_TEST_CLASS(TestCompositesInEditor)

#include "test_composites_in_editor.moc"
