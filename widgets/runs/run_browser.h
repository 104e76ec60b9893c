#pragma once
// The run browser: every run of a run database in a sortable, filterable table (text, status, tag), following the
// run database watcher (its runsChanged, at most once a second) so runs started anywhere (a terminal, another app)
// appear and update live. The first
// page of runs shows at once; the rest load in the background, a page per event-loop turn, so a filter or a
// sort typed a moment later finds every run loaded. Below the table: runs side by side (best, min, max, last
// of every metric, against a pinned baseline), the notes and tags of the selected run, and the preset diff of
// two runs. Actions: pin a baseline, open a run's preset, fine-tune from a run (a new staged preset that starts
// from its weights), evaluate (the Evaluate view), export (ONNX or safetensors, by a worker process), resume an
// interrupted, stopped or failed run, stop a running one (wherever on this host it was started: the app, a
// terminal), export the metric rows of the selected runs as CSV, export the selected ended runs as a run bundle and
// import a bundle into the shown database (these three on a worker thread), rename, delete (after confirmation,
// with its folder); the same in the table's context menu.
// Lineage: the "From" column names the run (or weights file) a run started from; the line under the actions links
// to it and to the runs fine-tuned from the selected one; a double click on "From" selects the parent.
//
// The selection (plus the baseline) is what the plots overlay: selectionChanged() / baselineChanged().
//
// Ownership and threads: reads through the watcher's connection (setWatcher; openDatabase() without one makes one
// of its own); owns the model and every child widget; GUI thread only.

#include "error.h"
#include "preset.h"

#include <QList>
#include <QPointer>
#include <QWidget>

#include <functional>
#include <memory>

class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QMenu;
class QModelIndex;
class QPoint;
class QPlainTextEdit;
class QPushButton;
class QTabWidget;
class QTableView;
class QThreadPool;
class QTimer;

namespace ty {

class PresetDiffView;
class RunComparisonView;
class RunDatabase;
class RunDatabaseWatcher;
class RunsFilterProxyModel;
class RunsTableModel;

class RunBrowser : public QWidget {
    Q_OBJECT
public:
    explicit RunBrowser(QWidget *parent = nullptr);
    ~RunBrowser() override;

    // Shows the database of `watcher` (not owned), and whatever it opens later, refreshed on its signals.
    void setWatcher(RunDatabaseWatcher *watcher);
    RunDatabaseWatcher *watcher() const;
    // Opens (creating it if needed) and shows a run database, in the watcher (one of its own when none was set):
    // every view of that watcher moves to it.
    // `teamCopy`: the "Both" view's team copy, read beside it (RunDatabaseWatcher::open).
    Status openDatabase(const QString &path, const QString &teamCopy = {});
    RunDatabase *database() const;  // the watcher's connection
    QString databasePath() const;

    // Whose runs the list shows (docs/team.md). Team: the shown database is the app's copy of the team store's runs.
    // Both: this machine's database with that copy attached (RunDatabase::attachTeamCopy): a teammate's run has a
    // negative id, shown as T and its store id. In both, the Machine column shows where each run trains, and on a
    // copied run what would only change the copy is off: rename, delete, notes and tags, resume and stop,
    // fine-tune, export and bundles (the checkpoints are on the machine that wrote them); Team refuses imports too.
    enum class RunSource { ThisMachine, Team, Both };
    void setRunSource(RunSource source);
    RunSource runSource() const { return m_source; }
    bool isTeamView() const { return m_source == RunSource::Team; }
    // True for a run this window may only read: every run of the Team view, a teammate's in Both.
    bool isReadOnlyRun(qint64 id) const;
    // "This machine" / "Team" / "Both" before the filter (the RunSource's order); hidden until the window offers a
    // team store (it connects it).
    QComboBox *sourceChoice() const { return m_sourceChoice; }

    QList<qint64> selectedRunIds() const;   // in table order
    void selectRuns(const QList<qint64> &ids);
    // selectRuns(), and again as the list gains any of `ids` it lacks (a team copy still filling), until all are
    // listed or the selection is changed otherwise.
    void selectRunsWhenListed(const QList<qint64> &ids);
    bool hasPendingSelection() const { return !m_pendingSelection.isEmpty(); }
    qint64 baselineRunId() const { return m_baseline; }
    void setBaseline(qint64 runId);         // 0: none

    // Edits (the buttons call these). Errors are shown in the status line and returned.
    Status renameRun(qint64 id, const QString &name);
    Status saveNotesAndTags(qint64 id, const QString &notes, const QString &tags);  // tags comma-separated
    // Asks for confirmation (see setConfirmation), then deletes the runs and their folders. Returns how many.
    int deleteRuns(const QList<qint64> &ids);
    void requestOpenPreset(qint64 id);
    // Makes the fine-tuning preset of a run (fine_tune_preset.h: from its best checkpoint when it has one, else its
    // last) and emits fineTuneRequested; an error (no checkpoint, nothing to freeze) goes to the status line.
    Status requestFineTune(qint64 id);
    // Selects the run and scrolls to it, loading every page and clearing filters that hide it. False when absent.
    bool showRun(qint64 id);
    // The same for several runs (the first scrolled to); false when one is absent (the others are selected).
    bool showRuns(const QList<qint64> &ids);
    // The table's context menu for the current selection (the caller owns and shows it): the actions of the
    // buttons, plus "Go to Parent Run" for a run started from another.
    QMenu *createContextMenu(QWidget *parent);
    void requestResume(qint64 id);
    void requestStop(qint64 id);            // emits stopRequested for a run that is running on this host
    void showDiff();                        // of the current selection (and baseline)
    // Exports a run's newest checkpoint with `trainyard-cli export` (the worker, see setWorkerPath) in the
    // background: format "onnx" or "safetensors". exportFinished reports the outcome. False when it cannot start.
    bool exportRun(qint64 id, const QString &format, const QString &path);
    void exportInteractively();             // asks for the file (the filter chooses the format), then exportRun
    void setWorkerPath(const QString &path) { m_workerPath = path; }
    // Writes the metric rows of the runs `ids` into `path` as CSV in long form, the runs by ascending id: the bytes
    // `trainyard-cli runs metrics ID ID... --csv` prints for those ids in that order (long_form_metrics.h). Runs on
    // a worker thread with a connection of its own; metricsExported reports the outcome (and the status line).
    // False, reported in the status line, when it cannot start: no database, no run, or an export still running.
    bool exportMetricsCsv(const QList<qint64> &ids, const QString &path);
    // Asks for the file (see setSaveFileChooser; suggested: runs-3-7-12.csv in the last export folder), then
    // exportMetricsCsv; a failure is also shown in a message box.
    void exportMetricsCsvInteractively();
    bool isExportingMetrics() const { return m_exportingMetrics; }
    // Run bundles (run_bundle_export.h, run_bundle_import.h; run_browser_bundle.cpp), on the same worker thread,
    // each with a connection of its own. exportBundle writes the runs `ids` and the sweeps `sweepIds` (ended ones;
    // with their checkpoint files) into `path`; bundleExported reports the outcome, also in the status line: runs,
    // metric rows, checkpoints, size, checkpoints left out, or the refusal (a run still running, a checkpoint file
    // changed since it was recorded). False, in the status line, when it cannot start.
    bool exportBundle(const QList<qint64> &ids, const QString &path, const QList<qint64> &sweepIds = {});
    // Asks for the file (see setSaveFileChooser; suggested: runs-3-7.tybundle in the last export folder), then
    // exportBundle; a refusal is also shown in a message box. The sweep's: sweep-4.tybundle, all its trials.
    void exportBundleInteractively();
    void exportSweepBundleInteractively(qint64 sweepId);
    bool isExportingBundle() const { return m_exportingBundle; }
    // Merges the bundle `path` into the shown run database (importRunBundle: runs already here by uuid stay as they
    // are; a damaged or altered bundle is refused whole, changing nothing), then shows and selects its runs.
    // bundleImported reports the outcome, also in the status line and, when `interactive`, a message box: the
    // runs and sweeps added and those already here, by id. A bundle asked for while another is being imported
    // waits its turn. False, in the status line, when no database is shown.
    bool importBundle(const QString &path, bool interactive = false);
    bool isImportingBundle() const { return !m_importQueue.isEmpty(); }
    // Reports (run_report.h; run_browser_report.cpp): the run `runId`'s or the sweep `sweepId`'s report as one
    // self-contained HTML file at `path`, written on this thread from the shown database (a run of 10,000 points a
    // curve takes a fraction of a second). reportExported says how it went, also in the status line. False, with
    // the reason, when nothing was written (no database, no such run, a file that cannot be written).
    bool exportReport(qint64 runId, const QString &path);
    bool exportSweepReport(qint64 sweepId, const QString &path);
    // Asks for the file (see setSaveFileChooser; suggested: run-3.html, sweep-4.html), then exports; a failure is
    // also shown in a message box. The first is the selected run's (the first one selected).
    void exportReportInteractively();
    void exportSweepReportInteractively(qint64 sweepId);

    // How deletion is confirmed; the default asks with a message box. Tests pass a function.
    void setConfirmation(std::function<bool(const QString &question)> confirm) { m_confirm = std::move(confirm); }
    // How the file of an export is chosen (empty: cancelled); the default is QFileDialog::getSaveFileName. Tests pass
    // a function.
    using SaveFileChooser = std::function<QString(const QString &title, const QString &suggestion, const QString &filter)>;
    void setSaveFileChooser(SaveFileChooser choose) { m_chooseSaveFile = std::move(choose); }

    RunsTableModel *model() const { return m_model; }
    RunsFilterProxyModel *proxy() const { return m_proxy; }
    QTableView *view() const { return m_view; }
    RunComparisonView *comparison() const { return m_comparison; }
    PresetDiffView *diffView() const { return m_diff; }
    QLineEdit *filterField() const { return m_filter; }
    QLabel *lineageLabel() const { return m_lineage; }
    QPushButton *fineTuneButton() const { return m_fineTune; }
    QPushButton *metricsCsvButton() const { return m_metricsCsv; }
    // "Export Runs as Bundle…" (exportBundleInteractively): in the table's context menu, and the window puts it in
    // its File menu (the button row has no room left at 1280x720). Enabled for selected runs that have all ended;
    // otherwise its tooltip names the run that has not.
    QAction *bundleAction() const { return m_bundleAction; }
    // "Export Report…" (exportReportInteractively): in the table's context menu; enabled for one selected run.
    QAction *reportAction() const { return m_reportAction; }
    QString statusText() const;
    // The banner above the table, shown while the run list cannot be read (a damaged database): the table may
    // then be missing runs, and an empty list must not pass for "no runs yet".
    QLabel *loadProblemBanner() const { return m_loadProblem; }

public Q_SLOTS:
    void refresh();  // at once, what the watcher's signals do (suspended processes, then the runs)

Q_SIGNALS:
    void selectionChanged(const QList<qint64> &runIds);
    void baselineChanged(qint64 runId);
    void openPresetRequested(const ty::Preset &preset, qint64 runId);
    void fineTuneRequested(const ty::Preset &preset, qint64 runId);  // a new, unsaved preset
    void resumeRequested(qint64 runId);
    // Evaluate was pressed: show the evaluation of `runId`, compared with `compareRunId` unless 0.
    void evaluateRequested(qint64 runId, qint64 compareRunId);
    void stopRequested(qint64 runId);
    void runsDeleted(const QList<qint64> &runIds);
    void exportFinished(qint64 runId, bool ok, const QString &message);
    // The end of exportMetricsCsv: `rows` written into `path`, or the error in `message`.
    void metricsExported(const QString &path, bool ok, qint64 rows, const QString &message);
    // The end of exportBundle: `path` written, or the refusal in `message`.
    void bundleExported(const QString &path, bool ok, const QString &message);
    // The end of an importBundle: the bundle's runs by their ids here (added or already here), or nothing and the
    // refusal in `message`.
    void bundleImported(const QString &path, bool ok, const QList<qint64> &runIds, const QString &message);
    // The end of exportReport or exportSweepReport: `path` written, or the error in `message`.
    void reportExported(const QString &path, bool ok, const QString &message);

private:
    void showDatabase(RunDatabase *db);  // the watcher's connectionReplaced
    void refreshRuns(bool withWatcherStamp);  // its runsChanged (true), or refresh()
    void buildUi();
    void buildActions(QWidget *bar);
    void onSelectionChanged();
    void updateActions();
    void updateDetails();
    void updateTagChoices();
    void applyStatusFilter(int index);
    void setStatus(const QString &message);
    void showLoadProblem(const QString &message);
    void fitColumns();
    void widenIdColumn(int first, int last);  // at least as wide as the widest id of these rows (T113)
    void renameInteractively();
    bool startMetricsExport(QList<qint64> ids, const QString &path, bool interactive);  // (run_browser_csv.cpp)
    // The file an export goes to, asked with m_chooseSaveFile in the last export folder (remembered), `suggestion`
    // offered; `suffix` added to a name without one. Empty: cancelled. (run_browser_csv.cpp)
    QString chooseExportFile(const QString &title, const QString &suggestion, const QString &suffix, const QString &filter);
    // runs-3-7-12.SUFFIX; past five runs, runs-3-7-12-15-20-and-4-more.SUFFIX.
    static QString suggestedExportName(const QList<qint64> &ids, const QString &suffix);
    // Run bundles (run_browser_bundle.cpp)
    bool startBundleExport(QList<qint64> ids, QList<qint64> sweepIds, const QString &path, bool interactive);
    void startNextImport();
    void finishImport(const QString &path, bool interactive, const QString &message, const QList<qint64> &runIds, bool ok);
    QString bundleRefusal(const QList<qint64> &ids) const;  // why the selection cannot be exported; empty: it can
    void showMessageBox(const QString &title, const QString &message, bool warning);  // not modal
    bool finishReport(const QString &path, const Result<QByteArray> &page, bool interactive);  // (run_browser_report.cpp)
    void loadNextPage();  // the background loading of the remaining pages
    // Lineage and the context menu (run_browser_lineage.cpp)
    void updateLineage();
    void showContextMenu(const QPoint &pos);
    void activateCell(const QModelIndex &proxyIndex);

    QPointer<RunDatabaseWatcher> m_watcher;
    RunsTableModel *m_model;
    RunsFilterProxyModel *m_proxy;
    QTableView *m_view = nullptr;
    QLineEdit *m_filter = nullptr;
    QComboBox *m_statusChoice = nullptr;
    QComboBox *m_tagChoice = nullptr;
    QComboBox *m_sourceChoice = nullptr;
    RunSource m_source = RunSource::ThisMachine;
    QTabWidget *m_details = nullptr;
    RunComparisonView *m_comparison = nullptr;
    PresetDiffView *m_diff = nullptr;
    QLabel *m_hypothesis = nullptr;  // the selected run's preset's, read only
    QPlainTextEdit *m_notes = nullptr;
    QLineEdit *m_tags = nullptr;
    QPushButton *m_saveNotes = nullptr;
    // m_resume reads "Stop" while the selected run is running.
    QPushButton *m_evaluate = nullptr, *m_export = nullptr, *m_fineTune = nullptr, *m_metricsCsv = nullptr;
    QAction *m_bundleAction = nullptr;
    QAction *m_reportAction = nullptr;
    QLabel *m_lineage = nullptr;
    QString m_workerPath;
    QPushButton *m_pin = nullptr, *m_open = nullptr, *m_resume = nullptr, *m_rename = nullptr, *m_delete = nullptr,
                *m_diffButton = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_loadProblem = nullptr;
    QTimer *m_pageLoader;
    qint64 m_baseline = 0;
    QList<qint64> m_lastSelection;
    QList<qint64> m_pendingSelection;  // selectRunsWhenListed()'s runs while some are not listed yet
    std::function<bool(const QString &)> m_confirm;
    SaveFileChooser m_chooseSaveFile;
    // The metrics export (run_browser_csv.cpp) and the bundles' export and imports (run_browser_bundle.cpp): one
    // of each kind at a time, on one worker thread that the destructor waits for.
    bool m_exportingMetrics = false;
    bool m_exportingBundle = false;
    struct PendingImport {
        QString path;
        bool interactive = false;
    };
    QList<PendingImport> m_importQueue;  // the first is being imported
    std::unique_ptr<QThreadPool> m_exportThread;
};

} // namespace ty
