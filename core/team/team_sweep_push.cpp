#include "team_sweep_push.h"

#include "pg_connection.h"
#include "run_database.h"
#include "team_schema.h"
#include "team_sweeps.h"

namespace ty {

namespace {

// A trial's status on the store from its local run's: the ended ones by name; one still going (or stopped,
// interrupted: resumable here) as such, never claimable.
QString trialStatus(RunStatus status)
{
    switch (status) {
    case RunStatus::Queued: return QStringLiteral("running");
    default: return runStatusName(status);
    }
}

} // namespace

Result<TeamSweepPushReport> pushLocalSweeps(const QString &databasePath, PgConnection &server)
{
    if (Status prepared = prepareTeamSchemaForWriting(server); !prepared.ok())
        return prepared.error();
    Result<std::unique_ptr<RunDatabase>> db = RunDatabase::open(databasePath);
    if (!db)
        return db.error();
    Result<QList<SweepRecord>> sweeps = db.value()->listSweeps();
    if (!sweeps)
        return sweeps.error();
    TeamSweepPushReport report;
    for (const SweepRecord &sweep : sweeps.value()) {
        if (sweep.uuid.isEmpty())
            continue;
        Result<QMap<int, RunInfo>> runs = db.value()->sweepRuns(sweep.id);
        if (!runs)
            return runs.error();
        // New on the store: this push records it. Already there: a team sweep (recorded by `sweep --team`, its
        // trials queued for workers or claimed) stays as it is; one an earlier push recorded is brought up to date.
        Result<PgResult> existing = server.exec(QStringLiteral("SELECT 1 FROM trainyard.sweeps WHERE uuid = $1"), {sweep.uuid},
                                                QStringLiteral("cannot read the sweeps"));
        if (!existing)
            return existing.error();
        const bool known = existing.value().rows() > 0;
        Result<qint64> recorded = recordTeamSweep(server, sweep);  // by uuid: a second push finds it
        if (!recorded)
            return recorded.error();
        const qint64 id = recorded.value();
        const QString what = QStringLiteral("cannot record the trials of sweep %1 (%2 on the team store)").arg(sweep.id).arg(id);
        int trials = 0;
        bool teamSweep = false;
        const Status written = server.inTransaction(what, [&]() -> Status {
            Result<PgResult> claimed = server.exec(QStringLiteral("SELECT 1 FROM trainyard.sweep_trials WHERE sweep_id = $1"
                                                                  " AND (claims > 0 OR status = 'queued') FOR UPDATE"),
                                                   {id}, what);
            if (!claimed)
                return claimed.error();
            if (known && claimed.value().rows() > 0) {
                teamSweep = true;
                return Status::success();
            }
            for (int trial = 0; trial < sweep.trials.size(); ++trial) {
                const auto run = runs.value().constFind(trial);
                const bool ran = run != runs.value().constEnd();
                const QVariantList params{id,
                                          trial,
                                          ran ? trialStatus(run->status) : QStringLiteral("waiting"),
                                          ran ? QVariant(QStringLiteral("%1:%2").arg(run->host).arg(run->pid)) : QVariant(),
                                          ran ? QVariant(run->uuid) : QVariant(),
                                          ran && run->endedAt.isValid() ? QVariant(run->endedAt.toString(Qt::ISODateWithMs)) : QVariant()};
                Result<PgResult> set = server.exec(QStringLiteral("UPDATE trainyard.sweep_trials SET status = $3, worker = $4, run_uuid = $5,"
                                                                  " ended_at = $6::timestamptz, lease_until = NULL"
                                                                  " WHERE sweep_id = $1 AND trial = $2"),
                                                   params, what);
                if (!set)
                    return set.error();
                trials += ran ? 1 : 0;
            }
            Result<PgResult> status = server.exec(QStringLiteral("UPDATE trainyard.sweeps SET status = $2, ended_at = $3::timestamptz WHERE id = $1"),
                                                  {id, sweep.status, sweep.endedAt.isValid() ? QVariant(sweep.endedAt.toString(Qt::ISODateWithMs)) : QVariant()},
                                                  what);
            return status ? Status::success() : Status(status.error());
        });
        if (!written.ok())
            return written.error();
        if (teamSweep) {
            ++report.skipped;
            continue;
        }
        ++report.sweeps;
        report.trials += trials;
    }
    return report;
}

} // namespace ty
