// MainWindow: actions, menus and the toolbar.

#include "main_window.h"

#include "composite_blocks.h"

#include "app_theme.h"
#include "recent_files.h"
#include "shortcuts_help.h"

#include "common/canvas_style.h"
#include "canvas/canvas_view.h"
#include "canvas/pipeline_scene.h"
#include "document/pipeline_document.h"
#include "icons/icon_library.h"
#include "palette/block_palette.h"
#include "canvas/composite_view.h"
#include "inspector/inspector_panel.h"
#include "issues/issues_panel.h"
#include "composite_expansion.h"

#include "block_registry.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFileInfo>
#include <QStatusBar>
#include <QMenuBar>
#include <QMessageBox>
#include <QSpinBox>
#include <QThread>
#include <QToolBar>
#include <QToolButton>
#include <QUndoStack>

namespace ty {

QAction *MainWindow::addAction(const QString &name, const QString &text, const QString &icon,
                               const QList<QKeySequence> &shortcuts)
{
    auto *a = new QAction(text, this);
    a->setObjectName(name);
    if (!icon.isEmpty())
        a->setIcon(icons::actionIcon(icon));
    a->setShortcuts(shortcuts);
    QWidget::addAction(a);  // shortcuts work while the menus are hidden too
    m_actions.insert(name, a);
    return a;
}

void MainWindow::createActions()
{
    addAction(QStringLiteral("new"), tr("&New"), QStringLiteral("document-new"), {QKeySequence::New});
    addAction(QStringLiteral("open"), tr("&Open…"), QStringLiteral("document-open"), {QKeySequence::Open});
    addAction(QStringLiteral("open-overlays"), tr("Open with O&verlays…"), QString(), {});
    addAction(QStringLiteral("save"), tr("&Save"), QStringLiteral("document-save"), {QKeySequence::Save});
    addAction(QStringLiteral("save-as"), tr("Save &As…"), QString(), {QKeySequence::SaveAs});
    addAction(QStringLiteral("quit"), tr("&Quit"), QString(), {QKeySequence::Quit});
    connect(action(QStringLiteral("new")), &QAction::triggered, this, &MainWindow::newDocument);
    connect(action(QStringLiteral("open")), &QAction::triggered, this, &MainWindow::open);
    connect(action(QStringLiteral("open-overlays")), &QAction::triggered, this, &MainWindow::openWithOverlaysInteractively);
    connect(action(QStringLiteral("save")), &QAction::triggered, this, &MainWindow::save);
    connect(action(QStringLiteral("save-as")), &QAction::triggered, this, &MainWindow::saveAs);
    connect(action(QStringLiteral("quit")), &QAction::triggered, this, &MainWindow::close);

    QUndoStack *stack = m_document->undoStack();
    QAction *undo = stack->createUndoAction(this, tr("&Undo"));
    undo->setObjectName(QStringLiteral("undo"));
    undo->setIcon(icons::actionIcon(QStringLiteral("edit-undo")));
    undo->setShortcuts(QKeySequence::Undo);
    QAction *redo = stack->createRedoAction(this, tr("&Redo"));
    redo->setObjectName(QStringLiteral("redo"));
    redo->setIcon(icons::actionIcon(QStringLiteral("edit-redo")));
    redo->setShortcuts({QKeySequence::Redo, QKeySequence(Qt::CTRL | Qt::Key_Y)});
    QWidget::addAction(undo);
    QWidget::addAction(redo);
    m_actions.insert(QStringLiteral("undo"), undo);
    m_actions.insert(QStringLiteral("redo"), redo);

    addAction(QStringLiteral("cut"), tr("Cu&t"), QStringLiteral("edit-cut"), {QKeySequence::Cut});
    addAction(QStringLiteral("copy"), tr("&Copy"), QStringLiteral("edit-copy"), {QKeySequence::Copy});
    addAction(QStringLiteral("paste"), tr("&Paste"), QStringLiteral("edit-paste"), {QKeySequence::Paste});
    addAction(QStringLiteral("delete"), tr("&Delete"), QStringLiteral("edit-delete"),
              {QKeySequence::Delete, QKeySequence(Qt::Key_Backspace)});
    addAction(QStringLiteral("select-all"), tr("Select &All"), QString(), {QKeySequence::SelectAll});
    connect(action(QStringLiteral("cut")), &QAction::triggered, m_scene, &PipelineScene::cutSelection);
    connect(action(QStringLiteral("copy")), &QAction::triggered, m_scene, &PipelineScene::copySelection);
    connect(action(QStringLiteral("paste")), &QAction::triggered, this,
            [this] { m_scene->paste(m_view->pastePosition()); });
    connect(action(QStringLiteral("delete")), &QAction::triggered, m_scene, &PipelineScene::deleteSelection);
    connect(action(QStringLiteral("select-all")), &QAction::triggered, m_scene, &PipelineScene::selectAllNodes);
    addAction(QStringLiteral("group"), tr("&Group into Block"), QString(), {QKeySequence(Qt::CTRL | Qt::Key_G)});
    addAction(QStringLiteral("ungroup"), tr("U&ngroup"), QString(), {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_G)});
    addAction(QStringLiteral("save-block"), tr("Save Block to &My Blocks"), QString(), {});
    connect(action(QStringLiteral("group")), &QAction::triggered, this, [this] {
        auto shown = [this] { return m_composites ? m_composites->currentDocument() : m_document; };
        const QString problem = shown()->groupIntoBlock(shown()->selectedNodes());
        const Node *group = shown()->graph().node(shown()->selectedNodes().value(0));
        statusBar()->showMessage(!problem.isEmpty() ? tr("Cannot group: %1").arg(problem)
                                                    : tr("Grouped into the new block %1 (Ctrl+Shift+G ungroups it)").arg(group ? group->block : QString()),
                                 8000);
    });
    connect(action(QStringLiteral("ungroup")), &QAction::triggered, this, [this] {
        auto shown = [this] { return m_composites ? m_composites->currentDocument() : m_document; };
        const QString problem = shown()->ungroupBlock(shown()->selectedNodes().value(0));
        if (!problem.isEmpty())
            statusBar()->showMessage(tr("Cannot ungroup: %1").arg(problem), 8000);
    });
    connect(action(QStringLiteral("save-block")), &QAction::triggered, this, &MainWindow::saveBlockToLibrary);

    addAction(QStringLiteral("zoom-in"), tr("Zoom &In"), QStringLiteral("zoom-in"),
              {QKeySequence::ZoomIn, QKeySequence(Qt::CTRL | Qt::Key_Equal)});
    addAction(QStringLiteral("zoom-out"), tr("Zoom &Out"), QStringLiteral("zoom-out"), {QKeySequence::ZoomOut});
    addAction(QStringLiteral("zoom-reset"), tr("&Actual Size"), QString(), {QKeySequence(Qt::CTRL | Qt::Key_0)});
    addAction(QStringLiteral("fit"), tr("&Fit to Window"), QStringLiteral("zoom-fit"),
              {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F), QKeySequence(Qt::Key_Home)});
    addAction(QStringLiteral("arrange"), tr("Auto-&arrange"), QStringLiteral("auto-arrange"),
              {QKeySequence(Qt::CTRL | Qt::Key_L)});
    QAction *snap = addAction(QStringLiteral("snap"), tr("&Snap to Grid"), QString(), {});
    snap->setCheckable(true);
    snap->setChecked(m_scene->snapToGrid());
    connect(action(QStringLiteral("zoom-in")), &QAction::triggered, m_view, &CanvasView::zoomIn);
    connect(action(QStringLiteral("zoom-out")), &QAction::triggered, m_view, &CanvasView::zoomOut);
    connect(action(QStringLiteral("zoom-reset")), &QAction::triggered, m_view, &CanvasView::resetZoom);
    connect(action(QStringLiteral("fit")), &QAction::triggered, m_view, &CanvasView::fitAll);
    connect(action(QStringLiteral("arrange")), &QAction::triggered, m_view, &CanvasView::arrangeAndFit);
    connect(snap, &QAction::toggled, m_scene, &PipelineScene::setSnapToGrid);

    createTrainingActions();
    createModeActions();
    createOnnxImportAction();
    createBundleActions();

    action(QStringLiteral("open"))->setToolTip(tr("Open a preset (%1)").arg(QKeySequence(QKeySequence::Open).toString()));
    action(QStringLiteral("arrange"))->setToolTip(tr("Lay the graph out left to right by depth (Ctrl+L)"));
    action(QStringLiteral("fit"))->setToolTip(tr("Show the whole graph (Home)"));
}

void MainWindow::updateEditActions()
{
    const bool nodes = !m_document->selectedNodes().isEmpty();
    const bool anything = nodes || !m_scene->selectedEdges().isEmpty();
    action(QStringLiteral("cut"))->setEnabled(nodes);
    PipelineDocument *shown = m_composites ? m_composites->currentDocument() : m_document;
    const QStringList selected = shown->selectedNodes();
    const Node *single = selected.size() == 1 ? shown->graph().node(selected.first()) : nullptr;
    const bool composite = single && isCompositeBlock(shown->preset(), single->block);
    action(QStringLiteral("group"))->setEnabled(!selected.isEmpty());
    action(QStringLiteral("ungroup"))->setEnabled(composite);
    action(QStringLiteral("save-block"))->setEnabled(composite);
    action(QStringLiteral("copy"))->setEnabled(nodes);
    action(QStringLiteral("delete"))->setEnabled(anything);
}

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(action(QStringLiteral("new")));
    file->addAction(action(QStringLiteral("open")));
    file->addAction(action(QStringLiteral("open-overlays")));
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::populateRecentMenu);
    addStartMenuEntries(file);
    file->addSeparator();
    file->addAction(action(QStringLiteral("import-onnx")));
    file->addAction(action(QStringLiteral("import-runs")));
    file->addAction(action(QStringLiteral("export-runs")));
    file->addAction(action(QStringLiteral("export-report")));
    file->addSeparator();
    file->addAction(action(QStringLiteral("save")));
    file->addAction(action(QStringLiteral("save-as")));
    file->addSeparator();
    file->addAction(action(QStringLiteral("quit")));

    QMenu *edit = menuBar()->addMenu(tr("&Edit"));
    for (const char *name : {"undo", "redo", "", "cut", "copy", "paste", "delete", "", "select-all", "", "group", "ungroup",
                             "save-block"})
        name[0] ? (void)edit->addAction(action(QString::fromLatin1(name))) : (void)edit->addSeparator();
    edit->addSeparator();
    edit->addAction(m_view->findAction());

    QMenu *view = menuBar()->addMenu(tr("&View"));
    for (const char *name : {"zoom-in", "zoom-out", "zoom-reset", "fit", "", "arrange", "snap"})
        name[0] ? (void)view->addAction(action(QString::fromLatin1(name))) : (void)view->addSeparator();
    view->addSeparator();
    view->addSeparator();
    for (const char *name : {"mode-design", "mode-experiments", "mode-evaluate"})
        view->addAction(action(QString::fromLatin1(name)));
    view->addSeparator();
    m_panelsMenu = view->addMenu(tr("&Panels"));
    for (QDockWidget *dock : findChildren<QDockWidget *>())
        m_panelsMenu->addAction(dock->toggleViewAction());
    addThemeMenu(view);

    createTrainingMenu();

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    addAction(QStringLiteral("shortcuts"), tr("Keyboard &Shortcuts"), QString(), {QKeySequence::HelpContents});
    connect(action(QStringLiteral("shortcuts")), &QAction::triggered, this, [this] { showShortcutsDialog(this); });
    help->addAction(action(QStringLiteral("shortcuts")));
    help->addAction(tr("Mouse and &Keyboard"), this, [this] {
        QMessageBox::information(
            this, tr("Mouse and keyboard"),
            tr("<p><b>Add</b> a block: drag it from the palette, or double-click it.<br>"
               "<b>Connect</b>: drag from an output port (right) to an input port (left); drag a connected input "
               "to re-wire it, or drop it on the background to remove the edge.<br>"
               "<b>Select</b>: click; Ctrl+click adds; Shift- or Ctrl-drag on the background draws a rubber band.<br>"
               "<b>Move</b>: drag nodes, or use the arrow keys (Shift for single pixels).<br>"
               "<b>Pan</b>: drag the background, or drag with the middle button. <b>Zoom</b>: Ctrl+wheel.</p>"));
    });
    help->addAction(tr("&About Trainyard"), this, [this] {
        QMessageBox::about(this, tr("About Trainyard"),
                           tr("<h3>Trainyard %1</h3><p>A workbench for deep-learning experiments: build a "
                              "pipeline graph, check its shapes as you edit, and train it in the "
                              "background and compare every run.</p>")
                               .arg(QApplication::applicationVersion()));
    });
}

void MainWindow::populateRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = m_recent->files();
    for (const QString &path : files)
        m_recentMenu->addAction(QFileInfo(path).fileName(), this, [this, path] { openFile(path); })->setToolTip(path);
    if (files.isEmpty())
        m_recentMenu->addAction(tr("No recent files"))->setEnabled(false);
    m_recentMenu->addSeparator();
    m_recentMenu->addAction(tr("Clear Recent Files"), this, [this] { m_recent->clear(); })->setEnabled(!files.isEmpty());
}

void MainWindow::saveBlockToLibrary()
{
    PipelineDocument *shown = m_composites ? m_composites->currentDocument() : m_document;
    const Node *node = shown->graph().node(shown->selectedNodes().value(0));
    if (!node || !isCompositeBlock(shown->preset(), node->block))
        return;
    const Status saved = saveLibraryBlock(shown->preset(), node->block, m_document->blockLibraryFolder());
    if (!saved) {
        statusBar()->showMessage(tr("Cannot save the block: %1").arg(saved.error().toString()), 8000);
        return;
    }
    m_palette->loadLibrary(m_document->blockLibraryFolder());
    statusBar()->showMessage(tr("Saved %1 to My blocks (%2)").arg(node->block, m_document->blockLibraryFolder()), 8000);
}

void MainWindow::showCompositeLevel()
{
    // The design docks: the pipeline's inspector and issues list, or a pair over the composite opened.
    QDockWidget *inspectorDock = m_designDocks.value(1);
    QDockWidget *issuesDock = m_designDocks.value(2);
    if (!inspectorDock || !issuesDock)
        return;
    QWidget *oldInspector = inspectorDock->widget(), *oldIssues = issuesDock->widget();
    if (m_composites->depth() > 0)
        connect(m_composites->currentDocument(), &PipelineDocument::selectionChanged, this, &MainWindow::updateEditActions,
                Qt::UniqueConnection);
    updateEditActions();
    if (m_composites->depth() == 0) {
        inspectorDock->setWidget(m_inspector);
        issuesDock->setWidget(m_issues);
    } else {
        auto *inspector = new InspectorPanel(m_composites->currentDocument(), inspectorDock);
        auto *issues = new IssuesPanel(m_composites->currentDocument(), issuesDock);
        inspectorDock->setWidget(inspector);
        issuesDock->setWidget(issues);
        connect(issues, &IssuesPanel::issueActivated, this, [this](const Issue &issue) {
            if (!issue.node.isEmpty())
                m_composites->currentDocument()->setSelectedNodes({topLevelNode(issue.node)});
        });
    }
    inspectorDock->widget()->show();
    issuesDock->widget()->show();
    for (QWidget *old : {oldInspector, oldIssues})
        if (old && old != m_inspector && old != m_issues && old != inspectorDock->widget() && old != issuesDock->widget())
            old->deleteLater();
}

void MainWindow::showCanvasMenu(const QPointF &scenePos, const QPoint &globalPos)
{
    QMenu menu(this);
    QMenu *add = menu.addMenu(tr("Add &Block"));
    QMenu *category = nullptr;
    int lastCategory = -1;
    for (const BlockDescriptor &block : BlockRegistry::builtin().all()) {
        if (int(block.category) != lastCategory) {
            lastCategory = int(block.category);
            category = add->addMenu(icons::categoryIcon(block.category), style::categoryTitle(block.category));
        }
        QAction *a = category->addAction(block.displayName, this, [this, type = block.typeId, scenePos] {
            m_view->dropBlock(type, scenePos);
        });
        a->setToolTip(block.doc);
    }
    add->setToolTipsVisible(true);
    menu.addSeparator();
    for (const char *name : {"cut", "copy"})
        menu.addAction(action(QString::fromLatin1(name)));
    menu.addAction(action(QStringLiteral("paste"))->icon(), action(QStringLiteral("paste"))->text(), this,
                   [this, scenePos] { m_scene->paste(scenePos); });
    menu.addAction(action(QStringLiteral("delete")));
    menu.addSeparator();
    for (const char *name : {"group", "ungroup", "save-block"})
        menu.addAction(action(QString::fromLatin1(name)));
    menu.addSeparator();
    for (const char *name : {"select-all", "arrange", "fit"})
        menu.addAction(action(QString::fromLatin1(name)));
    menu.exec(globalPos);
}

void MainWindow::createToolBar()
{
    QToolBar *bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("mainToolBar"));
    bar->setMovable(false);
    bar->setIconSize(QSize(20, 20));
    bar->setToolButtonStyle(Qt::ToolButtonIconOnly);
    for (const char *name : {"new", "open", "save", "", "undo", "redo", "", "zoom-out", "zoom-in", "fit", "arrange"})
        name[0] ? (void)bar->addAction(action(QString::fromLatin1(name))) : (void)bar->addSeparator();
    bar->addSeparator();
    bar->addAction(action(QStringLiteral("train")));
    // Data-parallel training on this machine: N processes, each its share of every batch (docs/distributed.md).
    m_processes = new QSpinBox(bar);
    m_processes->setObjectName(QStringLiteral("processes"));
    m_processes->setRange(1, std::max(1, QThread::idealThreadCount()));
    m_processes->setPrefix(tr("processes: "));
    m_processes->setToolTip(tr("Train with this many processes on this machine, each taking its share of every batch "
                               "(trainyard-cli run --nproc N); 1 trains in one process"));
    bar->addWidget(m_processes);
    bar->addAction(action(QStringLiteral("stop-all")));
    if (auto *button = qobject_cast<QToolButton *>(bar->widgetForAction(action(QStringLiteral("train")))))
        button->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);  // the one action that deserves a label
}

} // namespace ty
