#pragma once
// The desktop app's main window, in three modes that each get the whole window (tabs, Ctrl+1/2/3): Design (the
// canvas with docks for the block palette, the inspector and the issues list), Experiments (runs in progress,
// live plots, the run browser) and Evaluate (a run's confusion matrix, per-class scores and samples). Menus, a
// toolbar with Train, and a status bar with the validation summary. The title shows the file and a modified mark; unsaved edits are never lost silently.
// Window layout, recent files and grid snapping persist in QSettings.
//
// Ownership: owns the document, the scene and every widget. Thread affinity: the GUI thread.

#include "error.h"
#include "runs/run_browser.h"  // RunBrowser::RunSource

#include <QHash>
#include <QMainWindow>

#include <memory>

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QSpinBox;
class QStackedWidget;
class QTabBar;
class QTabWidget;
class QTimer;

namespace ty {

class CompositeView;
class LearningRateFinderDialog;

class BlockPalette;
class CanvasView;
class DeviceProbe;
class EvaluationView;
class InspectorPanel;
class IssuesPanel;
class PipelineDocument;
class PipelineScene;
class RecentFiles;
class RunQueueView;
class RunSpeedView;
class StartPage;
class SweepLauncher;
class SweepView;
class TeamLiveMirror;
class TrainingPanel;
struct SweepSpec;
struct Issue;
struct Preset;

enum class WindowMode { Design = 0, Experiments = 1, Evaluate = 2 };

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    PipelineDocument *document() const { return m_document; }
    PipelineScene *scene() const { return m_scene; }
    CanvasView *view() const { return m_view; }
    BlockPalette *blockPalette() const { return m_palette; }
    InspectorPanel *inspector() const { return m_inspector; }
    IssuesPanel *issues() const { return m_issues; }
    CompositeView *composites() const { return m_composites; }  // the design area, composites opened in it
    TrainingPanel *training() const { return m_training; }
    DeviceProbe *deviceProbe() const { return m_deviceProbe; }
    EvaluationView *evaluation() const { return m_evaluation; }
    SweepView *sweepView() const { return m_sweepView; }
    SweepLauncher *sweepLauncher() const { return m_sweepLauncher; }
    RunQueueView *queueView() const { return m_queueView; }
    RunSpeedView *speedView() const { return m_speedView; }
    QTabBar *modeBar() const { return m_modeBar; }
    WindowMode mode() const;
    // Shows one mode's page; the design docks show only in Design.
    void setMode(WindowMode mode);
    // Whether Train switches to Experiments (a setting, on by default).
    bool switchesToExperimentsOnTrain() const;
    void setSwitchesToExperimentsOnTrain(bool on);
    // Evaluate mode showing the newest evaluation of `runId` (compared with `compareRunId` unless 0).
    void showEvaluation(qint64 runId, qint64 compareRunId = 0);
    // The window's actions by name: new, open, open-overlays, save, save-as, undo, redo, cut, copy, paste, delete,
    // select-all, zoom-in, zoom-out, zoom-reset, fit, arrange, snap, quit, import-onnx, import-runs, export-runs, train, stop-all, run-database,
    // show-training, mode-design, mode-experiments, mode-evaluate, experiments-on-train, start-page, shortcuts.
    QAction *action(const QString &name) const { return m_actions.value(name); }

    // Opens a preset (after asking about unsaved edits). On failure shows why and keeps the current one.
    bool openFile(const QString &path);
    // Opens `base` merged with the overlay files in order (as `--overlay`), as an unsaved document whose relative
    // data paths are made absolute (Save asks where, and the base stays as it is). After asking about unsaved edits.
    bool openWithOverlays(const QString &base, const QStringList &overlays);
    // Covers the canvas with the start page (New, Open…, recent files, the bundled presets) until a document
    // is opened, started or edited: what the app shows when it starts with nothing to open.
    StartPage *showStartPage();
    StartPage *startPage() const { return m_startPage; }  // null when not shown
    bool saveTo(const QString &path);
    // Merges a run bundle into the run database (opening the preferred one when none is open) and shows
    // Experiments ▸ Runs, where the run browser imports it on its worker thread and selects its runs
    // (RunBrowser::importBundle; its bundleImported reports). What File ▸ Import Runs… and a dropped bundle do.
    bool importRunBundle(const QString &path);
    // Imports an ONNX model, writing the preset to `presetPath` (empty: MODEL.trainyard.json beside the model) and
    // its weights beside it (replacing both), and
    // opens the preset (after asking about unsaved edits): File ▸ Import ONNX Model… after its dialogs. On failure
    // shows why (lastRefusal() has it) and writes nothing.
    bool importOnnxModel(const QString &modelPath, const QString &presetPath = QString());
    // The run database that runs are recorded in and the browser shows (remembered in QSettings).
    Status openRunDatabase(const QString &path);
    static QString preferredRunDatabase();  // the last one opened, else RunDatabase::defaultPath()
    // The team store (main_window_team.cpp, docs/team.md): a libpq connection string, remembered in the settings
    // (else the environment's TRAINYARD_TEAM); one that holds a password is refused, and nothing changes. Empty:
    // none. The runs this window trains replicate to it.
    Status setTeamStore(const QString &conninfo);
    QString teamStore() const;
    // Experiments on the team's runs (a live, read-only copy in the cache folder), on this machine's run database,
    // or on both in one list (this machine's database with the copy attached: RunDatabase::attachTeamCopy). Train,
    // Sweep and Import go back to this machine first from the Team view; Both records into this machine's database.
    Status showRunSource(RunBrowser::RunSource source);
    Status showTeamRuns(bool team) { return showRunSource(team ? RunBrowser::RunSource::Team : RunBrowser::RunSource::ThisMachine); }
    bool showsTeamRuns() const;  // the Team view (not Both)
    RunBrowser::RunSource runSource() const;
    TeamLiveMirror *teamMirror() const { return m_teamMirror.get(); }
    QLabel *teamStatusLabel() const { return m_teamLabel; }
    static QString teamCachePath(const QString &conninfo);  // the copy's file, named by the store
    // Trains a snapshot of the document (after validating it); false when it has errors or cannot start.
    bool trainDocument();
    // An optimizer node's learning-rate test (main_window_learning_rate.cpp): checks the graph as Train does, runs
    // `trainyard-cli lrfind --json` on a snapshot in a worker and shows its LearningRateFinderDialog, whose chosen rate
    // becomes the node's lr in one undoable edit. Null when refused (the reason in the status bar).
    LearningRateFinderDialog *findLearningRate(const QString &optimizerNode);
    // Sweeps (main_window_sweeps.cpp). The dialog for the canvas's preset, `key` searched first (empty: none);
    // then startSweep. startSweep checks the graph, as Train does, and starts a driver process.
    bool sweepInteractively(const QString &key);
    bool startSweep(const SweepSpec &spec);
    // Experiments ▸ Sweeps showing sweep `id` of the open run database; Experiments ▸ Queue.
    void showSweep(qint64 id);
    void showQueue();
    void showSpeed();  // Experiments ▸ Speed
    // Asks every run of this window to stop (each writes a checkpoint); destroying the window waits for them.
    void stopTraining();
    // When false (tests, --screenshot), problems go to the status bar instead of message boxes.
    void setInteractive(bool interactive) { m_interactive = interactive; }
    QString lastRefusal() const { return m_lastRefusal; }  // the full message of the last start (or ONNX import) refused

public Q_SLOTS:
    void newDocument();
    void open();
    void openWithOverlaysInteractively();  // File ▸ Open with Overlays…: the base, then the overlays
    void importRunsInteractively();        // File ▸ Import Runs…: a file dialog, then importRunBundle
    // File ▸ Export Report…: the sweep shown in Experiments ▸ Sweeps when that tab is open, else the run selected in
    // the run browser; a file dialog, then one self-contained HTML file (core/reports).
    void exportReportInteractively();
    void importOnnxInteractively();        // File ▸ Import ONNX Model…: the model, the preset to write, then importOnnxModel
    bool save();
    bool saveAs();
    void showIssue(const ty::Issue &issue);
    void showTraining();

protected:
    void closeEvent(QCloseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    // The run name for training the document: empty (the preset's name) unless it was edited since it was
    // saved; then the name plus what changed (see variantLabel).
    QString runNameForDocument() const;
    // main_window_actions.cpp
    void createActions();
    void createMenus();
    void createToolBar();
    void updateEditActions();
    void populateRecentMenu();
    void addStartMenuEntries(QMenu *file);  // File ▸ Start Page and ▸ Open Bundled Preset (main_window_start.cpp)
    void showCanvasMenu(const QPointF &scenePos, const QPoint &globalPos);
    void saveBlockToLibrary();
    void showCompositeLevel();  // the inspector and issues list follow the level the design area shows  // the selected composite node's block, into the user's library
    QAction *addAction(const QString &name, const QString &text, const QString &icon,
                       const QList<QKeySequence> &shortcuts);
    void createOnnxImportAction();  // File ▸ Import ONNX Model… (main_window_onnx.cpp)
    void createBundleActions();  // File ▸ Import Runs… and ▸ Export Runs as Bundle…, the sweep view's Export Bundle…
    // main_window_modes.cpp
    void createModes();
    void createModeActions();
    void fitPagesToCurrent();
    // main_window_sweeps.cpp
    void createSweepPage();
    void createSweepAction();
    // main_window_training.cpp
    // False (after showing the first error where it can be fixed) when the graph has errors; `what` heads the message.
    bool checkTrainable(const QString &what);
    void createTrainingPage();
    void createTrainingActions();
    void createTrainingMenu();
    void chooseRunDatabase();
    void updateTrainingActions();
    void showRunError(const QString &nodeId, const QString &message);
    void showRunRefusal(const QString &runName, const QString &message, const QString &nodeId);
    void openRunPreset(const ty::Preset &preset);
    void openFineTunePreset(const ty::Preset &preset, qint64 runId);  // Design mode, a new unsaved document
    bool maybeStopTraining();
    // main_window_team.cpp
    void createTeamStore();  // Training ▸ Team Store…, the status bar's team label, the browser's source choice
    void applyTeamStore();
    void chooseTeamStore();
    void updateTeamStatus();
    // main_window.cpp
    void createDocks();
    void createStatusBar();
    void updateTitle();
    void updateStatistics();
    void readSettings();
    void fitToScreen();  // after restoring: a window larger than its screen, or off it, is brought onto it
    void writeSettings() const;
    bool maybeSave();
    bool loadFile(const QString &path);  // openFile without asking about unsaved edits
    bool importOnnxAndOpen(const QString &modelPath, const QString &presetPath);  // importOnnxModel without asking
    void showError(const QString &title, const QString &message);

    PipelineDocument *m_document;
    PipelineScene *m_scene;
    CanvasView *m_view;
    BlockPalette *m_palette = nullptr;
    InspectorPanel *m_inspector = nullptr;
    IssuesPanel *m_issues = nullptr;
    TrainingPanel *m_training = nullptr;
    DeviceProbe *m_deviceProbe = nullptr;
    QSpinBox *m_processes = nullptr;  // the toolbar's "processes: N" beside Train (trainyard-cli run --nproc N)
    EvaluationView *m_evaluation = nullptr;
    QStackedWidget *m_pages = nullptr;
    QTabWidget *m_experiments = nullptr;  // Experiments: Runs (m_training), Sweeps and Queue
    SweepView *m_sweepView = nullptr;
    SweepLauncher *m_sweepLauncher = nullptr;
    RunQueueView *m_queueView = nullptr;
    RunSpeedView *m_speedView = nullptr;  // Experiments ▸ Speed
    QList<qint64> m_sweepsStarted;
    QTabBar *m_modeBar = nullptr;
    QList<QDockWidget *> m_designDocks;
    CompositeView *m_composites = nullptr;
    QList<QDockWidget *> m_designDocksShown;  // visible when Design was left, shown again on return
    RecentFiles *m_recent;
    StartPage *m_startPage = nullptr;
    QHash<QString, QAction *> m_actions;
    QMenu *m_recentMenu = nullptr;
    QMenu *m_panelsMenu = nullptr;
    QLabel *m_issuesLabel = nullptr;
    QLabel *m_statsLabel = nullptr;
    QLabel *m_zoomLabel = nullptr;
    bool m_interactive = true;
    std::unique_ptr<TeamLiveMirror> m_teamMirror;  // while Experiments shows the team's runs
    QLabel *m_teamLabel = nullptr;
    QTimer *m_teamTimer = nullptr;
    QString m_lastRefusal;
};

} // namespace ty
