#pragma once
// The team store's side of `sweep` and `sweeps` (docs/team.md#sweeps-over-many-machines):
//   sweep SPEC ... --team URL [--max-trials N] [--lease S]   records the sweep there and works its trials
//   sweep worker ID --team URL [--db PATH] [--parallel P] [--max-trials N] [--lease S] [--json] [--quiet]
//   sweeps list|show ID --team URL [--json]

#include "cli.h"
#include "cli_args.h"
#include "run_records.h"

namespace ty {
class RunDatabase;
}

namespace ty::cli {

// The key of a team sweep's spec that names its store (without a password): `sweep resume` refuses such a sweep.
constexpr char kTeamSweepKey[] = "team_store";

// The --max-trials and --lease options of a team sweep, checked; false after printing why.
bool teamSweepOptionsOk(const Args &args, Io &io);

// Before `sweep SPEC --team URL` records anything: the store answers and has (or now has) the team schema; false
// after printing why.
bool teamStoreReady(const QString &conninfo, const Args &args, Io &io);

// `sweep SPEC --team URL`: the sweep just recorded in `db` goes to the store, then this process works it.
int driveNewTeamSweep(RunDatabase &db, const SweepRecord &sweep, const QString &conninfo, const Args &args, Io &io);

// `sweep worker ID`: the store's sweep ID, recorded in this database by its uuid, worked by this process.
int teamSweepWorker(const Args &args, Io &io);

// `sweeps list|show ID --team URL`.
int teamSweepsCommand(const QString &conninfo, const QString &what, const Args &args, Io &io);

} // namespace ty::cli
