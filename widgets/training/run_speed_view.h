#pragma once
// Experiments ▸ Speed: the speed report of the runs selected in the run browser (speed/* metrics, docs/training-ui.md
// "Speed"). A table of each run's medians (samples per second, the step and each of its phases, peak memory,
// processes), the samples per second over the steps, and each run's step cut into its phases as stacked bars.
// Open Run Folder shows the run's files, profiler traces (training.profile_steps) among them. Reread every
// 2 s while shown, so a live run's figures come in.
//
// Ownership: owns its widgets and its own database connection. Thread affinity: the GUI thread.

#include "error.h"
#include "run_speed.h"

#include <QWidget>

#include <memory>

class QCustomPlot;
class QLabel;
class QPushButton;
class QTableWidget;
class QTimer;

namespace ty {

class RunDatabase;

class RunSpeedView : public QWidget {
    Q_OBJECT
public:
    explicit RunSpeedView(QWidget *parent = nullptr);
    ~RunSpeedView() override;

    Status openDatabase(const QString &path);
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
    void hideEvent(QHideEvent *event) override;

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

    std::unique_ptr<RunDatabase> m_db;
    QList<qint64> m_runIds;
    QList<Shown> m_shown;
    QLabel *m_summary;
    QTableWidget *m_table;
    QCustomPlot *m_rate;
    QCustomPlot *m_phases;
    QPushButton *m_openFolder;
    QTimer *m_timer;
};

} // namespace ty
