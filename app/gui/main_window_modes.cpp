// MainWindow: the three modes, each a page of the whole window. Design shows the canvas and its docks (palette,
// inspector, issues); Experiments the runs in progress, live plots and the run browser; Evaluate the evaluation
// of a run. Tabs at the left of the toolbar and Ctrl+1/2/3 switch; leaving Design hides its docks and coming back
// shows the ones that were open.

#include "main_window.h"

#include "canvas/composite_view.h"
#include "canvas/pipeline_scene.h"

#include "canvas/canvas_view.h"
#include "evaluation_view.h"
#include "icons/icon_library.h"
#include "runs/run_browser.h"
#include "runs/run_database_watcher.h"
#include "training/training_panel.h"

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabBar>
#include <QToolBar>

namespace ty {

namespace {
const char *const kFollowSetting = "window/experimentsOnTrain";
}

void MainWindow::createModes()
{
    m_evaluation = new EvaluationView(this);
    m_pages = new QStackedWidget(this);
    m_composites = new CompositeView(m_document, m_view, this);
    m_pages->addWidget(m_composites);
    connect(m_scene, &PipelineScene::nodeDoubleClicked, m_composites, &CompositeView::open);
    connect(m_composites, &CompositeView::levelChanged, this, &MainWindow::showCompositeLevel);
    createSweepPage();
    m_pages->addWidget(m_experiments);
    m_pages->addWidget(m_evaluation);
    setCentralWidget(m_pages);
    fitPagesToCurrent();

    m_modeBar = new QTabBar(this);
    m_modeBar->setObjectName(QStringLiteral("modeBar"));
    m_modeBar->setDocumentMode(true);
    m_modeBar->setExpanding(false);
    m_modeBar->setDrawBase(false);
    m_modeBar->addTab(tr("Design"));
    m_modeBar->addTab(tr("Experiments"));
    m_modeBar->addTab(tr("Evaluate"));
    m_modeBar->setTabToolTip(0, tr("Build and check the pipeline (Ctrl+1)"));
    m_modeBar->setTabToolTip(1, tr("Runs in progress, live curves, the run browser and comparisons (Ctrl+2)"));
    m_modeBar->setTabToolTip(2, tr("A run's confusion matrix, per-class scores and samples; classify a file (Ctrl+3)"));
    QToolBar *bar = addToolBar(tr("Modes"));
    bar->setObjectName(QStringLiteral("modeToolBar"));
    bar->setMovable(false);
    bar->addWidget(m_modeBar);
    connect(m_modeBar, &QTabBar::currentChanged, this, [this](int index) { setMode(WindowMode(index)); });

    connect(m_evaluation, &EvaluationView::statusMessage, this, [this](const QString &message) { statusBar()->showMessage(message, 8000); });
    connect(m_training, &TrainingPanel::runFinished, m_evaluation, [this] { m_evaluation->refreshRuns(); });
    // The Evaluate view reads through the watcher's connection too (it has no timer: nothing to follow).
    connect(m_training->watcher(), &RunDatabaseWatcher::connectionReplaced, m_evaluation, &EvaluationView::setDatabase);
}

void MainWindow::createModeActions()
{
    const struct {
        const char *name;
        QString text;
        Qt::Key key;
        WindowMode mode;
    } modes[] = {{"mode-design", tr("&Design"), Qt::Key_1, WindowMode::Design},
                 {"mode-experiments", tr("&Experiments"), Qt::Key_2, WindowMode::Experiments},
                 {"mode-evaluate", tr("E&valuate"), Qt::Key_3, WindowMode::Evaluate}};
    for (const auto &m : modes) {
        QAction *a = addAction(QString::fromLatin1(m.name), m.text, QString(), {QKeySequence(Qt::CTRL | m.key)});
        a->setCheckable(true);
        a->setChecked(m.mode == WindowMode::Design);
        connect(a, &QAction::triggered, this, [this, mode = m.mode] { setMode(mode); });
    }
}

// A stack asks for the largest minimum of all its pages; a page not shown must not squeeze the docks of the one
// shown (a sweep view's minimum width shrank Design's palette and inspector to icons).
void MainWindow::fitPagesToCurrent()
{
    const char *const ownPolicy = "trainyardShownSizePolicy";
    for (int i = 0; i < m_pages->count(); ++i) {
        QWidget *page = m_pages->widget(i);
        if (!page->property(ownPolicy).isValid())
            page->setProperty(ownPolicy, QVariant::fromValue(page->sizePolicy()));
        page->setSizePolicy(i == m_pages->currentIndex() ? page->property(ownPolicy).value<QSizePolicy>()
                                                         : QSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored));
    }
    m_pages->updateGeometry();
}

WindowMode MainWindow::mode() const
{
    return WindowMode(m_pages->currentIndex());
}

void MainWindow::setMode(WindowMode mode)
{
    const WindowMode before = this->mode();
    if (before == WindowMode::Design && mode != WindowMode::Design) {
        m_designDocksShown.clear();
        for (QDockWidget *dock : m_designDocks)
            if (dock->isVisible()) {
                m_designDocksShown << dock;
                dock->hide();
            }
    }
    m_pages->setCurrentIndex(int(mode));
    fitPagesToCurrent();
    if (mode == WindowMode::Design && before != WindowMode::Design)
        for (QDockWidget *dock : m_designDocksShown)
            dock->show();
    if (mode == WindowMode::Evaluate && m_evaluation->runId() == 0) {
        // Nothing chosen yet: the selected run in the browser, else the newest evaluated one.
        m_evaluation->refreshRuns();
        const QList<qint64> selected = m_training->browser()->selectedRunIds();
        if (selected.isEmpty() || !m_evaluation->showRun(selected.first(), selected.value(1)).ok()) {
            const QVariant newest = m_evaluation->runChooser()->itemData(0);
            if (newest.toLongLong() > 0)
                m_evaluation->showRun(newest.toLongLong());
        }
    }
    const QSignalBlocker blocker(m_modeBar);
    m_modeBar->setCurrentIndex(int(mode));
    const char *const names[] = {"mode-design", "mode-experiments", "mode-evaluate"};
    for (int i = 0; i < 3; ++i)
        if (QAction *a = action(QString::fromLatin1(names[i])))
            a->setChecked(i == int(mode));
    if (mode == WindowMode::Design)
        m_view->setFocus();
}

bool MainWindow::switchesToExperimentsOnTrain() const
{
    return QSettings().value(QString::fromLatin1(kFollowSetting), true).toBool();
}

void MainWindow::setSwitchesToExperimentsOnTrain(bool on)
{
    QSettings().setValue(QString::fromLatin1(kFollowSetting), on);
    if (QAction *a = action(QStringLiteral("experiments-on-train")))
        a->setChecked(on);
}

void MainWindow::showEvaluation(qint64 runId, qint64 compareRunId)
{
    setMode(WindowMode::Evaluate);
    m_evaluation->refreshRuns();
    if (const Status shown = m_evaluation->showRun(runId, compareRunId); !shown)
        statusBar()->showMessage(shown.error().message, 10000);
}

} // namespace ty
