#pragma once
// Sweeps over many machines on the team store (docs/team.md#sweeps-over-many-machines). The sweep's creator records
// it with its trials (recordTeamSweep); every worker, on any machine, claims one trial at a time in a short
// transaction (SELECT ... FOR UPDATE SKIP LOCKED, so two workers never get the same row), holds it with a lease it
// renews while the trial trains, and ends it with the run's status and best value. A trial whose lease ran out (its
// worker was killed or lost the network) is claimed again by the next worker that asks. Early stopping reads every
// trial's curve from the replicated metric rows (teamSweepCurves).
//
// Threads: call on the thread that owns the connection.

#include "error.h"
#include "run_records.h"
#include "sweep_pruning.h"
#include "sweep_trial_rows.h"

#include <QList>
#include <QString>

#include <optional>

namespace ty {

class PgConnection;

// A trial a worker now holds.
struct TeamTrialClaim {
    int trial = -1;
    int claims = 0;              // 1 for a first claim; more when it takes over from a worker whose lease ran out
    QString previousWorker;      // who held it before, for a take-over
    QString previousRunUuid;     // the run it had trained, for a take-over or a stopped trial
    // That run's replicated checkpoint references, newest first (their files on the machine that wrote them; the
    // newest may be gone since, replaced by a newer best or pruned).
    QStringList checkpointPaths;
};

// How the trials of a sweep stand, as workers decide whether to wait or to end.
struct TeamSweepProgress {
    int trials = 0;
    int ended = 0;               // finished, pruned, diverged or failed
    int held = 0;                // running under a lease that has not run out
};

// Records `sweep` (by its uuid; recording it again changes nothing) with one queued row per trial; returns its id on
// the store, which `sweep worker ID` takes. Creates or updates the team schema first.
Result<qint64> recordTeamSweep(PgConnection &server, const SweepRecord &sweep);

// The sweep with id `id` on the store (id, status, best run and host are the store's), or an error naming the store.
Result<SweepRecord> teamSweep(PgConnection &server, qint64 id);
// Every sweep on the store, newest first.
Result<QList<SweepRecord>> teamSweeps(PgConnection &server);

// Claims the first trial that is queued or whose lease ran out, for `worker`, leased for `leaseSeconds`; nothing
// when no trial is free now.
Result<std::optional<TeamTrialClaim>> claimTeamTrial(PgConnection &server, qint64 sweepId, const QString &worker, int leaseSeconds);
// Renews the lease; false when `worker` no longer holds the trial (its lease ran out and another worker took it).
Result<bool> renewTeamTrialLease(PgConnection &server, qint64 sweepId, int trial, const QString &worker, int leaseSeconds);
// The run that trains the trial (its uuid, which the run's replicated rows carry).
Status setTeamTrialRun(PgConnection &server, qint64 sweepId, int trial, const QString &worker, const QString &runUuid);
// Ends the trial with its run's status ("finished", "pruned", "diverged", "failed"), best value and message, or
// gives it back to the queue (status "queued": stopped before its end, its run kept for whoever resumes it).
// Nothing changes when `worker` no longer holds it. When every trial has ended, the sweep is marked finished.
Status endTeamTrial(PgConnection &server, qint64 sweepId, int trial, const QString &worker, const QString &status,
                    std::optional<double> value, const QString &message);
Result<TeamSweepProgress> teamSweepProgress(PgConnection &server, qint64 sweepId);

// The sweep metric's value by epoch of every trial whose run replicated rows, from the store's metric rows.
Result<TrialCurves> teamSweepCurves(PgConnection &server, qint64 sweepId, const QString &metric);

// The trials as `sweeps show` prints them (run ids are the store's, as `runs show --team` takes them), best first.
Result<QList<SweepTrialRow>> teamSweepTrialRows(PgConnection &server, const SweepRecord &sweep);

} // namespace ty
