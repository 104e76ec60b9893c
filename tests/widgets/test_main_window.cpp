// The main window: title and modified mark, opening (also by dropping a file), recent files, actions; and a
// user's first session: build the Fashion-MNIST MLP on an empty canvas with mouse gestures (drops from the
// palette, drags between ports, clicks) and typed values, save it, reopen it, and get the same graph back.

#include "test_suite.h"
#include "widget_test_support.h"

#include "default_preset.h"
#include "main_window.h"
#include "recent_files.h"

#include "canvas/canvas_view.h"
#include "canvas/node_item.h"
#include "canvas/pipeline_scene.h"
#include "document/pipeline_document.h"
#include "inspector/inspector_panel.h"
#include "inspector/param_editor.h"
#include "inspector/param_form.h"
#include "palette/block_palette.h"

#include "block_registry.h"
#include "preset_format.h"

#include <QAction>
#include <QApplication>
#include <QDropEvent>
#include <QLineEdit>
#include <QMimeData>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <QUndoStack>
#include <QUrl>

using namespace ty;

class TestMainWindow : public QObject {
    Q_OBJECT

    std::unique_ptr<MainWindow> window;
    QTemporaryDir dir;

    PipelineDocument *doc() const { return window->document(); }

    void typeInto(QWidget *widget, const QString &text)
    {
        QTest::keyClick(widget, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(widget, text);
        QTest::keyClick(widget, Qt::Key_Return);
    }

    void selectByClick(const QString &id)
    {
        tytest::click(window->view()->viewport(), tytest::nodeHeaderPos(window->view(), id));
    }

    void setParam(const QString &id, const QString &name, const QString &text)
    {
        selectByClick(id);
        QCOMPARE(window->inspector()->shownNode(), id);
        ParamEditor *editor = window->inspector()->nodeForm()->editor(name);
        QVERIFY(editor);
        QWidget *input = editor->input();
        typeInto(qobject_cast<QSpinBox *>(input) ? input : static_cast<QWidget *>(input), text);
    }

private Q_SLOTS:
    void init()
    {
        window = std::make_unique<MainWindow>();
        window->setInteractive(false);
        window->resize(1800, 1100);
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    }

    void cleanup() { window.reset(); }

    void titleShowsTheFileAndTheModifiedMark()
    {
        QVERIFY(window->openFile(tytest::presetPath(QStringLiteral("wine-tabular"))));
        QVERIFY(window->windowTitle().startsWith(QStringLiteral("wine-tabular.trainyard.json[*]")));
        QVERIFY(!window->isWindowModified());
        QVERIFY(doc()->setParam(QStringLiteral("fc1"), QStringLiteral("out_features"), 48).isEmpty());
        QVERIFY(window->isWindowModified());
        QVERIFY(window->action(QStringLiteral("undo"))->isEnabled());
        window->action(QStringLiteral("undo"))->trigger();
        QVERIFY(!window->isWindowModified());
        doc()->setParam(QStringLiteral("fc1"), QStringLiteral("out_features"), 48);
        QVERIFY(window->saveTo(dir.filePath(QStringLiteral("mine.trainyard.json"))));
        QVERIFY(!window->isWindowModified());
        QVERIFY(window->windowTitle().startsWith(QStringLiteral("mine.trainyard.json")));
        QCOMPARE(RecentFiles().files().first(), dir.filePath(QStringLiteral("mine.trainyard.json")));
    }

    void aFileThatCannotBeOpenedKeepsTheDocument()
    {
        QVERIFY(window->openFile(tytest::presetPath(QStringLiteral("wine-tabular"))));
        QVERIFY(!window->openFile(dir.filePath(QStringLiteral("missing.trainyard.json"))));
        QCOMPARE(QFileInfo(doc()->fileName()).fileName(), QStringLiteral("wine-tabular.trainyard.json"));
    }

    // File > Open with Overlays: the merged preset as an unsaved document, its data found beside the base.
    void openWithOverlaysMergesIntoAnUnsavedDocument()
    {
        QVERIFY(window->openFile(tytest::presetPath(QStringLiteral("fashion-mnist-mlp"))));
        const auto write = [&](const QString &name, const QByteArray &text) {
            QFile f(dir.filePath(name));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(text);
        };
        write(QStringLiteral("wide.json"), R"({"name": "Wine, wide", "nodes": {"fc1": {"params": {"out_features": 64}}}})");
        write(QStringLiteral("short.json"), R"({"training": {"epochs": 5}})");
        write(QStringLiteral("bad.json"), R"({"nodes": {"fc1": 3}})");
        const QString base = tytest::presetPath(QStringLiteral("wine-tabular"));
        QVERIFY(!window->openWithOverlays(base, {dir.filePath(QStringLiteral("bad.json"))}));
        QCOMPARE(QFileInfo(doc()->fileName()).fileName(), QStringLiteral("fashion-mnist-mlp.trainyard.json"));  // kept

        QVERIFY(window->openWithOverlays(base, {dir.filePath(QStringLiteral("wide.json")), dir.filePath(QStringLiteral("short.json"))}));
        QVERIFY(doc()->fileName().isEmpty());  // Save asks where; the base stays as it is
        QVERIFY(doc()->isModified());
        QCOMPARE(doc()->preset().name, QStringLiteral("Wine, wide"));
        QCOMPARE(doc()->graph().node(QStringLiteral("fc1"))->params.value(QStringLiteral("out_features")).toInt(), 64);
        QCOMPARE(doc()->preset().training.value(QStringLiteral("epochs")).toInt(), 5);
        const QString data = doc()->graph().node(QStringLiteral("data"))->params.value(QStringLiteral("path")).toString();
        QVERIFY2(QFileInfo(data).isAbsolute() && QFileInfo::exists(data), qPrintable(data));
        QStringList problems;
        for (const Issue &issue : doc()->report().issues)
            problems << issue.toString();
        QVERIFY2(doc()->report().ok(), qPrintable(problems.join(QLatin1Char('\n'))));
    }

    void droppingAPresetFileOpensIt()
    {
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(tytest::presetPath(QStringLiteral("fashion-mnist-cnn")))});
        const QPoint pos(200, 200);
        QDragEnterEvent enter(pos, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(window->view()->viewport(), &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(pos), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(window->view()->viewport(), &drop);
        QCOMPARE(QFileInfo(doc()->fileName()).fileName(), QStringLiteral("fashion-mnist-cnn.trainyard.json"));
        QCOMPARE(window->scene()->nodeItems().size(), 17);
    }

    void theDefaultPresetIsFound()
    {
        QVERIFY(defaultPresetPath().endsWith(QStringLiteral("fashion-mnist-mlp.trainyard.json")));
        QVERIFY(QFileInfo::exists(defaultPresetPath()));
    }

    void editActionsWorkOnTheSelection()
    {
        QVERIFY(window->openFile(tytest::presetPath(QStringLiteral("wine-tabular"))));
        window->action(QStringLiteral("select-all"))->trigger();
        QCOMPARE(doc()->selectedNodes().size(), 9);
        doc()->setSelectedNodes({QStringLiteral("dropout")});
        window->action(QStringLiteral("copy"))->trigger();
        window->action(QStringLiteral("paste"))->trigger();
        QVERIFY(doc()->graph().node(QStringLiteral("dropout2")));
        window->action(QStringLiteral("delete"))->trigger();
        QVERIFY(!doc()->graph().node(QStringLiteral("dropout2")));
        // Shortcuts reach the actions (the same path as the editing keys tested below). The bundled presets
        // are saved arranged, so move a node out of line for Ctrl+L to have something to do.
        QVERIFY(doc()->moveNodes({{QStringLiteral("dropout"), QPointF(900, 700)}}, MoveKind::Drag));
        window->view()->setFocus();
        QTest::keyClick(window->view()->viewport(), Qt::Key_L, Qt::ControlModifier);
        QCOMPARE(doc()->undoStack()->undoText(), QStringLiteral("Auto-arrange"));
    }

    void editingKeysInAFieldStayInTheField()
    {
        QVERIFY(window->openFile(tytest::presetPath(QStringLiteral("wine-tabular"))));
        doc()->setSelectedNodes({QStringLiteral("dropout")});
        QLineEdit *id = window->inspector()->idEditor();
        id->setFocus();
        id->setCursorPosition(id->text().size());
        QTest::keyClick(id, Qt::Key_Backspace);
        QTest::keyClick(id, Qt::Key_Home);
        QTest::keyClick(id, Qt::Key_Delete);
        QCOMPARE(id->text(), QStringLiteral("ropou"));
        QVERIFY(doc()->graph().node(QStringLiteral("dropout")));  // the node was not deleted
        QCOMPARE(doc()->undoStack()->count(), 0);
        QTest::keyClick(id, Qt::Key_Return);
        QVERIFY(doc()->graph().node(QStringLiteral("ropou")));
    }

    void thePaletteDragsWhatTheCanvasAccepts()
    {
        BlockPalette *palette = window->blockPalette();
        palette->setFilterText(QStringLiteral("conv2d"));
        QCOMPARE(palette->visibleBlocks(), QStringList{QStringLiteral("layer.conv2d")});
        palette->setFilterText(QStringLiteral("loss"));
        QVERIFY(palette->visibleBlocks().contains(QStringLiteral("loss.huber")));  // by category
        QTreeView *view = palette->view();
        const QModelIndex category = view->model()->index(0, 0);
        const QModelIndex block = view->model()->index(0, 0, category);
        std::unique_ptr<QMimeData> mime(view->model()->mimeData({block}));
        QVERIFY(mime && mime->hasFormat(QString::fromLatin1(kBlockMimeType)));
        QVERIFY(!block.data(Qt::ToolTipRole).toString().isEmpty());
        palette->setFilterText(QString());
        QCOMPARE(palette->visibleBlocks().size(), BlockRegistry::builtin().all().size());
    }

    void buildTheMlpWithTheMouseSaveAndReopen()
    {
        window->newDocument();
        CanvasView *view = window->view();
        view->setZoom(0.6);
        view->centerOn(QPointF(900, 400));
        const QList<QPair<QString, QString>> blocks{
            {QStringLiteral("dataset.fashion_mnist"), QStringLiteral("data")}, {QStringLiteral("transform.normalize"), QStringLiteral("norm")},
            {QStringLiteral("layer.flatten"), QStringLiteral("flatten")},     {QStringLiteral("layer.linear"), QStringLiteral("fc")},
            {QStringLiteral("layer.relu"), QStringLiteral("relu")},           {QStringLiteral("layer.linear"), QStringLiteral("fc2")},
            {QStringLiteral("layer.relu"), QStringLiteral("relu2")},          {QStringLiteral("layer.linear"), QStringLiteral("fc3")},
            {QStringLiteral("layer.relu"), QStringLiteral("relu3")},          {QStringLiteral("layer.linear"), QStringLiteral("fc4")},
            {QStringLiteral("loss.cross_entropy"), QStringLiteral("loss")},   {QStringLiteral("metric.accuracy"), QStringLiteral("accuracy")},
            {QStringLiteral("optimizer.adam"), QStringLiteral("opt")},        {QStringLiteral("schedule.cosine"), QStringLiteral("schedule")},
        };
        for (int i = 0; i < blocks.size(); ++i) {
            const QPointF at(200 + (i % 7) * 240, i < 7 ? 100 : 500);
            tytest::dropBlock(view, blocks.at(i).first, view->mapFromScene(at));
            QVERIFY2(doc()->graph().node(blocks.at(i).second), qPrintable(blocks.at(i).second));
        }
        QCOMPARE(doc()->undoStack()->count(), 14);

        // Rename two nodes to the preset's names, then wire every edge by dragging.
        selectByClick(QStringLiteral("fc"));
        typeInto(window->inspector()->idEditor(), QStringLiteral("fc1"));
        selectByClick(QStringLiteral("relu"));
        typeInto(window->inspector()->idEditor(), QStringLiteral("relu1"));
        const Result<Preset> bundled = loadPreset(tytest::presetPath(QStringLiteral("fashion-mnist-mlp")));
        QVERIFY(bundled.ok());
        for (const Edge &e : bundled.value().graph.edges) {
            tytest::drag(view->viewport(), tytest::portPos(view, e.from.node, e.from.port, true),
                         tytest::portPos(view, e.to.node, e.to.port, false));
            QVERIFY2(doc()->graph().edges.contains(e), qPrintable(edgeKey(e)));
        }

        // Values typed into the inspector.
        setParam(QStringLiteral("data"), QStringLiteral("val_count"), QStringLiteral("5000"));
        setParam(QStringLiteral("norm"), QStringLiteral("mean"), QStringLiteral("0.286"));
        setParam(QStringLiteral("norm"), QStringLiteral("std"), QStringLiteral("0.353"));
        setParam(QStringLiteral("fc1"), QStringLiteral("out_features"), QStringLiteral("256"));
        setParam(QStringLiteral("fc2"), QStringLiteral("out_features"), QStringLiteral("128"));
        setParam(QStringLiteral("fc3"), QStringLiteral("out_features"), QStringLiteral("100"));
        setParam(QStringLiteral("fc4"), QStringLiteral("out_features"), QStringLiteral("10"));
        setParam(QStringLiteral("opt"), QStringLiteral("lr"), QStringLiteral("0.001"));
        QVERIFY2(tytest::withoutPositions(doc()->graph()) == tytest::withoutPositions(bundled.value().graph),
                 qPrintable(tytest::dump(doc()->graph())));
        if (tytest::fashionMnistAvailable()) {
            doc()->validateNow();
            QVERIFY(doc()->report().issues.isEmpty());
            QCOMPARE(doc()->report().totalParams, 247766);
        }

        const PipelineGraph built = doc()->graph();
        const QString path = dir.filePath(QStringLiteral("my-mlp.trainyard.json"));
        QCOMPARE(doc()->preset().name, QStringLiteral("Untitled"));
        QVERIFY(window->saveTo(path));
        QCOMPARE(doc()->preset().name, QStringLiteral("my-mlp"));  // named after its file
        QVERIFY(!window->isWindowModified());
        window->newDocument();
        QCOMPARE(window->scene()->nodeItems().size(), 0);
        QVERIFY(window->openFile(path));
        QVERIFY2(doc()->graph() == built, qPrintable(tytest::dump(doc()->graph())));
        QCOMPARE(doc()->preset().name, QStringLiteral("my-mlp"));
        QCOMPARE(window->scene()->nodeItems().size(), 14);
    }
};

TY_TEST_CLASS(TestMainWindow)

#include "test_main_window.moc"
