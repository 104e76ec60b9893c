// MainWindow: training from the app. The Experiments mode shows the TrainingPanel (runs being trained, live
// plots, run browser); Train runs a snapshot of the document in a worker process (`trainyard-cli run
// --events`), so editing goes on meanwhile. Errors a run reports against a node select and show that node.

#include "main_window.h"

#include "common/canvas_style.h"
#include "inspector/inspector_panel.h"

#include "init_from_check.h"
#include "preset_inspection.h"

#include "canvas/canvas_view.h"
#include "evaluation_view.h"
#include "document/pipeline_document.h"
#include "icons/icon_library.h"
#include "runs/run_browser.h"
#include "training/device_probe.h"
#include "training/training_panel.h"

#include "preset_diff.h"
#include "preset_format.h"
#include "run_database.h"

#include <QSpinBox>
#include <QAction>
#include <QTabWidget>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>
#include <QTimer>

namespace ty {

namespace {
const char *const kDatabaseSetting = "training/database";
}

void MainWindow::createTrainingPage()
{
    m_training = new TrainingPanel(this);
    m_inspector->setWorkerPath(m_training->workerPath());  // the augmentation preview's worker

    connect(m_training, &TrainingPanel::messageChanged, this,
            [this](const QString &message) { statusBar()->showMessage(message, 10000); });
    connect(m_training, &TrainingPanel::nodeErrorReported, this, &MainWindow::showRunError);
    connect(m_training, &TrainingPanel::runRefused, this, &MainWindow::showRunRefusal);
    connect(m_training, &TrainingPanel::openPresetRequested, this, &MainWindow::openRunPreset);
    connect(m_training, &TrainingPanel::runStarted, this, &MainWindow::updateTrainingActions);
    connect(m_training, &TrainingPanel::runFinished, this, &MainWindow::updateTrainingActions);
    connect(m_training->browser(), &RunBrowser::resumeRequested, this, &MainWindow::showTraining);
    connect(m_training->browser(), &RunBrowser::fineTuneRequested, this, &MainWindow::openFineTunePreset);
    connect(m_training->browser(), &RunBrowser::evaluateRequested, this, &MainWindow::showEvaluation);

    // Whether "cuda" can be offered: asked of a worker once the window is up, never of LibTorch in this process.
    m_deviceProbe = new DeviceProbe(this);
    connect(m_deviceProbe, &DeviceProbe::answered, m_document, [this](bool cuda) { m_document->setCudaAvailable(cuda); });
    QTimer::singleShot(0, m_deviceProbe, [this] { m_deviceProbe->start(m_training->workerPath()); });
}

void MainWindow::createTrainingActions()
{
    QAction *train = addAction(QStringLiteral("train"), tr("&Train"), QStringLiteral("train"), {QKeySequence(Qt::Key_F5)});
    train->setToolTip(tr("Train the graph on the canvas in a background worker (F5); editing goes on meanwhile"));
    train->setIconText(tr("Train"));
    QAction *stop = addAction(QStringLiteral("stop-all"), tr("&Stop All Runs"), QStringLiteral("stop"),
                              {QKeySequence(Qt::SHIFT | Qt::Key_F5)});
    stop->setToolTip(tr("Stop every run this window trains; each writes a checkpoint and can be resumed (Shift+F5)"));
    QAction *database = addAction(QStringLiteral("run-database"), tr("Open Run &Database…"),
                                  QStringLiteral("run-database"), {});
    database->setToolTip(tr("Choose the SQLite run database that runs are recorded in and browsed from"));
    QAction *show = addAction(QStringLiteral("show-training"), tr("Show &Runs and Plots"), QString(),
                              {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R)});
    QAction *follow = addAction(QStringLiteral("experiments-on-train"), tr("Show &Experiments When Training Starts"), QString(), {});
    follow->setCheckable(true);
    follow->setChecked(switchesToExperimentsOnTrain());
    connect(follow, &QAction::toggled, this, &MainWindow::setSwitchesToExperimentsOnTrain);
    connect(train, &QAction::triggered, this, [this] { trainDocument(); });
    connect(stop, &QAction::triggered, this, &MainWindow::stopTraining);
    connect(database, &QAction::triggered, this, &MainWindow::chooseRunDatabase);
    QAction *team = addAction(QStringLiteral("team-store"), tr("&Team Store…"), QString(), {});
    team->setToolTip(tr("The PostgreSQL team store that this app's runs replicate to and whose runs Experiments can show"));
    connect(team, &QAction::triggered, this, &MainWindow::chooseTeamStore);
    connect(show, &QAction::triggered, this, &MainWindow::showTraining);
    createSweepAction();
    updateTrainingActions();
}

void MainWindow::createTrainingMenu()
{
    QMenu *menu = menuBar()->addMenu(tr("&Training"));
    for (const char *name : {"train", "sweep", "stop-all", "", "show-training", "experiments-on-train", "run-database", "team-store"})
        name[0] ? (void)menu->addAction(action(QString::fromLatin1(name))) : (void)menu->addSeparator();
}

Status MainWindow::openRunDatabase(const QString &path)
{
    // Opened in the panel's watcher, the app's one read connection: the browser, plots, sweeps, queue, speed and
    // Evaluate views follow it (createSweepPage, createModes). In the Both view the team's copy stays beside it.
    const bool both = runSource() == RunBrowser::RunSource::Both && m_teamMirror;
    const Status opened = m_training->openDatabase(path, both ? teamCachePath(teamStore()) : QString());
    if (opened.ok())
        QSettings().setValue(QString::fromLatin1(kDatabaseSetting), m_training->databasePath());
    // training.init_from naming a run is checked against this database, as `run` will.
    m_document->setInspection([database = m_training->databasePath()](const Preset &preset) {
        return PipelineDocument::InspectionJob([preset, database] {
            ShapeReport report = inspectPresetShapes(preset);
            report.issues += initFromRunIssues(preset, database);
            return report;
        });
    });
    m_document->revalidate();
    m_evaluation->setWorkerPath(m_training->workerPath());
    return opened;
}

QString MainWindow::preferredRunDatabase()
{
    const QString chosen = QSettings().value(QString::fromLatin1(kDatabaseSetting)).toString();
    return chosen.isEmpty() ? RunDatabase::defaultPath() : chosen;
}

void MainWindow::chooseRunDatabase()
{
    const QString current = m_training->databasePath().isEmpty() ? preferredRunDatabase() : m_training->databasePath();
    const QString path = QFileDialog::getSaveFileName(this, tr("Open or create a run database"), current,
                                                      tr("Run databases (*.sqlite *.db);;All files (*)"), nullptr,
                                                      QFileDialog::DontConfirmOverwrite);
    if (path.isEmpty())
        return;
    if (const Status opened = openRunDatabase(path); !opened.ok())
        showError(tr("Cannot open the run database"), opened.error().toString());
    else
        showTraining();
}

bool MainWindow::checkTrainable(const QString &what)
{
    m_document->validateNow();
    const ShapeReport &report = m_document->report();
    for (const Issue &issue : report.issues)
        if (issue.severity == Severity::Error) {
            int errors = 0;
            for (const Issue &i : report.issues)
                errors += i.severity == Severity::Error;
            // The errors are shown where they can be fixed: Design, with the Issues list raised.
            setMode(WindowMode::Design);
            if (QDockWidget *list = findChild<QDockWidget *>(QStringLiteral("issuesDock"))) {
                list->show();
                list->raise();
            }
            showIssue(issue);
            statusBar()->showMessage(tr("%1: %2 (%3 in all; see the Issues list)")
                                         .arg(what, issue.message, style::counted(errors, tr("error"), tr("errors"))),
                                     10000);
            return false;
        }
    return true;
}

bool MainWindow::trainDocument()
{
    if (!checkTrainable(tr("Cannot train")))
        return false;
    if (showsTeamRuns())
        (void)showTeamRuns(false);  // runs are recorded here, then replicated
    if (m_training->databasePath().isEmpty())
        openRunDatabase(preferredRunDatabase());  // a failure shows in the status bar and startTraining retries
    TrainingOptions options;
    options.name = runNameForDocument();
    options.processes = m_processes ? m_processes->value() : 1;
    const Status started = m_training->startTraining(m_document->preset(), QString(), options);
    if (!started.ok()) {
        showError(tr("Cannot start training"), started.error().toString());
        return false;
    }
    if (switchesToExperimentsOnTrain())
        showTraining();
    updateTrainingActions();
    return true;
}

QString MainWindow::runNameForDocument() const
{
    // An edited preset trains under its name plus what was changed since it was saved ("Fashion-MNIST MLP ·
    // fc1.out_features=64"), so that variants trained side by side are told apart in the browser.
    const Preset current = m_document->preset();
    if (!m_document->isModified() || m_document->fileName().isEmpty())
        return QString();
    const Result<Preset> saved = loadPreset(m_document->fileName());
    if (!saved.ok())
        return QString();
    const QString label = variantLabel(diffPresets(saved.value(), current));
    return label.isEmpty() ? QString() : QStringLiteral("%1 · %2").arg(current.name, label);
}

void MainWindow::stopTraining()
{
    m_training->stopAll();
    updateTrainingActions();
}

void MainWindow::showTraining()
{
    setMode(WindowMode::Experiments);
    m_experiments->setCurrentWidget(m_training);
}

void MainWindow::updateTrainingActions()
{
    if (QAction *stop = action(QStringLiteral("stop-all")))
        stop->setEnabled(m_training && m_training->hasActiveRuns());
}

void MainWindow::showRunError(const QString &nodeId, const QString &message)
{
    if (m_document->graph().node(nodeId)) {
        m_document->setSelectedNodes({nodeId});
        m_view->centerOnNode(nodeId);
    }
    statusBar()->showMessage(tr("Training failed at node “%1”: %2").arg(nodeId, message), 15000);
}

// A start the worker refused is shown where it can be fixed, in full: Design, the node selected, the message in
// a dialog (the status bar when not interactive) rather than a cut-off cell of the runs table.
void MainWindow::showRunRefusal(const QString &runName, const QString &message, const QString &nodeId)
{
    m_lastRefusal = message;
    setMode(WindowMode::Design);
    if (m_document->graph().node(nodeId)) {
        m_document->setSelectedNodes({nodeId});
        m_view->centerOnNode(nodeId);
    }
    showError(tr("“%1” was not trained").arg(runName), message);
}

void MainWindow::openRunPreset(const Preset &preset)
{
    if (!maybeSave())
        return;
    Preset copy = preset;
    copy.sourcePath.clear();  // the run's snapshot: saving asks where
    m_document->setPreset(copy);
    m_document->validateNow();
    QTimer::singleShot(0, m_view, &CanvasView::fitAll);
    statusBar()->showMessage(tr("Opened the preset of the run “%1”; Train runs it again").arg(preset.name), 8000);
}

void MainWindow::openFineTunePreset(const Preset &preset, qint64 runId)
{
    if (!maybeSave())
        return;
    m_document->setUnsavedPreset(preset);
    m_document->validateNow();
    setMode(WindowMode::Design);
    QTimer::singleShot(0, m_view, &CanvasView::fitAll);
    statusBar()->showMessage(tr("A new preset fine-tunes from run #%1: its stages are in the Inspector (click the "
                                "canvas background); Train runs them")
                                 .arg(runId),
                             10000);
}

bool MainWindow::maybeStopTraining()
{
    if (!m_training->hasActiveRuns())
        return true;
    int active = 0;
    for (const TrainingRunController *c : m_training->controllers())
        active += c->isActive();
    if (m_interactive) {
        const auto answer = QMessageBox::question(
            this, tr("Runs are training"),
            tr("%1 still training. Stop them and quit? Each writes a checkpoint first and can be resumed later from "
               "the run browser.")
                .arg(style::counted(active, tr("run"), tr("runs"))),
            QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel);
        if (answer != QMessageBox::Yes)
            return false;
    }
    m_training->stopAll();  // the panel waits for each worker's checkpoint as it is destroyed
    return true;
}

} // namespace ty
