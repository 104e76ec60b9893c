#pragma once
// Experiments ▸ Speed: the speed report of the runs selected in the run browser (speed/* metrics, docs/training-ui.md
// "Speed"). A table of each run's medians (samples per second, the step and each of its phases, peak memory,
// processes), the samples per second over the steps, and each run's step cut into its phases as stacked bars.
// Open Run Folder shows the run's files, profiler traces (training.profile_steps) among them. While shown, reread
// every 2 s of the run database watcher when something was committed meanwhile, so a live run's figures come in.
//
// Ownership: owns its widgets; reads through the watcher's connection (not owned). Thread affinity: the GUI thread.

#include "error.h"
#include "run_speed.h"

#include <QPointer>
#include <QWidget>

class QCustomPlot;
class QLabel;
class QPushButton;
class QTableWidget;

namespace ty {

class RunDatabase;
class RunDatabaseWatcher;

class RunSpeedView : public QWidget {
    Q_OBJECT
public:
    explicit RunSpeedView(QWidget *parent = nullptr);
    ~RunSpeedView() override;

    // Reads the watcher's database (not owned), and whatever it opens later.
    void setWatcher(RunDatabaseWatcher *watcher);
    RunDatabaseWatcher *watcher() const;
    // The runs shown (the run browser's selection), in its order.
    void setRuns(const QList<qint64> &runIds);
    void refresh();

    QTableWidget *table() const { return m_table; }
    QCustomPlot *ratePlot() const { return m_rate; }
    QCustomPlot *phasePlot() const { return m_phases; }
    // The folder Open Run Folder opens: the current row's run's, empty when none.
    QString currentFolder() const;

Q_SIGNALS:
    void statusMessage(const QString &message);

protected:
    void showEvent(QShowEvent *event) override;
    void changeEvent(QEvent *event) override;  // a palette change: the charts in the new colours

private:
    struct Shown {
        qint64 id = 0;
        QString name, folder;
        int processes = 1;
        int traces = 0;  // profile-steps-*.json files in its folder
        RunSpeed speed;
    };
    void fillTable();
    void plotRate();
    void plotPhases();
    RunDatabase *database() const;

    QPointer<RunDatabaseWatcher> m_watcher;
    qint64 m_readAt = -1;  // the watcher's generation at the last reread
    int m_ticks = 0;
    QList<qint64> m_runIds;
    QList<Shown> m_shown;
    QLabel *m_summary;
    QTableWidget *m_table;
    QCustomPlot *m_rate = nullptr;
    QCustomPlot *m_phases = nullptr;
    QPushButton *m_openFolder;
};

} // namespace ty
