#pragma once
// Experiments ▸ Sweeps: the sweeps of the run database and, for the one chosen, its trials table (parameters,
// status and metric, sortable, the best row highlighted), a parallel coordinates chart, the metric against a
// chosen parameter, the trials' curves overlaid, which parameters mattered (importance ± spread and Spearman
// correlation, sweep_importance.h, from 20 finished trials on), and Open Best as Preset, Stop, Resume (of a stopped, failed or
// interrupted sweep) and Export Bundle… (of a sweep no driver runs: the window's run browser writes it). While shown, a running sweep is reread when its runs change (the run database watcher's
// runsChanged, at most once a second) and every 5 s for its own record (its status, best run, a driver that died);
// everything comes from the run database, so a sweep started in a terminal shows the same.
//
// Ownership: owns its widgets; reads through the watcher's connection (not owned). Thread affinity: the GUI thread.

#include "error.h"
#include "preset.h"
#include "run_records.h"
#include "run_summaries.h"
#include "sweep_importance.h"
#include "sweep_trial_rows.h"

#include <QPointer>
#include <QWidget>

class QComboBox;
class QCustomPlot;
class QLabel;
class QPushButton;
class QTableWidget;

namespace ty {

class RunDatabase;
class RunDatabaseWatcher;

class SweepView : public QWidget {
    Q_OBJECT
public:
    explicit SweepView(QWidget *parent = nullptr);
    ~SweepView() override;

    // Shows the sweeps of the watcher's database (not owned), and of whatever it opens later.
    void setWatcher(RunDatabaseWatcher *watcher);
    RunDatabaseWatcher *watcher() const;
    // Rereads the list of sweeps and the chosen sweep.
    void refresh();
    // Shows sweep `id` (after refresh() when it is new).
    void showSweep(qint64 id);
    qint64 currentSweep() const;
    // Whether Stop applies: the sweep is running, driven by this app (set by the main window).
    void setRunningHere(const QList<qint64> &sweepIds);

    // The best trial's preset: the sweep's base preset with that trial's overrides (not its thread setting).
    Result<Preset> bestPreset() const;

    QComboBox *sweepChooser() const { return m_chooser; }
    QTableWidget *trialsTable() const { return m_table; }
    QCustomPlot *parallelPlot() const { return m_parallel; }
    QCustomPlot *scatterPlot() const { return m_scatter; }
    QCustomPlot *curvesPlot() const { return m_curves; }
    QCustomPlot *importancePlot() const { return m_importancePlot; }
    const SweepImportance &importance() const { return m_importance; }
    QComboBox *scatterKey() const { return m_scatterKey; }
    QLabel *summary() const { return m_summary; }
    QPushButton *exportButton() const { return m_exportBundle; }

Q_SIGNALS:
    void openPresetRequested(const ty::Preset &preset);
    void stopRequested(qint64 sweepId);
    void resumeRequested(qint64 sweepId);
    void exportRequested(qint64 sweepId);  // Export Bundle…: the sweep and all its trials
    void statusMessage(const QString &message);

protected:
    void changeEvent(QEvent *event) override;  // a palette change: the charts in the new colours

private:
    void reloadSweep();
    void drawCharts();
    void applyPalette();
    void fillTable();
    void updateButtons();
    RunDatabase *database() const;
    bool followsLiveSweep() const;  // shown, and the sweep is running (or driven from here)

    QPointer<RunDatabaseWatcher> m_watcher;
    QList<SweepRecord> m_sweeps;
    SweepRecord m_sweep;
    QList<SweepTrialRow> m_rows;
    SweepImportance m_importance;
    QStringList m_importanceOf;  // the sweep and finished trials m_importance is of
    QList<qint64> m_runningHere;
    QComboBox *m_chooser;
    QLabel *m_summary;
    QPushButton *m_openBest;
    QPushButton *m_stop;
    QPushButton *m_resume;
    QPushButton *m_exportBundle;
    QTableWidget *m_table;
    QCustomPlot *m_parallel = nullptr;
    QCustomPlot *m_scatter = nullptr;
    QCustomPlot *m_curves = nullptr;
    QCustomPlot *m_importancePlot = nullptr;
    QComboBox *m_scatterKey;
    int m_quietTicks = 0;  // the watcher's seconds since the last reread
};

} // namespace ty
