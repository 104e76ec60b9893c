#pragma once
// Feeds plots with the metric rows of the runs they show, read from the run database: all rows of a run when
// it is added, then, at each poll(), only the rows written since (RunDatabase::metricsAfter) for runs that are
// still live. The owner calls poll() when something was committed (the run database watcher's changed(), within
// 250 ms of a commit while runs are active); the feed has no timer. A run counts as live while isLive() says so (the owner knows: the run browser's status, an
// active worker); a run that stops being live is read once more, then left alone. The same path serves runs
// started from the app and from a terminal. The run's training stages (RunDatabase::stages) are read with its
// first rows and again whenever new rows arrive; stagesRead() reports them when they changed, so a stage shows
// as soon as its first rows do. The run's steps per epoch (run_epoch_length.h) are read with its first rows and,
// until the worker has said how long the run is, again as rows arrive; stepsPerEpochRead() reports them once.
//
// Ownership and threads: the database (the watcher's connection) is not owned: set it to nullptr before it goes;
// GUI thread.

#include "run_records.h"

#include <QHash>
#include <QList>
#include <QObject>

#include <functional>

namespace ty {

class RunDatabase;

class RunMetricsFeed : public QObject {
    Q_OBJECT
public:
    explicit RunMetricsFeed(QObject *parent = nullptr);

    void setDatabase(RunDatabase *db);  // forgets every run
    RunDatabase *database() const { return m_db; }
    void setLiveness(std::function<bool(qint64 runId)> isLive) { m_isLive = std::move(isLive); }

    // Starts following a run: emits its rows so far (rowsArrived) right away.
    void addRun(qint64 runId);
    void removeRun(qint64 runId);
    // Reads the run again from its first row (after a resume deleted rows): emits runCleared, then the rows.
    void reloadRun(qint64 runId);
    QList<qint64> runs() const { return m_cursors.keys(); }

public Q_SLOTS:
    void poll();  // reads the new rows of the live runs (and once more of a run that just stopped being live)

Q_SIGNALS:
    void rowsArrived(qint64 runId, const QList<ty::MetricPoint> &rows);
    void runCleared(qint64 runId);
    void stagesRead(qint64 runId, const QList<ty::StageRecord> &stages);  // changed since last reported
    void stepsPerEpochRead(qint64 runId, qint64 steps);
    void errorOccurred(const QString &message);

private:
    void read(qint64 runId);
    void readStages(qint64 runId);
    void readStepsPerEpoch(qint64 runId);

    RunDatabase *m_db = nullptr;
    QHash<qint64, qint64> m_cursors;  // run id -> last rowid read
    QHash<qint64, bool> m_wasLive;
    QHash<qint64, QString> m_stagesSeen;  // run id -> what stagesRead() reported last, as text
    QHash<qint64, qint64> m_stepsPerEpoch;  // run id -> reported steps per epoch (absent while unknown)
    std::function<bool(qint64)> m_isLive;
};

} // namespace ty
