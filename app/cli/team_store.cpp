#include "team_store.h"

#include "commands.h"
#include "pg_connection.h"
#include "run_database.h"
#include "team_mirror.h"
#include "team_push.h"
#include "team_replicator.h"
#include "team_sweep_push.h"

#include <QElapsedTimer>
#include <QJsonObject>
#include <QTemporaryDir>

#include <cstdio>

namespace ty::cli {

namespace {

// How often a training run's replicator pushes (about as often as the writer flushes twice).
constexpr int kReplicationIntervalMs = 2000;

const char *const kTeamUsage = "usage: trainyard-cli team push [--db PATH] [--team URL] [--json]\n"
                               "  URL: a libpq connection string (postgresql://user@host/db or host=... dbname=...);\n"
                               "  without --team, the environment's TRAINYARD_TEAM\n";

} // namespace

QString trainingTeamStore(const Args &args)
{
    if (args.options.contains(QStringLiteral("team")))
        return args.option(QStringLiteral("team"));
    return qEnvironmentVariable("TRAINYARD_TEAM");
}

bool checkTeamStore(const QString &conninfo, Io &io)
{
    if (conninfo.isEmpty())
        return true;
    if (const Result<QString> parsed = redactedConninfo(conninfo); !parsed) {
        printError(io, parsed.error());
        return false;
    }
    return true;
}

QStringList argumentsWithoutPasswords(const QStringList &arguments)
{
    const auto redacted = [](const QString &conninfo) {
        const Result<QString> name = redactedConninfo(conninfo);
        return name ? name.value() : QStringLiteral("(not a connection string)");
    };
    QStringList recorded = arguments;
    for (qsizetype i = 0; i < recorded.size(); ++i) {
        if (recorded[i] == QLatin1String("--team") && i + 1 < recorded.size())
            recorded[i + 1] = redacted(recorded[i + 1]);
        else if (recorded[i].startsWith(QLatin1String("--team=")))
            recorded[i] = QStringLiteral("--team=") + redacted(recorded[i].mid(7));
    }
    return recorded;
}

std::unique_ptr<TeamReplicator> startTeamReplication(const Args &args, const QString &dbPath, qint64 runId)
{
    const QString conninfo = trainingTeamStore(args);
    if (conninfo.isEmpty())
        return nullptr;
    auto replicator = std::make_unique<TeamReplicator>();
    // stderr directly: the warning comes from the replicator's thread, while the training thread draws progress.
    replicator->start(dbPath, conninfo, runId, kReplicationIntervalMs, [](const QString &warning) {
        std::fprintf(stderr, "%s\n", warning.toLocal8Bit().constData());
        std::fflush(stderr);
    });
    return replicator;
}

int teamCommand(const QStringList &arguments, Io &io)
{
    const Args args = parseArgs(arguments, {QStringLiteral("db"), QStringLiteral("team")}, {QStringLiteral("json")});
    const QString conninfo = trainingTeamStore(args);
    if (!args.error.isEmpty() || args.positionals != QStringList{QStringLiteral("push")} || conninfo.isEmpty()) {
        io.err << (args.error.isEmpty() ? QString() : args.error + QStringLiteral("\n"))
               << (conninfo.isEmpty() && args.error.isEmpty() ? QStringLiteral("no team store: give --team URL or set TRAINYARD_TEAM\n") : QString())
               << kTeamUsage;
        return BadInput;
    }
    if (!checkTeamStore(conninfo, io))
        return BadInput;
    const QString dbPath = databasePath(args);
    {
        Result<std::unique_ptr<RunDatabase>> db = RunDatabase::open(dbPath);  // migrates; marks dead runs interrupted
        if (!db) {
            printError(io, db.error());
            return BadInput;
        }
    }
    QElapsedTimer timer;
    timer.start();
    PgConnection server;
    if (const Status opened = server.open(conninfo); !opened) {
        printError(io, opened.error());
        return RunFailed;
    }
    const Result<TeamPushReport> pushed = pushRunsToTeam(dbPath, server);
    if (!pushed) {
        printError(io, pushed.error());
        return RunFailed;
    }
    const TeamPushReport &report = pushed.value();
    // Then this database's sweeps, their trials naming the runs just pushed.
    const Result<TeamSweepPushReport> sweeps = pushLocalSweeps(dbPath, server);
    if (!sweeps) {
        printError(io, sweeps.error());
        return RunFailed;
    }
    const double seconds = timer.nsecsElapsed() / 1e9;
    if (args.flag(QStringLiteral("json"))) {
        printJson(io, QJsonObject{{QStringLiteral("store"), server.name()}, {QStringLiteral("runs"), report.runs},
                                  {QStringLiteral("records"), report.records}, {QStringLiteral("metric_rows_sent"), report.metricRowsSent},
                                  {QStringLiteral("metric_rows_new"), report.metricRowsNew},
                                  {QStringLiteral("truncations"), report.truncations}, {QStringLiteral("notifications"), report.notifications},
                                  {QStringLiteral("evaluation_samples_sent"), report.evaluationSamplesSent},
                                  {QStringLiteral("sweeps"), sweeps.value().sweeps}, {QStringLiteral("team_sweeps_left"), sweeps.value().skipped},
                                  {QStringLiteral("seconds"), seconds}});
        return Success;
    }
    io.out << "pushed " << report.runs << " runs to " << server.name() << ": " << report.records << " records, "
           << report.metricRowsSent << " metric rows (" << report.metricRowsNew << " new), " << report.evaluationSamplesSent
           << " evaluation samples, " << report.truncations << " resumed runs cut back, " << sweeps.value().sweeps
           << " sweeps, in " << QString::number(seconds, 'f', 2) << " s\n";
    return Success;
}

int withTeamRuns(const QString &conninfo, const QString &sub, const QList<qint64> &ids, const Args &args, Io &io,
                 const std::function<int(RunDatabase &)> &print)
{
    if (!checkTeamStore(conninfo, io))
        return BadInput;
    PgConnection server;
    if (const Status opened = server.open(conninfo); !opened) {
        printError(io, opened.error());
        return RunFailed;
    }
    QTemporaryDir scratchFolder;
    if (!scratchFolder.isValid()) {
        printError(io, Error(QStringLiteral("cannot create a scratch folder for the team store's runs: %1").arg(scratchFolder.errorString())));
        return RunFailed;
    }
    const QString scratchPath = scratchFolder.filePath(QStringLiteral("team.sqlite"));
    Result<std::unique_ptr<RunDatabase>> scratch = RunDatabase::open(scratchPath);
    if (!scratch) {
        printError(io, scratch.error());
        return RunFailed;
    }
    TeamMirrorRequest request;
    request.list = sub == QStringLiteral("list");
    request.runIds = ids;
    request.everyMetric = sub == QStringLiteral("metrics");
    request.metric = args.option(QStringLiteral("metric"));
    if (const Status mirrored = mirrorTeamRuns(server, scratchPath, request); !mirrored) {
        printError(io, mirrored.error());
        return mirrored.error().message.startsWith(QStringLiteral("no run with id")) ? BadInput : RunFailed;
    }
    return print(*scratch.value());
}

} // namespace ty::cli
