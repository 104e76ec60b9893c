#include "team_sweep_commands.h"

#include "commands.h"
#include "pg_connection.h"
#include "run_database.h"
#include "sweep_driver.h"
#include "sweep_report.h"
#include "team_schema.h"
#include "team_store.h"
#include "team_sweep_work.h"
#include "team_sweeps.h"


namespace ty::cli {

namespace {

constexpr int kDefaultLeaseSeconds = 60;

int intOption(const Args &args, const QString &name, int fallback)
{
    return args.options.contains(name) ? args.option(name).toInt() : fallback;
}

// The sweep and its trials as the store has them, its best run the first ranked trial's.
Result<QPair<SweepRecord, QList<SweepTrialRow>>> storeSweep(PgConnection &server, qint64 id)
{
    Result<SweepRecord> sweep = teamSweep(server, id);
    if (!sweep)
        return sweep.error();
    Result<QList<SweepTrialRow>> rows = teamSweepTrialRows(server, sweep.value());
    if (!rows)
        return rows.error();
    SweepRecord record = sweep.value();
    if (!rows.value().isEmpty() && rows.value().first().value)
        record.bestRun = rows.value().first().runId;
    return qMakePair(record, rows.value());
}

int printStoreSweep(PgConnection &server, qint64 id, int code, const Args &args, Io &io)
{
    Result<QPair<SweepRecord, QList<SweepTrialRow>>> read = storeSweep(server, id);
    if (!read) {
        reportError(read.error(), args, io);
        return RunFailed;
    }
    if (args.flag(QStringLiteral("json")))
        printJson(io, sweepJson(read.value().first, read.value().second));
    else if (!args.flag(QStringLiteral("quiet")))
        printSweepTable(io, read.value().first, read.value().second);
    return code;
}

// Works the store's sweep `storeId` (recorded here as `local`) with this process's claims.
int work(RunDatabase &db, const SweepRecord &local, qint64 storeId, const QString &conninfo, const Args &args, Io &io)
{
    TeamSweepSettings settings;
    settings.conninfo = conninfo;
    settings.sweepId = storeId;
    settings.leaseSeconds = intOption(args, QStringLiteral("lease"), kDefaultLeaseSeconds);
    settings.maxTrials = intOption(args, QStringLiteral("max-trials"), -1);
    settings.metric = local.metric;
    settings.maximize = local.maximize;
    TeamSweepWork team(settings, db, io);
    SweepDriveOptions options;
    options.quiet = args.flag(QStringLiteral("quiet")) || args.flag(QStringLiteral("json"));
    options.parallel = intOption(args, QStringLiteral("parallel"), 0);
    options.team = &team;
    const int code = settings.maxTrials == 0 ? Success : driveSweep(db, local, io, options);
    PgConnection server;
    if (Status opened = server.open(conninfo); !opened) {
        reportError(opened.error(), args, io);
        return RunFailed;
    }
    return printStoreSweep(server, storeId, code, args, io);
}

} // namespace

bool teamSweepOptionsOk(const Args &args, Io &io)
{
    for (const char *name : {"max-trials", "lease"}) {
        const QString option = QString::fromLatin1(name);
        if (!args.options.contains(option))
            continue;
        bool ok = false;
        const int value = args.option(option).toInt(&ok);
        const int least = option == QLatin1String("lease") ? 3 : 0;
        if (!ok || value < least) {
            reportError(Error::atField(option, QStringLiteral("--%1 must be a whole number of at least %2, not '%3'").arg(option).arg(least).arg(args.option(option))),
                        args, io);
            return false;
        }
        if (trainingTeamStore(args).isEmpty()) {
            reportError(Error::atField(option, QStringLiteral("--%1 is for a team sweep: give --team URL or set TRAINYARD_TEAM").arg(option)), args, io);
            return false;
        }
    }
    return checkTeamStore(trainingTeamStore(args), io);
}

bool teamStoreReady(const QString &conninfo, const Args &args, Io &io)
{
    PgConnection server;
    Status ready = server.open(conninfo);
    if (ready)
        ready = prepareTeamSchemaForWriting(server);
    if (!ready) {
        reportError(ready.error(), args, io);
        io.err << "nothing was run or recorded\n";
        return false;
    }
    return true;
}

int driveNewTeamSweep(RunDatabase &db, const SweepRecord &sweep, const QString &conninfo, const Args &args, Io &io)
{
    PgConnection server;
    if (Status opened = server.open(conninfo); !opened) {
        reportError(opened.error(), args, io);
        db.setSweepStatus(sweep.id, QStringLiteral("failed"));
        return RunFailed;
    }
    Result<qint64> recorded = recordTeamSweep(server, sweep);
    if (!recorded) {
        reportError(recorded.error(), args, io);
        db.setSweepStatus(sweep.id, QStringLiteral("failed"));
        return RunFailed;
    }
    if (!args.flag(QStringLiteral("quiet")) && !args.flag(QStringLiteral("json"))) {
        io.out << "sweep " << recorded.value() << " on the team store " << server.name() << " (sweep " << sweep.id
               << " here); more machines join with: trainyard-cli sweep worker " << recorded.value() << " --team URL\n";
        io.out.flush();
    }
    server.close();
    return work(db, sweep, recorded.value(), conninfo, args, io);
}

int teamSweepWorker(const Args &args, Io &io)
{
    bool ok = false;
    const qint64 id = args.positionals.value(1).toLongLong(&ok);
    const QString conninfo = trainingTeamStore(args);
    if (!ok || args.positionals.size() != 2 || conninfo.isEmpty()) {
        io.err << (conninfo.isEmpty() ? "no team store: give --team URL or set TRAINYARD_TEAM\n" : "")
               << "usage: trainyard-cli sweep worker ID --team URL [--db PATH] [--parallel P] [--max-trials N] [--lease S] [--json] [--quiet]\n";
        return BadInput;
    }
    if (!teamSweepOptionsOk(args, io))
        return BadInput;
    if (args.options.contains(QStringLiteral("parallel")) && intOption(args, QStringLiteral("parallel"), 0) < 1) {
        reportError(Error::atField(QStringLiteral("parallel"), QStringLiteral("--parallel must be a whole number of at least 1, not '%1'")
                                                                   .arg(args.option(QStringLiteral("parallel")))),
                    args, io);
        return BadInput;
    }
    Result<std::unique_ptr<RunDatabase>> db = RunDatabase::open(databasePath(args));
    if (!db) {
        reportError(db.error(), args, io);
        return BadInput;
    }
    PgConnection server;
    if (Status opened = server.open(conninfo); !opened) {
        reportError(opened.error(), args, io);
        return RunFailed;
    }
    Result<SweepRecord> sweep = teamSweep(server, id);
    if (!sweep) {
        reportError(sweep.error(), args, io);
        return sweep.error().message.startsWith(QStringLiteral("no sweep with id")) ? BadInput : RunFailed;
    }
    server.close();
    Result<qint64> local = db.value()->adoptSweep(sweep.value(), sweep.value().uuid);
    Result<SweepRecord> record = local ? db.value()->sweep(local.value()) : Result<SweepRecord>(local.error());
    if (!record) {
        reportError(record.error(), args, io);
        return RunFailed;
    }
    return work(*db.value(), record.value(), id, conninfo, args, io);
}

int teamSweepsCommand(const QString &conninfo, const QString &what, const Args &args, Io &io)
{
    if (!checkTeamStore(conninfo, io))
        return BadInput;
    PgConnection server;
    if (Status opened = server.open(conninfo); !opened) {
        reportError(opened.error(), args, io);
        return RunFailed;
    }
    if (what == QLatin1String("show")) {
        bool ok = false;
        const qint64 id = args.positionals.value(1).toLongLong(&ok);
        if (!ok || args.positionals.size() != 2) {
            io.err << "usage: trainyard-cli sweeps show ID --team URL [--json]\n";
            return BadInput;
        }
        Result<SweepRecord> exists = teamSweep(server, id);
        if (!exists) {
            reportError(exists.error(), args, io);
            return exists.error().message.startsWith(QStringLiteral("no sweep with id")) ? BadInput : RunFailed;
        }
        return printStoreSweep(server, id, Success, args, io);
    }
    Result<QList<SweepRecord>> sweeps = teamSweeps(server);
    if (!sweeps) {
        reportError(sweeps.error(), args, io);
        return RunFailed;
    }
    QList<QPair<SweepRecord, QList<SweepTrialRow>>> listed;
    for (const SweepRecord &sweep : sweeps.value()) {
        Result<QPair<SweepRecord, QList<SweepTrialRow>>> read = storeSweep(server, sweep.id);
        if (!read) {
            reportError(read.error(), args, io);
            return RunFailed;
        }
        listed.append(read.value());
    }
    printSweepList(io, listed, args.flag(QStringLiteral("json")));
    return Success;
}

} // namespace ty::cli
