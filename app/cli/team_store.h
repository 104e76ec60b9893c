#pragma once
// The team store at the command line (docs/team.md): `trainyard-cli team push`, the --team option of run, resume
// and runs, and the background replicator of a training run.

#include "cli.h"
#include "cli_args.h"

#include <memory>

#include <functional>

namespace ty {
class RunDatabase;
class TeamReplicator;
}

namespace ty::cli {

// trainyard-cli team push [--db PATH] [--team URL] [--json]
int teamCommand(const QStringList &arguments, Io &io);

// The team store of a training run: --team, else the environment's TRAINYARD_TEAM; empty for none.
QString trainingTeamStore(const Args &args);
// False, after printing why, when `conninfo` (non-empty) is not a connection string libpq can parse.
bool checkTeamStore(const QString &conninfo, Io &io);

// `arguments` as they may be recorded (a run's provenance "command"): the value of each --team without any
// password (as redactedConninfo() writes it; "(not a connection string)" when libpq cannot parse it).
QStringList argumentsWithoutPasswords(const QStringList &arguments);

// Starts replicating run `runId` of `dbPath` to the run's team store on a thread of its own, or returns nothing
// when the run has none. The first failure is printed to stderr once; training never waits.
std::unique_ptr<TeamReplicator> startTeamReplication(const Args &args, const QString &dbPath, qint64 runId);

// runs list|show|metrics --team URL: reads the runs from the store into a scratch run database and prints it
// with `print`, the very code that prints a local database. Returns the command's exit code.
int withTeamRuns(const QString &conninfo, const QString &sub, const QList<qint64> &ids, const Args &args, Io &io,
                 const std::function<int(RunDatabase &)> &print);

} // namespace ty::cli
