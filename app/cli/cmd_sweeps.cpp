// trainyard-cli sweeps list [--db PATH] [--json]
// trainyard-cli sweeps show ID [--db PATH] [--json]
// trainyard-cli sweeps export ID... --bundle FILE [--without-checkpoints] [--db PATH]

#include "commands.h"
#include "printable_text.h"
#include "run_database.h"
#include "runs_bundle.h"
#include "sweep_report.h"

#include <QJsonArray>

#include <cmath>

namespace ty::cli {

namespace {

const char kSweepsUsage[] = "usage: trainyard-cli sweeps list [--db PATH] [--json]\n"
                            "       trainyard-cli sweeps show ID [--db PATH] [--json]\n"
                            "       trainyard-cli sweeps export ID... --bundle FILE [--without-checkpoints] [--db PATH]\n";

int listSweeps(RunDatabase &db, const Args &args, Io &io)
{
    Result<QList<SweepRecord>> sweeps = db.listSweeps();
    if (!sweeps) {
        reportError(sweeps.error(), args, io);
        return RunFailed;
    }
    QJsonArray json;
    if (!args.flag(QStringLiteral("json")))
        io.out << QStringLiteral("%1  %2  %3  %4  %5  %6\n").arg(QStringLiteral("id"), 4).arg(QStringLiteral("status"), -11)
                      .arg(QStringLiteral("trials"), 9).arg(QStringLiteral("best"), 12).arg(QStringLiteral("metric"), -14).arg(QStringLiteral("name"));
    for (const SweepRecord &sweep : sweeps.value()) {
        Result<QList<SweepTrialRow>> rows = sweepTrialRows(db, sweep);
        if (!rows) {
            reportError(rows.error(), args, io);
            return RunFailed;
        }
        // Rows come best first; NaN when no trial has a value yet.
        const double best = !rows.value().isEmpty() && rows.value().first().value ? *rows.value().first().value : qQNaN();
        if (args.flag(QStringLiteral("json"))) {
            QJsonObject entry = sweepJson(sweep, rows.value());
            entry.remove(QStringLiteral("trials"));
            entry.remove(QStringLiteral("spec"));
            entry.insert(QStringLiteral("best_value"), std::isfinite(best) ? QJsonValue(best) : QJsonValue());
            json.append(entry);
            continue;
        }
        io.out << QStringLiteral("%1  %2  %3  %4  %5  %6\n")
                      .arg(sweep.id, 4)
                      .arg(sweep.status, -11)
                      .arg(QStringLiteral("%1/%2").arg(endedTrials(rows.value())).arg(rows.value().size()), 9)
                      .arg(std::isfinite(best) ? QString::number(best, 'g', 5) : QStringLiteral("-"), 12)
                      .arg(printableExcerpt(sweep.metric, 40), -14)
                      .arg(printableExcerpt(sweep.name, 80));
    }
    if (args.flag(QStringLiteral("json")))
        printJson(io, json);
    io.out.flush();
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
    const Args args = parseArgs(arguments, {QStringLiteral("db"), QStringLiteral("bundle")}, {QStringLiteral("json"), QStringLiteral("without-checkpoints")});
    const QString what = args.positionals.value(0);
    QList<qint64> exportIds;
    bool exportIdsOk = what == QLatin1String("export") && args.positionals.size() >= 2 && !args.option(QStringLiteral("bundle")).isEmpty();
    for (const QString &text : args.positionals.mid(1)) {
        bool ok = false;
        exportIds << text.toLongLong(&ok);
        exportIdsOk = exportIdsOk && ok;
    }
    if (!args.error.isEmpty() || (what != QLatin1String("list") && what != QLatin1String("show") && what != QLatin1String("export"))
        || (what == QLatin1String("list") && args.positionals.size() != 1) || (what == QLatin1String("export") && !exportIdsOk)) {
        io.err << (args.error.isEmpty() ? QString() : args.error + QStringLiteral("\n")) << kSweepsUsage;
        return BadInput;
    }
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
