#pragma once
// Drives a recorded sweep (docs/sweeps.md): starts its trials in order as worker processes
// (`trainyard-cli run --sweep ID --trial N --events`), at most `parallel` at once, each with its share of the
// machine's threads; continues stopped or interrupted trials with `trainyard-cli resume`; stops a trial its
// early-stopping rule prunes and records it as pruned; keeps the sweep's best run and status up to date.
//
// Workers run in their own process group (a Ctrl-C reaches the driver, which asks each worker once to
// checkpoint and stop) and get SIGTERM when the driver dies, so a kill -9 of the driver leaves stopped trials
// that `sweep resume` continues. Lives on the thread that created it and runs a local event loop there.

#include "cli.h"
#include "run_records.h"

#include <QString>

namespace ty {
class RunDatabase;
}

namespace ty::cli {

class TeamSweepWork;

struct SweepDriveOptions {
    bool quiet = false;
    int parallel = 0;              // trials at once; 0: the sweep's own setting
    // A team sweep (team_sweep_work.h): trials come from the store's claims instead of this database's list, and
    // each trial's run replicates to the store.
    TeamSweepWork *team = nullptr;
};

// The trainyard-cli that trains the trials: $TRAINYARD_CLI when set, else this program when it is trainyard-cli,
// else trainyard-cli next to it.
QString sweepWorkerProgram();

// Runs every trial of `sweep` that has not ended (for a team sweep: the trials this process claims, until every
// trial on the store ended or it claimed options.team's maximum); returns the exit code: 0 when every trial ended
// (the sweep is finished; for a team sweep: every trial this process claimed ended); 130 when stopped by a stop request (stopped); 1 when a trial could not start or its worker died
// (failed), or a trial was cancelled in the run queue (stopped). The sweep must be recorded as running by this
// process.
int driveSweep(RunDatabase &db, const SweepRecord &sweep, Io &io, const SweepDriveOptions &options);

} // namespace ty::cli
