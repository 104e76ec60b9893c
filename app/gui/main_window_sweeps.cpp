// MainWindow: sweeps and the run queue. Training ▸ Sweep… and a parameter's "Sweep This Parameter…" open the
// sweep dialog for the preset on the canvas; the sweep's driver runs as a worker process (SweepLauncher) and
// Experiments ▸ Sweeps shows its trials as they come in, with Stop, Resume and Open Best as Preset. Experiments ▸
// Queue shows the runs waiting under the database's limit on runs at once.

#include "main_window.h"

#include "canvas/canvas_view.h"
#include "document/pipeline_document.h"
#include "inspector/inspector_panel.h"
#include "runs/run_browser.h"
#include "runs/run_queue_view.h"
#include "training/run_speed_view.h"
#include "sweeps/sweep_dialog.h"
#include "sweeps/sweep_launcher.h"
#include "sweeps/sweep_view.h"
#include "training/training_panel.h"
#include "training/worker_snapshot.h"

#include <QAction>
#include <QMessageBox>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>

namespace ty {

void MainWindow::createSweepPage()
{
    m_sweepView = new SweepView(this);
    m_sweepView->setWatcher(m_training->watcher());
    m_sweepLauncher = new SweepLauncher(this);
    m_sweepLauncher->setWorkerPath(m_training->workerPath());
    m_experiments = new QTabWidget(this);
    m_experiments->setObjectName(QStringLiteral("experimentsTabs"));
    m_experiments->setDocumentMode(true);
    m_experiments->addTab(m_training, tr("Runs"));
    m_experiments->addTab(m_sweepView, tr("Sweeps"));
    m_queueView = new RunQueueView(this);
    m_queueView->setWatcher(m_training->watcher());
    m_experiments->addTab(m_queueView, tr("Queue"));
    connect(m_queueView, &RunQueueView::waitingCountChanged, this, [this](int waiting) {
        m_experiments->setTabText(m_experiments->indexOf(m_queueView), waiting > 0 ? tr("Queue (%1)").arg(waiting) : tr("Queue"));
    });
    connect(m_queueView, &RunQueueView::statusMessage, this, [this](const QString &message) { statusBar()->showMessage(message, 8000); });
    // Speed: the speed report of the runs selected in the Runs tab.
    m_speedView = new RunSpeedView(this);
    m_speedView->setWatcher(m_training->watcher());
    m_experiments->addTab(m_speedView, tr("Speed"));
    connect(m_training->browser(), &RunBrowser::selectionChanged, m_speedView, &RunSpeedView::setRuns);
    connect(m_speedView, &RunSpeedView::statusMessage, this, [this](const QString &message) { statusBar()->showMessage(message, 8000); });

    const auto running = [this] {
        QList<qint64> ids;
        for (qint64 id : m_sweepsStarted)
            if (m_sweepLauncher->isRunning(id))
                ids.append(id);
        m_sweepView->setRunningHere(ids);
    };
    connect(m_sweepLauncher, &SweepLauncher::sweepStarted, this, [this, running](qint64 id) {
        m_sweepsStarted.append(id);
        running();
        showSweep(id);
        statusBar()->showMessage(tr("Sweep %1 started: its trials train in worker processes").arg(id), 8000);
    });
    connect(m_sweepLauncher, &SweepLauncher::sweepEnded, this, [this, running](qint64 id, int code, const QString &message) {
        running();
        m_sweepView->refresh();
        if (code == 2 || code < 0)
            showError(tr("The sweep did not start"), message.isEmpty() ? tr("trainyard-cli sweep failed") : message);
        else
            statusBar()->showMessage(code == 0 ? tr("Sweep %1 finished").arg(id)
                                     : code == 130 ? tr("Sweep %1 stopped: Resume continues it").arg(id)
                                                   : tr("Sweep %1 ended; a trial could not start").arg(id),
                                     10000);
    });
    connect(m_sweepView, &SweepView::stopRequested, m_sweepLauncher, &SweepLauncher::stop);
    connect(m_sweepView, &SweepView::resumeRequested, this, [this](qint64 id) {
        if (const Status resumed = m_sweepLauncher->resume(id, m_training->databasePath()); !resumed)
            showError(tr("Cannot resume the sweep"), resumed.error().toString());
    });
    connect(m_sweepView, &SweepView::openPresetRequested, this, [this](const Preset &preset) {
        if (!maybeSave())
            return;
        // A new unsaved document (Save asks where), its data paths made absolute so they still resolve.
        m_document->setUnsavedPreset(presetForWorker(preset));
        m_document->validateNow();
        setMode(WindowMode::Design);
        QTimer::singleShot(0, m_view, &CanvasView::fitAll);
        statusBar()->showMessage(tr("Opened “%1”: Train runs it, Save keeps it").arg(preset.name), 8000);
    });
    connect(m_sweepView, &SweepView::statusMessage, this, [this](const QString &message) { statusBar()->showMessage(message, 8000); });
    connect(m_inspector, &InspectorPanel::sweepRequested, this, [this](const QString &key) { sweepInteractively(key); });
}

void MainWindow::createSweepAction()
{
    QAction *sweep = addAction(QStringLiteral("sweep"), tr("S&weep…"), QString(), {QKeySequence(Qt::CTRL | Qt::Key_F5)});
    sweep->setToolTip(tr("Search settings: train variants of the graph on the canvas, several at once, and rank them (Ctrl+F5)"));
    connect(sweep, &QAction::triggered, this, [this] { sweepInteractively(QString()); });
}

bool MainWindow::sweepInteractively(const QString &key)
{
    if (!checkTrainable(tr("Cannot sweep")))
        return false;
    SweepDialog dialog(m_document->preset(), key, this);
    if (dialog.exec() != QDialog::Accepted)
        return false;
    return startSweep(dialog.spec());
}

bool MainWindow::startSweep(const SweepSpec &spec)
{
    if (!checkTrainable(tr("Cannot sweep")))
        return false;
    if (showsTeamRuns())
        (void)showTeamRuns(false);
    if (m_training->databasePath().isEmpty())
        openRunDatabase(preferredRunDatabase());
    const Status started = m_sweepLauncher->start(spec, m_document->preset(), m_training->databasePath());
    if (!started) {
        showError(tr("Cannot start the sweep"), started.error().toString());
        return false;
    }
    statusBar()->showMessage(tr("Starting the sweep…"), 5000);
    return true;
}

void MainWindow::showSweep(qint64 id)
{
    setMode(WindowMode::Experiments);
    m_experiments->setCurrentWidget(m_sweepView);
    m_sweepView->showSweep(id);
}

} // namespace ty

namespace ty {

void MainWindow::showQueue()
{
    setMode(WindowMode::Experiments);
    m_experiments->setCurrentWidget(m_queueView);
    m_queueView->refresh();
}

void MainWindow::showSpeed()
{
    setMode(WindowMode::Experiments);
    m_experiments->setCurrentWidget(m_speedView);
    m_speedView->refresh();
}

} // namespace ty
