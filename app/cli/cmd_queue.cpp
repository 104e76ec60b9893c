// trainyard-cli queue list [--db PATH] [--json]
// trainyard-cli queue limit [N] [--db PATH]
// trainyard-cli queue cancel|start|up|down ID [--db PATH]

#include "commands.h"
#include "printable_text.h"
#include "run_database.h"

#include <QJsonArray>

namespace ty::cli {

namespace {

const char kQueueUsage[] = "usage: trainyard-cli queue list [--db PATH] [--json]\n"
                           "       trainyard-cli queue limit [N] [--db PATH]      (N runs at once; 0: no limit)\n"
                           "       trainyard-cli queue cancel|start|up|down ID [--db PATH]\n";

QJsonObject entryJson(const QueueEntry &entry, int place)
{
    return QJsonObject{{QStringLiteral("id"), entry.id},
                       {QStringLiteral("name"), entry.name},
                       {QStringLiteral("kind"), entry.kind},
                       {QStringLiteral("state"), entry.state},
                       {QStringLiteral("place"), place > 0 ? QJsonValue(place) : QJsonValue()},
                       {QStringLiteral("start_now"), entry.startNow},
                       {QStringLiteral("run"), entry.runId > 0 ? QJsonValue(entry.runId) : QJsonValue()},
                       {QStringLiteral("sweep"), entry.sweepId > 0 ? QJsonValue(entry.sweepId) : QJsonValue()},
                       {QStringLiteral("sweep_trial"), entry.sweepId > 0 ? QJsonValue(entry.sweepTrial) : QJsonValue()},
                       {QStringLiteral("host"), entry.host},
                       {QStringLiteral("pid"), entry.pid},
                       {QStringLiteral("created_at"), entry.createdAt.toString(Qt::ISODateWithMs)}};
}

int listQueue(RunDatabase &db, const Args &args, Io &io)
{
    const Result<int> limit = db.maxRunning();
    const Result<QList<QueueEntry>> entries = limit ? db.queueEntries() : Result<QList<QueueEntry>>(limit.error());
    if (!entries) {
        reportError(entries.error(), args, io);
        return RunFailed;
    }
    QJsonArray json;
    int place = 0;
    if (!args.flag(QStringLiteral("json")))
        io.out << "limit: " << (limit.value() == 0 ? QStringLiteral("none (every run starts at once)") : (limit.value() == 1 ? QStringLiteral("1 run at once") : QStringLiteral("%1 runs at once").arg(limit.value())))
               << "\n" << QStringLiteral("%1  %2  %3  %4  %5\n").arg(QStringLiteral("id"), 4).arg(QStringLiteral("place"), 5)
                              .arg(QStringLiteral("state"), -9).arg(QStringLiteral("kind"), -7).arg(QStringLiteral("name"));
    for (const QueueEntry &entry : entries.value()) {
        const int shownPlace = entry.state == QLatin1String("waiting") ? ++place : 0;
        if (args.flag(QStringLiteral("json"))) {
            json.append(entryJson(entry, shownPlace));
            continue;
        }
        io.out << QStringLiteral("%1  %2  %3  %4  %5%6\n")
                      .arg(entry.id, 4)
                      .arg(shownPlace > 0 ? QString::number(shownPlace) : QStringLiteral("-"), 5)
                      .arg(entry.state + (entry.startNow ? QStringLiteral("*") : QString()), -9)
                      .arg(entry.kind, -7)
                      .arg(printableExcerpt(entry.name, 80))
                      .arg(entry.sweepId > 0 ? QStringLiteral(" (sweep %1, trial %2)").arg(entry.sweepId).arg(entry.sweepTrial) : QString());
    }
    if (args.flag(QStringLiteral("json")))
        printJson(io, QJsonObject{{QStringLiteral("limit"), limit.value()}, {QStringLiteral("entries"), json}});
    io.out.flush();
    return Success;
}

} // namespace

int queueCommand(const QStringList &arguments, Io &io)
{
    const Args args = parseArgs(arguments, {QStringLiteral("db")}, {QStringLiteral("json")});
    const QString what = args.positionals.value(0);
    const QStringList actions{QStringLiteral("cancel"), QStringLiteral("start"), QStringLiteral("up"), QStringLiteral("down")};
    bool numberOk = false;
    const qint64 number = args.positionals.value(1).toLongLong(&numberOk);
    const bool valid = (what == QLatin1String("list") && args.positionals.size() == 1)
                       || (what == QLatin1String("limit") && (args.positionals.size() == 1 || (args.positionals.size() == 2 && numberOk)))
                       || (actions.contains(what) && args.positionals.size() == 2 && numberOk);
    if (!args.error.isEmpty() || !valid) {
        io.err << (args.error.isEmpty() ? QString() : args.error + QStringLiteral("\n")) << kQueueUsage;
        return BadInput;
    }
    Result<std::unique_ptr<RunDatabase>> opened = RunDatabase::open(databasePath(args));
    if (!opened) {
        reportError(opened.error(), args, io);
        return BadInput;
    }
    RunDatabase &db = *opened.value();
    if (what == QLatin1String("list"))
        return listQueue(db, args, io);
    Status done;
    if (what == QLatin1String("limit")) {
        if (args.positionals.size() == 1) {
            const Result<int> limit = db.maxRunning();
            if (!limit) {
                reportError(limit.error(), args, io);
                return RunFailed;
            }
            io.out << limit.value() << "\n";
            return Success;
        }
        done = db.setMaxRunning(int(qBound(qint64(-1), number, qint64(1000000))));
    } else if (what == QLatin1String("cancel")) {
        done = db.cancelQueued(number);
    } else if (what == QLatin1String("start")) {
        done = db.startQueuedNow(number);
    } else {
        done = db.moveQueued(number, what == QLatin1String("up") ? -1 : 1);
    }
    if (!done) {
        reportError(done.error(), args, io);
        return BadInput;
    }
    return Success;
}

} // namespace ty::cli
