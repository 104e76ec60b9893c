#pragma once
// This machine's sweeps on the team store (docs/team.md#sweeps-over-many-machines): `team push` records each sweep
// of the run database by its uuid, with its trials' states and runs (replicated by the same push), so that
// `sweeps list|show --team` show them beside the team sweeps. A trial that ran here is recorded with its run's
// status under its host (no lease: no worker takes it), one that has not run yet as "waiting" (never claimed: the
// sweep's own driver runs it here); a trial's status is never "queued", so no worker claims it. A sweep that
// workers work on the store (`sweep --team`: a trial queued or claimed there) is left as the store has it.
//
// Threads: call on the thread that owns the connection (it opens the run database there too).

#include "error.h"

#include <QString>

namespace ty {

class PgConnection;

struct TeamSweepPushReport {
    int sweeps = 0;   // local sweeps recorded or brought up to date on the store
    int trials = 0;   // of their trials, those with a run
    int skipped = 0;  // team sweeps (worked on the store) left alone
};

Result<TeamSweepPushReport> pushLocalSweeps(const QString &databasePath, PgConnection &server);

} // namespace ty
