#pragma once
// Everything about training in one widget, for the main window to dock: the runs this app trains (state,
// epoch, ETA, last metrics; pause, continue, stop), two live metric plots (loss, and any other metric), and the
// run browser. The plots overlay the runs being trained here, the runs selected in the browser and the pinned
// baseline; every curve is read from the run database, so runs started in a terminal plot the same way, and so are
// the stages of a run trained in stages (a labelled line where each begins).
//
// Integration (the main window):
//   auto *panel = new ty::TrainingPanel(this);
//   panel->openDatabase(ty::RunDatabase::defaultPath());          // once, at start-up
//   dock->setWidget(panel);                                         // or take panel->browser() etc. apart
//   trainAction -> panel->startTraining(document->preset(), {});   // a snapshot: editing goes on meanwhile
//   panel signals: runFinished(id, status), openPresetRequested(preset), nodeErrorReported(node, message)
//   closeEvent: if (panel->hasActiveRuns()) ask, then panel->stopAll()
//
// Ownership and threads: owns its controllers (one per run), widgets and the run database watcher, the app's one read
// connection (watcher(): the other views of the window take it too); GUI thread.
// Destroying the panel stops every worker it started (each gets SIGINT and writes a checkpoint).

#include "error.h"
#include "preset.h"
#include "training_run_controller.h"

#include <QHash>
#include <QList>
#include <QWidget>

class QSplitter;

namespace ty {

class ActiveRunsView;
class MetricPlot;
class MetricPlotPanel;
class RunBrowser;
class RunDatabaseWatcher;
class RunMetricsFeed;

class TrainingPanel : public QWidget {
    Q_OBJECT
public:
    explicit TrainingPanel(QWidget *parent = nullptr);
    ~TrainingPanel() override;

    // The run database the browser shows and new runs are recorded in, opened in the watcher: every view that
    // follows it moves to it.
    Status openDatabase(const QString &path, const QString &teamCopy = {});  // teamCopy: RunBrowser::openDatabase
    QString databasePath() const;
    RunDatabaseWatcher *watcher() const { return m_watcher; }

    // Trains a snapshot of `preset` in a new worker process. `dbPath` empty: the open database (opened first
    // with RunDatabase::defaultPath() if none is open); another path is opened in the browser.
    Status startTraining(const Preset &preset, const QString &dbPath = QString(), const TrainingOptions &options = {});
    // Continues an interrupted, stopped or failed run of the open database (the browser's Resume button).
    Status resumeRun(qint64 runId);
    // Stops a running run of the open database after a checkpoint: through its controller when this panel
    // started it, else by signalling its trainyard-cli process (a terminal run, another app's worker).
    Status stopRun(qint64 runId);

    // trainyard-cli to start (default: TrainingRunController::defaultWorkerPath()).
    void setWorkerPath(const QString &path);
    QString workerPath() const { return m_workerPath; }
    QList<TrainingRunController *> controllers() const { return m_controllers; }
    bool hasActiveRuns() const;
    void stopAll();

    RunBrowser *browser() const { return m_browser; }
    ActiveRunsView *activeRuns() const { return m_active; }
    MetricPlotPanel *lossPlotPanel() const { return m_lossPanel; }
    MetricPlotPanel *metricPlotPanel() const { return m_metricPanel; }
    MetricPlot *lossPlot() const;
    MetricPlot *metricPlot() const;
    RunMetricsFeed *feed() const { return m_feed; }
    QList<qint64> plottedRuns() const;

    // The two plots stand side by side when each gets this width, else one above the other.
    static constexpr int kSideBySidePlotWidth = 560;

Q_SIGNALS:
    void runStarted(qint64 runId);
    void runFinished(qint64 runId, const QString &status);  // status: a run status name, or "rejected"
    void openPresetRequested(const ty::Preset &preset);
    void nodeErrorReported(const QString &nodeId, const QString &message);
    // A run the worker refused before training (bad input): every problem in full, one per line, and the node
    // of the first one that names a node.
    void runRefused(const QString &runName, const QString &message, const QString &nodeId);
    void messageChanged(const QString &message);            // for a status bar

protected:
    void resizeEvent(QResizeEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    TrainingRunController *newController();
    void adopt(TrainingRunController *controller);
    void onControllerFinished(TrainingRunController *controller, const TrainingOutcome &outcome);
    void updatePlottedRuns();
    void plotRun(qint64 runId);
    void unplotRun(qint64 runId);
    void unplotAll();
    bool isLive(qint64 runId) const;
    QString runLabel(qint64 runId) const;
    // Ended runs stay in the active list with their outcome until the next run starts here.
    void dropEndedControllers();
    void dropControllersOfRun(qint64 runId);
    void updatePausedRuns();  // tells the browser which runs show "paused"

    QString m_workerPath;
    QSplitter *m_outer;
    bool m_outerMoved = false;  // the user dragged the handle: keep their share instead of 2 : 3
    QSplitter *m_plots;
    ActiveRunsView *m_active;
    MetricPlotPanel *m_lossPanel;
    MetricPlotPanel *m_metricPanel;
    RunDatabaseWatcher *m_watcher;
    RunBrowser *m_browser;
    RunMetricsFeed *m_feed;
    QList<TrainingRunController *> m_controllers;
    QList<qint64> m_plotted;
};

} // namespace ty
