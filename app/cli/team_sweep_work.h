#pragma once
// A sweep driver's share of a team sweep (docs/team.md#sweeps-over-many-machines): what `sweep SPEC --team URL`
// and `sweep worker ID --team URL` hand the driver (sweep_driver.h) instead of the local list of trials. It claims
// trials one at a time from the store, renews their leases while they train, takes over a trial whose worker's
// lease ran out (resuming the run when it is in this database, else warm-starting from its last replicated
// checkpoint when that file can be read here, else starting it again), reads every machine's curves for early
// stopping, and records each trial's end there, after pushing its run once more. A store that fails mid-sweep is
// reported once per kind of failure; the worker retries.
//
// Threads: the driver's thread.

#include "cli.h"
#include "pg_connection.h"
#include "run_records.h"
#include "sweep_pruning.h"

#include <QElapsedTimer>
#include <QSet>
#include <QString>

#include <optional>

namespace ty {
class RunDatabase;
}

namespace ty::cli {

struct TeamSweepSettings {
    QString conninfo;
    qint64 sweepId = 0;      // the sweep's id on the store
    int leaseSeconds = 60;   // a trial's lease; renewed every third of it
    int maxTrials = -1;      // trials this worker claims at most; -1: no limit
    QString metric;          // the sweep's metric and goal, for the value a trial ends with
    bool maximize = false;
};

class TeamSweepWork {
public:
    TeamSweepWork(const TeamSweepSettings &settings, RunDatabase &db, Io &io);

    // The next trial to train, when one is free and this worker may claim more.
    struct Next {
        int trial = -1;
        qint64 resumeRun = 0;     // a run of this database to resume
        QString initFrom;         // else a checkpoint file to warm-start from
        QString note;             // what happens, for the driver's line
    };
    std::optional<Next> next();
    // True when nothing is left for this worker: every trial ended, or it claimed its --max-trials. While other
    // workers hold trials it waits (their leases may run out).
    bool done();
    // Renews the leases of the trials this worker trains (at most every third of the lease); returns those it lost.
    QList<int> renewLeases(const QList<int> &trials);
    void started(int trial, qint64 runId);
    // Pushes the run and records the trial's end: `status` a run status name; stopped or interrupted trials go
    // back to the queue. `runId` 0: it could not start (failed) or was stopped before it did (queued again).
    void ended(int trial, qint64 runId, const QString &status, const QString &message);
    // Every other trial's curve, from the store's replicated metric rows; `own` trials keep the local one.
    void mergeCurves(TrialCurves &curves, const QSet<int> &own, const QString &metric);
    // The sweep's status on the store ("finished" when every trial ended), empty when it cannot be read.
    QString storeStatus();
    const QString &conninfo() const { return m_settings.conninfo; }
    qint64 storeSweepId() const { return m_settings.sweepId; }
    const QString &workerName() const { return m_worker; }
    int claimed() const { return m_claimed; }

private:
    bool connected();
    void warn(const Error &error);

    TeamSweepSettings m_settings;
    RunDatabase &m_db;
    Io &m_io;
    PgConnection m_server;
    QString m_worker;            // host:pid
    int m_claimed = 0;
    QElapsedTimer m_sincePoll;   // claims and progress are polled at most once a second
    QElapsedTimer m_sinceRenew;
    QElapsedTimer m_sinceProgress;
    bool m_allEnded = false;
    QSet<QString> m_warned;
};

} // namespace ty::cli
