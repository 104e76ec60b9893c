#include "training_panel.h"

#include "active_runs_view.h"
#include "common/run_colors.h"
#include "plots/metric_plot.h"
#include "plots/metric_plot_panel.h"
#include "plots/run_metrics_feed.h"
#include "run_database.h"
#include "run_liveness.h"
#include "runs/run_browser.h"
#include "runs/run_database_watcher.h"
#include "runs/runs_table_model.h"

#include <QFileInfo>
#include <QJsonObject>
#include <QResizeEvent>
#include <QSet>
#include <QSplitter>
#include <QVBoxLayout>

namespace ty {

TrainingPanel::TrainingPanel(QWidget *parent)
    : QWidget(parent), m_workerPath(TrainingRunController::defaultWorkerPath()), m_watcher(new RunDatabaseWatcher(this)),
      m_feed(new RunMetricsFeed(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    // Two columns when wide (the runs, the plots side by side), stacked when tall: see resizeEvent.
    m_outer = new QSplitter(Qt::Horizontal, this);
    m_outer->setChildrenCollapsible(false);
    connect(m_outer, &QSplitter::splitterMoved, this, [this] { m_outerMoved = true; });
    auto *runs = new QSplitter(Qt::Vertical, m_outer);
    runs->setChildrenCollapsible(false);
    m_active = new ActiveRunsView(runs);
    m_browser = new RunBrowser(runs);
    m_browser->setWorkerPath(m_workerPath);
    // The plots follow the database the watcher opens: emptied before the browser shows the new file (it announces
    // the baseline pinned there), plotted again from what the browser then shows. Slots run in connection order.
    connect(m_watcher, &RunDatabaseWatcher::connectionReplaced, this, [this] {
        m_feed->setDatabase(nullptr);
        unplotAll();
    });
    m_browser->setWatcher(m_watcher);
    connect(m_watcher, &RunDatabaseWatcher::connectionReplaced, this, [this](RunDatabase *db) {
        m_feed->setDatabase(db);
        unplotAll();
        updatePlottedRuns();
    });
    // New metric rows are read as soon as the watcher sees a commit (within 250 ms while runs are active).
    connect(m_watcher, &RunDatabaseWatcher::changed, m_feed, &RunMetricsFeed::poll);
    runs->setStretchFactor(0, 1);
    runs->setStretchFactor(1, 4);
    runs->setSizes({80, 420});
    m_plots = new QSplitter(Qt::Horizontal, m_outer);
    m_plots->setChildrenCollapsible(false);
    m_plots->installEventFilter(this);  // side by side or stacked, by the width it gets
    m_lossPanel = new MetricPlotPanel(tr("loss"), {QStringLiteral("train/loss"), QStringLiteral("val/loss")}, m_plots);
    m_metricPanel = new MetricPlotPanel(tr("accuracy"), {QStringLiteral("train/accuracy"), QStringLiteral("val/accuracy")},
                                        m_plots);
    m_outer->setStretchFactor(0, 2);
    m_outer->setStretchFactor(1, 3);
    layout->addWidget(m_outer);
    // The sum of the parts' minimums would claim half a screen; docked and tabbed with small panels, the
    // panel must not push the canvas away. The main window gives it room when training starts.
    setMinimumSize(320, 120);
    m_outer->setMinimumSize(320, 120);

    m_feed->setLiveness([this](qint64 id) { return isLive(id); });
    connect(m_feed, &RunMetricsFeed::rowsArrived, this, [this](qint64 id, const QList<MetricPoint> &rows) {
        lossPlot()->appendPoints(id, rows);
        metricPlot()->appendPoints(id, rows);
    });
    connect(m_feed, &RunMetricsFeed::stagesRead, this, [this](qint64 id, const QList<StageRecord> &stages) {
        lossPlot()->setStages(id, stages);
        metricPlot()->setStages(id, stages);
    });
    connect(m_feed, &RunMetricsFeed::stepsPerEpochRead, this, [this](qint64 id, qint64 steps) {
        lossPlot()->setStepsPerEpoch(id, steps);
        metricPlot()->setStepsPerEpoch(id, steps);
    });
    connect(m_feed, &RunMetricsFeed::runCleared, this, [this](qint64 id) {
        lossPlot()->clearRunData(id);
        metricPlot()->clearRunData(id);
    });
    connect(m_browser, &RunBrowser::selectionChanged, this, &TrainingPanel::updatePlottedRuns);
    connect(m_browser, &RunBrowser::baselineChanged, this, &TrainingPanel::updatePlottedRuns);
    connect(m_browser, &RunBrowser::runsDeleted, this, &TrainingPanel::updatePlottedRuns);
    connect(m_browser, &RunBrowser::openPresetRequested, this,
            [this](const Preset &preset, qint64) { Q_EMIT openPresetRequested(preset); });
    connect(m_browser, &RunBrowser::resumeRequested, this, [this](qint64 id) {
        if (Status resumed = resumeRun(id); !resumed.ok())
            Q_EMIT messageChanged(resumed.error().toString());
    });
    connect(m_browser, &RunBrowser::stopRequested, this, [this](qint64 id) {
        const Status stopped = stopRun(id);
        Q_EMIT messageChanged(stopped.ok() ? tr("Stopping run #%1 after a checkpoint…").arg(id) : stopped.error().toString());
    });
    // One selection: a run picked in the active runs is selected in the browser too (added to what is selected
    // there), so deselecting it in the browser takes it off the plots.
    connect(m_active, &ActiveRunsView::selectionChanged, this, [this] {
        const TrainingRunController *c = m_active->selectedController();
        QList<qint64> selected = m_browser->selectedRunIds();
        if (c && c->runId() > 0 && !selected.contains(c->runId())) {
            selected << c->runId();
            m_browser->selectRuns(selected);
        }
    });
    connect(m_active, &ActiveRunsView::nodeActivated, this, &TrainingPanel::nodeErrorReported);
}

TrainingPanel::~TrainingPanel()
{
    stopAll();  // every worker gets its SIGINT now; each controller then waits for its own as it is destroyed
    m_feed->setDatabase(nullptr);
    m_browser->setWatcher(nullptr);  // the watcher, created first, goes first among the children
    // While this object's members still exist (children die after them, and their signals reach us).
    const QList<TrainingRunController *> controllers = m_controllers;
    m_controllers.clear();
    for (TrainingRunController *controller : controllers) {
        controller->disconnect(this);
        delete controller;
    }
}

void TrainingPanel::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    // Wide (docked below the canvas): runs | plots. Tall (floating, or docked at a side): runs above the plots.
    const Qt::Orientation wanted = width() >= height() * 1.6 ? Qt::Horizontal : Qt::Vertical;
    if (m_outer->orientation() == wanted && m_outerMoved)
        return;
    m_outer->setOrientation(wanted);
    const int extent = wanted == Qt::Horizontal ? width() : height();
    m_outer->setSizes({extent * 2 / 5, extent * 3 / 5});
}

bool TrainingPanel::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_plots && event->type() == QEvent::Resize) {
        const Qt::Orientation wanted = m_plots->width() >= 2 * kSideBySidePlotWidth ? Qt::Horizontal : Qt::Vertical;
        if (m_plots->orientation() != wanted) {
            m_plots->setOrientation(wanted);
            const int extent = wanted == Qt::Horizontal ? m_plots->width() : m_plots->height();
            m_plots->setSizes({extent / 2, extent - extent / 2});
        }
    }
    return QWidget::eventFilter(watched, event);
}

MetricPlot *TrainingPanel::lossPlot() const { return m_lossPanel->plot(); }
MetricPlot *TrainingPanel::metricPlot() const { return m_metricPanel->plot(); }

Status TrainingPanel::openDatabase(const QString &path, const QString &teamCopy)
{
    const Status opened = m_browser->openDatabase(path, teamCopy);  // in m_watcher: the plots follow (see the constructor)
    if (!opened.ok())
        Q_EMIT messageChanged(opened.error().toString());
    return opened;
}

QString TrainingPanel::databasePath() const { return m_watcher->path(); }

TrainingRunController *TrainingPanel::newController()
{
    auto *controller = new TrainingRunController(this);
    controller->setWorkerPath(m_workerPath);
    return controller;
}

Status TrainingPanel::startTraining(const Preset &preset, const QString &dbPath, const TrainingOptions &options)
{
    QString path = !dbPath.isEmpty() ? dbPath : !databasePath().isEmpty() ? databasePath() : RunDatabase::defaultPath();
    path = QFileInfo(path).absoluteFilePath();
    if (path != databasePath()) {
        if (Status opened = openDatabase(path); !opened.ok())
            return opened;
    }
    dropEndedControllers();
    TrainingRunController *controller = newController();
    const Status started = controller->start(preset, path, options);
    if (!started.ok()) {
        delete controller;
        Q_EMIT messageChanged(started.error().toString());
        return started;
    }
    adopt(controller);
    Q_EMIT messageChanged(tr("Training %1…").arg(controller->runName()));
    return Status::success();
}

Status TrainingPanel::resumeRun(qint64 runId)
{
    if (!m_browser->database()) {
        return Error(tr("no run database is open"));
    }
    for (TrainingRunController *c : std::as_const(m_controllers))
        if (c->runId() == runId && c->isActive()) {
            return Error(tr("run #%1 is already training").arg(runId));
        }
    dropEndedControllers();
    dropControllersOfRun(runId);  // its ended row, if it failed: the resumed run takes its place
    TrainingRunController *controller = newController();
    const int row = m_browser->model()->rowOfRun(runId);
    // A distributed run resumes with as many processes as it trained with.
    const Result<RunInfo> info = m_browser->database()->run(runId);
    const int processes = info ? info.value().provenance.value(QStringLiteral("distributed")).toObject()
                                     .value(QStringLiteral("world_size")).toInt(1)
                               : 1;
    const Status started =
        controller->resume(runId, databasePath(), row >= 0 ? m_browser->model()->runAt(row).name : QString(), processes);
    if (!started.ok()) {
        delete controller;
        return started;
    }
    adopt(controller);
    Q_EMIT messageChanged(tr("Resuming run #%1…").arg(runId));
    return Status::success();
}

Status TrainingPanel::stopRun(qint64 runId)
{
    for (TrainingRunController *c : std::as_const(m_controllers))
        if (c->runId() == runId && c->isActive()) {
            c->stop();
            return Status::success();
        }
    const int row = m_browser->model()->rowOfRun(runId);
    if (row < 0) {
        return Error(tr("run #%1 is not in the open run database").arg(runId));
    }
    const RunSummaryRow &run = m_browser->model()->runAt(row);
    Status asked = askRunProcessToStop(run.host, run.pid);
    if (!asked.ok()) {
        Error error = asked.error();
        error.message = tr("run #%1 cannot be stopped: %2").arg(runId).arg(error.message);
        return error;
    }
    return asked;
}

void TrainingPanel::adopt(TrainingRunController *controller)
{
    m_controllers.append(controller);
    m_active->addController(controller);
    connect(controller, &TrainingRunController::runStarted, this, [this, controller](qint64 id) {
        m_watcher->checkNow();  // the new run shows at once, and its rows are looked for every 250 ms from now
        // Selected beside whatever was selected: it stays plotted after it ends, until it is deselected.
        QList<qint64> selected = m_browser->selectedRunIds();
        if (!selected.contains(id)) {
            selected << id;
            m_browser->selectRuns(selected);
        }
        updatePlottedRuns();
        if (controller->startInfo().resumedAtStep >= 0)
            m_feed->reloadRun(id);  // rows after the checkpoint were deleted before training went on
        lossPlot()->setStepsPerEpoch(id, controller->startInfo().stepsPerEpoch);
        metricPlot()->setStepsPerEpoch(id, controller->startInfo().stepsPerEpoch);
        Q_EMIT runStarted(id);
    });
    connect(controller, &TrainingRunController::stateChanged, this, [this, controller](TrainingState state) {
        updatePausedRuns();
        if (state == TrainingState::Paused)
            Q_EMIT messageChanged(tr("Run #%1 paused").arg(controller->runId()));
    });
    connect(controller, &TrainingRunController::nodeErrorReported, this, &TrainingPanel::nodeErrorReported);
    connect(controller, &TrainingRunController::finished, this,
            [this, controller](const TrainingOutcome &outcome) { onControllerFinished(controller, outcome); });
    connect(controller, &QObject::destroyed, this, [this, controller] { m_controllers.removeAll(controller); });
}

void TrainingPanel::onControllerFinished(TrainingRunController *controller, const TrainingOutcome &outcome)
{
    m_browser->refresh();
    m_feed->poll();  // the last rows
    updatePlottedRuns();  // plotted now only while selected
    const QString name = controller->runId() > 0 ? QStringLiteral("#%1 %2").arg(controller->runId()).arg(controller->runName())
                                                 : controller->runName();
    Q_EMIT messageChanged(outcome.message.isEmpty() ? tr("%1: %2").arg(name, outcome.status)
                                                    : tr("%1: %2: %3").arg(name, outcome.status, outcome.message));
    if (outcome.status == QStringLiteral("rejected")) {
        QStringList problems;
        QString node = outcome.node;
        for (const TrainingError &error : outcome.errors) {
            QStringList where;
            if (!error.file.isEmpty() && error.node.isEmpty())  // with a node, the file is the app's own snapshot
                where << error.file;
            if (!error.node.isEmpty())
                where << tr("node “%1”").arg(error.node);
            if (!error.field.isEmpty())
                where << error.field;
            problems << (where.isEmpty() ? error.message : tr("%1: %2").arg(where.join(QStringLiteral(", ")), error.message));
            if (node.isEmpty())
                node = error.node;
        }
        if (problems.isEmpty())
            problems << outcome.message;
        Q_EMIT runRefused(name, problems.join(QLatin1Char('\n')), node);
    }
    Q_EMIT runFinished(controller->runId(), outcome.status);
}

bool TrainingPanel::hasActiveRuns() const
{
    for (const TrainingRunController *c : m_controllers)
        if (c->isActive())
            return true;
    return false;
}

void TrainingPanel::stopAll()
{
    for (TrainingRunController *c : std::as_const(m_controllers))
        if (c->isActive() && c->state() != TrainingState::Stopping)
            c->stop();
}

void TrainingPanel::dropEndedControllers()
{
    for (TrainingRunController *c : QList<TrainingRunController *>(m_controllers))
        if (c->state() == TrainingState::Ended) {
            m_controllers.removeAll(c);
            delete c;  // its row goes with it
        }
}

void TrainingPanel::dropControllersOfRun(qint64 runId)
{
    for (TrainingRunController *c : QList<TrainingRunController *>(m_controllers))
        if (c->runId() == runId && !c->isActive()) {
            m_controllers.removeAll(c);
            delete c;
        }
}

void TrainingPanel::updatePausedRuns()
{
    QSet<qint64> paused;
    for (const TrainingRunController *c : std::as_const(m_controllers))
        if (c->state() == TrainingState::Paused && c->runId() > 0)
            paused.insert(c->runId());
    m_browser->model()->setPausedRuns(paused);
}

bool TrainingPanel::isLive(qint64 runId) const
{
    for (const TrainingRunController *c : m_controllers)
        if (c->runId() == runId && c->isActive())
            return true;
    const int row = m_browser->model()->rowOfRun(runId);
    if (row < 0)
        return false;
    const RunStatus status = m_browser->model()->runAt(row).status;
    return status == RunStatus::Running || status == RunStatus::Queued;
}

QString TrainingPanel::runLabel(qint64 runId) const
{
    const int row = m_browser->model()->rowOfRun(runId);
    if (row >= 0)
        return QStringLiteral("#%1 %2").arg(RunDatabase::displayedRunId(runId), m_browser->model()->runAt(row).name);
    for (const TrainingRunController *c : m_controllers)
        if (c->runId() == runId)
            return QStringLiteral("#%1 %2").arg(runId).arg(c->runName());
    return QStringLiteral("#%1").arg(RunDatabase::displayedRunId(runId));
}

QList<qint64> TrainingPanel::plottedRuns() const { return m_plotted; }

void TrainingPanel::updatePlottedRuns()
{
    // Runs being trained here, whatever is selected (Train shows its curves at once); every other run while it
    // is selected in the browser (the active runs' selection adds to it), or pinned as the baseline.
    QList<qint64> wanted;
    for (const TrainingRunController *c : std::as_const(m_controllers))
        if (c->runId() > 0 && c->isActive() && !wanted.contains(c->runId()))
            wanted << c->runId();
    if (m_browser->baselineRunId() > 0 && !wanted.contains(m_browser->baselineRunId()))
        wanted << m_browser->baselineRunId();
    for (qint64 id : m_browser->selectedRunIds())
        if (!wanted.contains(id))
            wanted << id;
    for (qint64 id : QList<qint64>(m_plotted))
        if (!wanted.contains(id))
            unplotRun(id);
    for (qint64 id : std::as_const(wanted))
        if (!m_plotted.contains(id))
            plotRun(id);
}

void TrainingPanel::plotRun(qint64 runId)
{
    if (!m_browser->database())
        return;
    const QColor color = style::runColor(runId);
    const QString label = runLabel(runId);
    lossPlot()->addRun(runId, label, color);
    metricPlot()->addRun(runId, label, color);
    m_plotted << runId;
    m_feed->addRun(runId);
}

void TrainingPanel::unplotRun(qint64 runId)
{
    m_feed->removeRun(runId);
    lossPlot()->removeRun(runId);
    metricPlot()->removeRun(runId);
    m_plotted.removeAll(runId);
}

void TrainingPanel::unplotAll()
{
    for (qint64 id : QList<qint64>(m_plotted))
        unplotRun(id);
}

void TrainingPanel::setWorkerPath(const QString &path)
{
    m_workerPath = path;
    m_browser->setWorkerPath(path);
}

} // namespace ty
