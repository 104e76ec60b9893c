// trainyard-cli sweeps list [--db PATH|--team URL] [--json]
// trainyard-cli sweeps show ID [--db PATH|--team URL] [--json]
// trainyard-cli sweeps export ID... --bundle FILE [--without-checkpoints] [--db PATH]

#include "commands.h"
#include "run_database.h"
#include "runs_bundle.h"
#include "sweep_report.h"
#include "team_sweep_commands.h"


namespace ty::cli {

namespace {

const char kSweepsUsage[] = "usage: trainyard-cli sweeps list [--db PATH|--team URL] [--json]\n"
                            "       trainyard-cli sweeps show ID [--db PATH|--team URL] [--json]\n"
                            "       trainyard-cli sweeps export ID... --bundle FILE [--without-checkpoints] [--db PATH]\n";

int listSweeps(RunDatabase &db, const Args &args, Io &io)
{
    Result<QList<SweepRecord>> sweeps = db.listSweeps();
    if (!sweeps) {
        reportError(sweeps.error(), args, io);
        return RunFailed;
    }
    QList<QPair<SweepRecord, QList<SweepTrialRow>>> listed;
    for (const SweepRecord &sweep : sweeps.value()) {
        Result<QList<SweepTrialRow>> rows = sweepTrialRows(db, sweep);
        if (!rows) {
            reportError(rows.error(), args, io);
            return RunFailed;
        }
        listed.append({sweep, rows.value()});
    }
    printSweepList(io, listed, args.flag(QStringLiteral("json")));
    return Success;
}

int showSweep(RunDatabase &db, const Args &args, Io &io)
{
    bool ok = false;
    const qint64 id = args.positionals.value(1).toLongLong(&ok);
    if (!ok || args.positionals.size() != 2) {
        io.err << kSweepsUsage;
        return BadInput;
    }
    Result<SweepRecord> sweep = db.sweep(id);
    if (!sweep) {
        reportError(sweep.error(), args, io);
        return BadInput;
    }
    Result<QList<SweepTrialRow>> rows = sweepTrialRows(db, sweep.value());
    if (!rows) {
        reportError(rows.error(), args, io);
        return RunFailed;
    }
    const SweepImportance importance = sweepImportance(sweep.value(), rows.value());
    if (args.flag(QStringLiteral("json"))) {
        QJsonObject json = sweepJson(sweep.value(), rows.value());
        json.insert(QStringLiteral("importance"), sweepImportanceJson(importance));
        printJson(io, json);
    } else {
        printSweepTable(io, sweep.value(), rows.value());
        printSweepImportance(io, sweep.value(), importance);
    }
    return Success;
}

} // namespace

int sweepsCommand(const QStringList &arguments, Io &io)
{
    const Args args = parseArgs(arguments, {QStringLiteral("db"), QStringLiteral("bundle"), QStringLiteral("team")}, {QStringLiteral("json"), QStringLiteral("without-checkpoints")});
    const QString what = args.positionals.value(0);
    QList<qint64> exportIds;
    bool exportIdsOk = what == QLatin1String("export") && args.positionals.size() >= 2 && !args.option(QStringLiteral("bundle")).isEmpty();
    for (const QString &text : args.positionals.mid(1)) {
        bool ok = false;
        exportIds << text.toLongLong(&ok);
        exportIdsOk = exportIdsOk && ok;
    }
    if (!args.error.isEmpty() || (what != QLatin1String("list") && what != QLatin1String("show") && what != QLatin1String("export"))
        || (what == QLatin1String("list") && args.positionals.size() != 1) || (what == QLatin1String("export") && !exportIdsOk)
        || (args.options.contains(QStringLiteral("team")) && (what == QLatin1String("export") || args.options.contains(QStringLiteral("db"))))) {
        io.err << (args.error.isEmpty() ? QString() : args.error + QStringLiteral("\n")) << kSweepsUsage;
        return BadInput;
    }
    // The team store's sweeps (docs/team.md#sweeps-over-many-machines), with the store's ids.
    if (args.options.contains(QStringLiteral("team")))
        return teamSweepsCommand(args.option(QStringLiteral("team")), what, args, io);
    Result<std::unique_ptr<RunDatabase>> db = RunDatabase::open(databasePath(args));
    if (!db) {
        reportError(db.error(), args, io);
        return BadInput;
    }
    if (what == QLatin1String("export"))
        return exportBundle(databasePath(args), {}, exportIds, args.option(QStringLiteral("bundle")),
                            !args.flag(QStringLiteral("without-checkpoints")), io);
    return what == QLatin1String("list") ? listSweeps(*db.value(), args, io) : showSweep(*db.value(), args, io);
}

} // namespace ty::cli
