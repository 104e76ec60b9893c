#include "main_window.h"

#include "composite_expansion.h"

#include "default_preset.h"
#include "recent_files.h"
#include "team_live_mirror.h"  // complete, for m_teamMirror
#include "window_geometry.h"

#include "common/canvas_style.h"
#include "canvas/canvas_view.h"
#include "canvas/pipeline_scene.h"
#include "document/pipeline_document.h"
#include "icons/icon_library.h"
#include "inspector/inspector_panel.h"
#include "issues/issues_panel.h"
#include "palette/block_palette.h"

#include "cost_estimate.h"
#include "memory_estimate.h"

#include <QAction>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTimer>
#include <QUndoStack>

namespace ty {

namespace {
const char *const kFileFilter = QT_TRANSLATE_NOOP("MainWindow", "Trainyard presets (*.trainyard.json);;JSON files (*.json)");
}

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent), m_document(new PipelineDocument(this)), m_scene(new PipelineScene(m_document, this)),
      m_view(new CanvasView(m_scene, this)), m_recent(new RecentFiles)
{
    setWindowIcon(icons::appIcon());
    setAcceptDrops(true);
    setDockNestingEnabled(true);
    createDocks();
    createModes();
    createActions();
    createMenus();
    createToolBar();
    createStatusBar();
    createTeamStore();

    connect(m_document, &PipelineDocument::modifiedChanged, this, &MainWindow::updateTitle);
    connect(m_document, &PipelineDocument::fileNameChanged, this, &MainWindow::updateTitle);
    connect(m_document, &PipelineDocument::reportChanged, this, &MainWindow::updateStatistics);
    connect(m_document, &PipelineDocument::selectionChanged, this, &MainWindow::updateEditActions);
    connect(m_scene, &QGraphicsScene::selectionChanged, this, &MainWindow::updateEditActions);
    connect(m_scene, &PipelineScene::statusMessage, this, [this](const QString &message) {
        if (message.isEmpty())
            statusBar()->clearMessage();
        else
            statusBar()->showMessage(message, 6000);
    });
    connect(m_view, &CanvasView::presetFileDropped, this, &MainWindow::openFile);
    connect(m_view, &CanvasView::contextMenuRequested, this, &MainWindow::showCanvasMenu);
    connect(m_view, &CanvasView::zoomChanged, this,
            [this](qreal zoom) { m_zoomLabel->setText(QStringLiteral("%1%").arg(qRound(zoom * 100))); });
    connect(m_palette, &BlockPalette::blockActivated, this, [this](const QString &type) {
        m_view->dropBlock(type, m_view->visibleCenter());
        m_view->setFocus();
    });
    connect(m_issues, &IssuesPanel::issueActivated, this, &MainWindow::showIssue);
    readSettings();
    updateTitle();
    updateEditActions();
}

MainWindow::~MainWindow()
{
    delete m_recent;
}

void MainWindow::createDocks()
{
    auto dock = [this](const QString &title, const QString &name, QWidget *content, Qt::DockWidgetArea area) {
        auto *d = new QDockWidget(title, this);
        d->setObjectName(name);
        d->setWidget(content);
        addDockWidget(area, d);
        return d;
    };
    m_palette = new BlockPalette(this);
    m_palette->loadLibrary(m_document->blockLibraryFolder());
    m_inspector = new InspectorPanel(m_document, this);
    m_issues = new IssuesPanel(m_document, this);
    QDockWidget *palette = dock(tr("Blocks"), QStringLiteral("paletteDock"), m_palette, Qt::LeftDockWidgetArea);
    QDockWidget *inspector = dock(tr("Inspector"), QStringLiteral("inspectorDock"), m_inspector, Qt::RightDockWidgetArea);
    QDockWidget *issues = dock(tr("Issues"), QStringLiteral("issuesDock"), m_issues, Qt::BottomDockWidgetArea);
    m_designDocks = {palette, inspector, issues};
    createTrainingPage();
    connect(m_inspector, &InspectorPanel::findLearningRateRequested, this, [this](const QString &node) { findLearningRate(node); });
    resizeDocks({palette, inspector}, {225, 300}, Qt::Horizontal);
    resizeDocks({issues}, {130}, Qt::Vertical);
    connect(m_issues, &IssuesPanel::summaryChanged, this, [issues](const QString &, int errors, int warnings, int notes) {
        const int n = errors + warnings + notes;
        issues->setWindowTitle(n == 0 ? tr("Issues") : tr("Issues (%1)").arg(n));
    });
}

void MainWindow::createStatusBar()
{
    m_issuesLabel = new QLabel(this);
    m_statsLabel = new QLabel(this);
    m_zoomLabel = new QLabel(QStringLiteral("100%"), this);
    m_zoomLabel->setMinimumWidth(m_zoomLabel->fontMetrics().horizontalAdvance(QStringLiteral("8888%")));
    m_zoomLabel->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_zoomLabel->setToolTip(tr("Zoom (Ctrl+wheel)"));
    statusBar()->addPermanentWidget(m_issuesLabel);
    statusBar()->addPermanentWidget(m_statsLabel);
    statusBar()->addPermanentWidget(m_zoomLabel);
    connect(m_issues, &IssuesPanel::summaryChanged, this, [this](const QString &summary, int errors, int warnings, int notes) {
        const QString icon = errors     ? QStringLiteral("status-error")
                             : warnings ? QStringLiteral("status-warning")
                             : notes    ? QStringLiteral("status-info")
                                        : QStringLiteral("status-ok");
        const int size = m_issuesLabel->fontMetrics().height();
        if (m_document->graph().nodes.isEmpty())
            m_issuesLabel->clear();  // an empty pipeline is neither fine nor broken
        else
            m_issuesLabel->setPixmap(icons::statusIcon(icon).pixmap(QSize(size, size), devicePixelRatioF()));
        m_issuesLabel->setToolTip(summary);
        updateStatistics();
    });
    updateStatistics();
}

void MainWindow::updateStatistics()
{
    const ShapeReport &report = m_document->report();
    QString stats = tr("%1 · %2").arg(style::counted(m_document->graph().nodes.size(), tr("node"), tr("nodes")),
                                      style::counted(report.totalParams, tr("param"), tr("params")));
    if (report.memory.known)
        stats += tr(" · %1 to train").arg(byteSizeText(report.memory.total()));
    if (report.cost.known)
        stats += tr(" · %1 MACs a sample").arg(macCountText(report.cost.forwardMacs));
    m_statsLabel->setText(m_issues->summary() + QStringLiteral("    ") + stats);
}

void MainWindow::updateTitle()
{
    setWindowTitle(tr("%1[*] — Trainyard").arg(m_document->displayName()));
    setWindowModified(m_document->isModified());
    if (QAction *save = action(QStringLiteral("save")))
        save->setEnabled(true);
}

void MainWindow::readSettings()
{
    QSettings settings;
    if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray()))
        resize(1400, 880);
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    fitToScreen();
    const bool snap = settings.value(QStringLiteral("canvas/snapToGrid"), true).toBool();
    m_scene->setSnapToGrid(snap);
    if (QAction *a = action(QStringLiteral("snap")))
        a->setChecked(snap);
}

void MainWindow::fitToScreen()
{
    const QScreen *where = screen();
    if (!where || isMaximized() || isFullScreen())
        return;
    const QRect client = geometry(), outer = frameGeometry();
    const QMargins frame(client.left() - outer.left(), client.top() - outer.top(), outer.right() - client.right(),
                         outer.bottom() - client.bottom());
    const QRect fitted = fitWindowToScreen(client, where->availableGeometry(), frame);
    if (fitted != client)
        setGeometry(fitted);
}

void MainWindow::writeSettings() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    settings.setValue(QStringLiteral("canvas/snapToGrid"), m_scene->snapToGrid());
}

// --- Files

void MainWindow::showError(const QString &title, const QString &message)
{
    if (m_interactive)
        QMessageBox::warning(this, title, message);
    else
        statusBar()->showMessage(title + QStringLiteral(": ") + message);
}

bool MainWindow::maybeSave()
{
    if (!m_document->isModified() || !m_interactive)
        return true;
    const auto answer = QMessageBox::warning(
        this, tr("Unsaved changes"),
        tr("“%1” has unsaved changes. Save them before closing it?").arg(m_document->displayName()),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Save)
        return save();
    return answer == QMessageBox::Discard;
}

void MainWindow::newDocument()
{
    if (!maybeSave())
        return;
    m_document->newDocument();
    m_view->resetZoom();
    m_view->centerOn(QPointF(m_view->viewport()->width() / 2.0 - 40, m_view->viewport()->height() / 2.0 - 40));
    statusBar()->showMessage(tr("New preset: drag blocks from the palette onto the canvas"), 8000);
}

void MainWindow::open()
{
    if (!maybeSave())
        return;
    const QString dir = m_document->fileName().isEmpty() ? bundledPresetsDir() : QFileInfo(m_document->fileName()).path();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open preset"), dir, tr(kFileFilter));
    if (!path.isEmpty())
        loadFile(path);  // unsaved edits were dealt with above
}

bool MainWindow::openFile(const QString &path)
{
    return maybeSave() && loadFile(path);
}

bool MainWindow::loadFile(const QString &path)
{
    const Status loaded = m_document->load(path);
    if (!loaded) {
        showError(tr("Cannot open the preset"), loaded.error().toString());
        return false;
    }
    m_recent->add(path);
    m_document->validateNow();
    QTimer::singleShot(0, m_view, &CanvasView::fitAll);  // the whole graph, once the view has its final size
    statusBar()->showMessage(tr("Opened %1").arg(QFileInfo(path).fileName()), 5000);
    return true;
}

namespace {

// The file name a new preset is offered under: "My MLP" -> "my-mlp"; "untitled" when the name gives nothing.
QString fileStemForName(const QString &name)
{
    QString stem;
    for (const QChar c : name.trimmed().toLower()) {
        if (c.isLetterOrNumber() || c == QLatin1Char('_'))
            stem += c;
        else if (!stem.isEmpty() && !stem.endsWith(QLatin1Char('-')))
            stem += QLatin1Char('-');
    }
    while (stem.endsWith(QLatin1Char('-')))
        stem.chop(1);
    return stem.isEmpty() ? QStringLiteral("untitled") : stem;
}

} // namespace

bool MainWindow::saveTo(const QString &path)
{
    // A preset still named like a new document takes its name from the file: logreg.trainyard.json -> "logreg".
    const QString name = m_document->preset().name.trimmed();
    if (name.isEmpty() || name == tr("Untitled")) {
        QString base = QFileInfo(path).fileName();
        for (const QString &suffix : {QStringLiteral(".trainyard.json"), QStringLiteral(".json")})
            if (base.endsWith(suffix)) {
                base.chop(suffix.size());
                break;
            }
        if (!base.isEmpty())
            m_document->setPresetInfo(base, m_document->preset().description);
    }
    const Status saved = m_document->save(path);
    if (!saved) {
        showError(tr("Cannot save the preset"), saved.error().toString());
        return false;
    }
    m_recent->add(path);
    statusBar()->showMessage(tr("Saved %1").arg(QFileInfo(path).fileName()), 5000);
    return true;
}

bool MainWindow::save()
{
    const QString path = m_document->fileName();
    if (path.isEmpty() || !QFileInfo(path).isWritable())
        return saveAs();
    return saveTo(path);
}

bool MainWindow::saveAs()
{
    QString suggestion = m_document->fileName();
    if (suggestion.isEmpty() || !QFileInfo(QFileInfo(suggestion).path()).isWritable())
        suggestion = QDir::home().absoluteFilePath(
            (m_document->fileName().isEmpty() ? fileStemForName(m_document->preset().name) : QFileInfo(suggestion).completeBaseName())
            + (m_document->fileName().isEmpty() ? QStringLiteral(".trainyard.json") : QStringLiteral(".json")));
    QString path = QFileDialog::getSaveFileName(this, tr("Save preset as"), suggestion, tr(kFileFilter));
    if (path.isEmpty())
        return false;
    if (!path.endsWith(QStringLiteral(".json")))
        path += QStringLiteral(".trainyard.json");
    return saveTo(path);
}

void MainWindow::showIssue(const Issue &issue)
{
    if (issue.node.isEmpty()) {
        m_document->setSelectedNodes({});
        if (!issue.param.isEmpty())
            m_inspector->focusParam(issue.param);
        return;
    }
    const QString node = topLevelNode(issue.node);  // an issue inside a composite selects the composite
    m_document->setSelectedNodes({node});
    m_view->centerOnNode(node);
    if (!issue.param.isEmpty())
        m_inspector->focusParam(issue.param);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (!maybeSave() || !maybeStopTraining()) {
        event->ignore();
        return;
    }
    // The layout is saved as Design shows it, so the design docks hidden by another mode come back next time.
    setMode(WindowMode::Design);
    writeSettings();
    event->accept();
}

} // namespace ty
