#include "team_sweeps.h"

#include "pg_connection.h"
#include "team_schema.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>

namespace ty {

namespace {

const char kSweepSelect[] = "SELECT s.id, s.uuid, s.name, s.status, s.spec_json, s.preset_json, s.preset_file, s.trials_json, s.metric,"
                            " s.maximize, s.host, extract(epoch FROM s.created_at), extract(epoch FROM s.ended_at) FROM trainyard.sweeps s";

QDateTime fromEpoch(const PgResult &result, int row, int column)
{
    if (result.isNull(row, column))
        return QDateTime();
    return QDateTime::fromMSecsSinceEpoch(qint64(std::llround(result.text(row, column).toDouble() * 1000)), Qt::UTC);
}

SweepRecord sweepFromRow(const PgResult &result, int row)
{
    SweepRecord sweep;
    sweep.id = result.integer(row, 0);
    sweep.uuid = result.text(row, 1);
    sweep.name = result.text(row, 2);
    sweep.status = result.text(row, 3);
    sweep.spec = QJsonDocument::fromJson(result.text(row, 4).toUtf8()).object();
    sweep.preset = QJsonDocument::fromJson(result.text(row, 5).toUtf8()).object();
    sweep.presetFile = result.text(row, 6);
    sweep.trials = QJsonDocument::fromJson(result.text(row, 7).toUtf8()).array();
    sweep.metric = result.text(row, 8);
    sweep.maximize = result.text(row, 9) == QLatin1String("t");
    sweep.host = result.text(row, 10);
    sweep.createdAt = fromEpoch(result, row, 11);
    sweep.endedAt = fromEpoch(result, row, 12);
    return sweep;
}

QString compact(const QJsonObject &object)
{
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

// The store has the sweeps' tables (schema version 2 or later).
Status checkSweepTables(PgConnection &server)
{
    if (Result<int> readable = checkTeamSchemaForReading(server); !readable)
        return readable.error();
    Result<PgResult> present = server.exec(QStringLiteral("SELECT to_regclass('trainyard.sweeps') IS NOT NULL"), {},
                                           QStringLiteral("cannot read the sweeps"));
    if (!present)
        return present.error();
    if (present.value().text(0, 0) != QLatin1String("t"))
        return Error(QStringLiteral("the team store %1 holds no sweeps yet (no `sweep --team` recorded one)").arg(server.name()));
    return Status::success();
}

} // namespace

Result<qint64> recordTeamSweep(PgConnection &server, const SweepRecord &sweep)
{
    if (Status prepared = prepareTeamSchemaForWriting(server); !prepared.ok())
        return prepared.error();
    const QString what = QStringLiteral("cannot record the sweep");
    qint64 id = 0;
    const Status recorded = server.inTransaction(what, [&]() -> Status {
        Result<PgResult> inserted = server.exec(
            QStringLiteral("INSERT INTO trainyard.sweeps (uuid, name, status, spec_json, preset_json, preset_file, trials_json, metric, maximize, host)"
                           " VALUES ($1, $2, 'running', $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (uuid) DO UPDATE SET uuid = EXCLUDED.uuid RETURNING id"),
            {sweep.uuid, sweep.name, compact(sweep.spec), compact(sweep.preset), sweep.presetFile,
             QString::fromUtf8(QJsonDocument(sweep.trials).toJson(QJsonDocument::Compact)), sweep.metric, sweep.maximize, sweep.host},
            what);
        if (!inserted)
            return inserted.error();
        id = inserted.value().integer(0, 0);
        Result<PgResult> trials = server.exec(QStringLiteral("INSERT INTO trainyard.sweep_trials (sweep_id, trial) SELECT $1, generate_series(0, $2 - 1)"
                                                             " ON CONFLICT DO NOTHING"),
                                              {id, qint64(sweep.trials.size())}, what);
        return trials ? Status::success() : Status(trials.error());
    });
    if (!recorded.ok())
        return recorded.error();
    return id;
}

Result<SweepRecord> teamSweep(PgConnection &server, qint64 id)
{
    if (Status tables = checkSweepTables(server); !tables.ok())
        return tables.error();
    Result<PgResult> read = server.exec(QLatin1String(kSweepSelect) + QStringLiteral(" WHERE s.id = $1"), {id},
                                        QStringLiteral("cannot read sweep %1").arg(id));
    if (!read)
        return read.error();
    if (read.value().rows() == 0)
        return Error(QStringLiteral("no sweep with id %1 on the team store %2").arg(id).arg(server.name()));
    return sweepFromRow(read.value(), 0);
}

Result<QList<SweepRecord>> teamSweeps(PgConnection &server)
{
    if (Status tables = checkSweepTables(server); !tables.ok())
        return tables.error();
    Result<PgResult> read = server.exec(QLatin1String(kSweepSelect) + QStringLiteral(" ORDER BY s.id DESC"), {}, QStringLiteral("cannot read the sweeps"));
    if (!read)
        return read.error();
    QList<SweepRecord> sweeps;
    for (int row = 0; row < read.value().rows(); ++row)
        sweeps << sweepFromRow(read.value(), row);
    return sweeps;
}

Result<std::optional<TeamTrialClaim>> claimTeamTrial(PgConnection &server, qint64 sweepId, const QString &worker, int leaseSeconds)
{
    const QString what = QStringLiteral("cannot claim a trial of sweep %1").arg(sweepId);
    std::optional<TeamTrialClaim> claim;
    // A short transaction: the row lock lasts only until the claim is written.
    const Status claimed = server.inTransaction(what, [&]() -> Status {
        Result<PgResult> free = server.exec(
            QStringLiteral("SELECT trial, worker, run_uuid FROM trainyard.sweep_trials WHERE sweep_id = $1"
                           " AND (status = 'queued' OR (status = 'running' AND lease_until < now())) ORDER BY trial LIMIT 1 FOR UPDATE SKIP LOCKED"),
            {sweepId}, what);
        if (!free)
            return free.error();
        if (free.value().rows() == 0)
            return Status::success();
        TeamTrialClaim taken;
        taken.trial = int(free.value().integer(0, 0));
        taken.previousWorker = free.value().text(0, 1);
        taken.previousRunUuid = free.value().text(0, 2);
        Result<PgResult> update = server.exec(
            QStringLiteral("UPDATE trainyard.sweep_trials SET status = 'running', worker = $3, lease_until = now() + $4::integer * interval '1 second',"
                           " claims = claims + 1, claimed_at = now() WHERE sweep_id = $1 AND trial = $2 RETURNING claims"),
            {sweepId, taken.trial, worker, leaseSeconds}, what);
        if (!update)
            return update.error();
        taken.claims = int(update.value().integer(0, 0));
        claim = taken;
        return Status::success();
    });
    if (!claimed.ok())
        return claimed.error();
    if (claim && !claim->previousRunUuid.isEmpty()) {
        Result<PgResult> checkpoint = server.exec(QStringLiteral("SELECT path FROM trainyard.checkpoints WHERE run_uuid = $1 AND path IS NOT NULL"
                                                                 " ORDER BY step DESC, seq DESC LIMIT 16"),
                                                  {claim->previousRunUuid}, what);
        if (!checkpoint)
            return checkpoint.error();
        for (int row = 0; row < checkpoint.value().rows(); ++row)
            claim->checkpointPaths << checkpoint.value().text(row, 0);
    }
    return claim;
}

Result<bool> renewTeamTrialLease(PgConnection &server, qint64 sweepId, int trial, const QString &worker, int leaseSeconds)
{
    Result<PgResult> renewed = server.exec(
        QStringLiteral("UPDATE trainyard.sweep_trials SET lease_until = now() + $4::integer * interval '1 second'"
                       " WHERE sweep_id = $1 AND trial = $2 AND worker = $3 AND status = 'running'"),
        {sweepId, trial, worker, leaseSeconds}, QStringLiteral("cannot renew the lease of trial %1 of sweep %2").arg(trial).arg(sweepId));
    if (!renewed)
        return renewed.error();
    return renewed.value().affectedRows() == 1;
}

Status setTeamTrialRun(PgConnection &server, qint64 sweepId, int trial, const QString &worker, const QString &runUuid)
{
    Result<PgResult> set = server.exec(QStringLiteral("UPDATE trainyard.sweep_trials SET run_uuid = $4 WHERE sweep_id = $1 AND trial = $2 AND worker = $3"),
                                       {sweepId, trial, worker, runUuid},
                                       QStringLiteral("cannot record the run of trial %1 of sweep %2").arg(trial).arg(sweepId));
    return set ? Status::success() : Status(set.error());
}

Status endTeamTrial(PgConnection &server, qint64 sweepId, int trial, const QString &worker, const QString &status,
                    std::optional<double> value, const QString &message)
{
    const QString what = QStringLiteral("cannot record the end of trial %1 of sweep %2").arg(trial).arg(sweepId);
    return server.inTransaction(what, [&]() -> Status {
        // The sweep's row locked first: two workers ending the last two trials at once take turns, so the second
        // sees the first's end and marks the sweep finished (without the lock, neither would see the other's).
        if (Result<PgResult> locked = server.exec(QStringLiteral("SELECT 1 FROM trainyard.sweeps WHERE id = $1 FOR UPDATE"), {sweepId}, what); !locked)
            return locked.error();
        Result<PgResult> ended = server.exec(
            QStringLiteral("UPDATE trainyard.sweep_trials SET status = $4, value = $5, message = $6, lease_until = NULL,"
                           " ended_at = CASE WHEN $4 = 'queued' THEN NULL ELSE now() END"
                           " WHERE sweep_id = $1 AND trial = $2 AND worker = $3 AND status = 'running'"),
            {sweepId, trial, worker, status, value ? QVariant(*value) : QVariant(), message.isEmpty() ? QVariant() : QVariant(message)}, what);
        if (!ended)
            return ended.error();
        Result<PgResult> finished = server.exec(
            QStringLiteral("UPDATE trainyard.sweeps SET status = 'finished', ended_at = now() WHERE id = $1 AND status <> 'finished'"
                           " AND NOT EXISTS (SELECT 1 FROM trainyard.sweep_trials WHERE sweep_id = $1"
                           " AND status NOT IN ('finished', 'pruned', 'diverged', 'failed'))"),
            {sweepId}, what);
        return finished ? Status::success() : Status(finished.error());
    });
}

Result<TeamSweepProgress> teamSweepProgress(PgConnection &server, qint64 sweepId)
{
    Result<PgResult> read = server.exec(
        QStringLiteral("SELECT count(*), count(*) FILTER (WHERE status IN ('finished', 'pruned', 'diverged', 'failed')),"
                       " count(*) FILTER (WHERE status = 'running' AND lease_until >= now()) FROM trainyard.sweep_trials WHERE sweep_id = $1"),
        {sweepId}, QStringLiteral("cannot read the trials of sweep %1").arg(sweepId));
    if (!read)
        return read.error();
    TeamSweepProgress progress;
    progress.trials = int(read.value().integer(0, 0));
    progress.ended = int(read.value().integer(0, 1));
    progress.held = int(read.value().integer(0, 2));
    return progress;
}

Result<TrialCurves> teamSweepCurves(PgConnection &server, qint64 sweepId, const QString &metric)
{
    Result<PgResult> read = server.exec(
        QStringLiteral("SELECT t.trial, m.epoch, m.value FROM trainyard.sweep_trials t JOIN trainyard.metrics m ON m.run_uuid = t.run_uuid"
                       " WHERE t.sweep_id = $1 AND m.name = $2 AND m.epoch IS NOT NULL AND m.value IS NOT NULL ORDER BY t.trial, m.step"),
        {sweepId, metric}, QStringLiteral("cannot read the curves of sweep %1").arg(sweepId));
    if (!read)
        return read.error();
    TrialCurves curves;
    for (int row = 0; row < read.value().rows(); ++row)
        curves[int(read.value().integer(row, 0))][int(read.value().integer(row, 1))] = read.value().value(row, 2, BundleColumn::Real).toDouble();
    return curves;
}

Result<QList<SweepTrialRow>> teamSweepTrialRows(PgConnection &server, const SweepRecord &sweep)
{
    Result<PgResult> read = server.exec(
        QStringLiteral("SELECT t.trial, t.status, r.id, CASE WHEN $3 THEN s.max_value ELSE s.min_value END FROM trainyard.sweep_trials t"
                       " LEFT JOIN trainyard.runs r ON r.uuid = t.run_uuid"
                       " LEFT JOIN trainyard.metric_summaries s ON s.run_uuid = t.run_uuid AND s.name = $2"
                       " WHERE t.sweep_id = $1 ORDER BY t.trial"),
        {sweep.id, sweep.metric, sweep.maximize}, QStringLiteral("cannot read the trials of sweep %1").arg(sweep.id));
    if (!read)
        return read.error();
    QList<SweepTrialRow> rows;
    for (int row = 0; row < read.value().rows(); ++row) {
        SweepTrialRow trial;
        trial.trial = int(read.value().integer(row, 0));
        const QJsonObject recorded = trial.trial < sweep.trials.size() ? sweep.trials.at(trial.trial).toObject() : QJsonObject();
        for (const QJsonValue &set : recorded.value(QStringLiteral("set")).toArray())
            trial.sets.append(set.toString());
        trial.status = read.value().text(row, 1);
        trial.runId = read.value().isNull(row, 2) ? 0 : read.value().integer(row, 2);
        const QVariant value = read.value().value(row, 3, BundleColumn::Real);
        if (value.isValid() && std::isfinite(value.toDouble()))
            trial.value = value.toDouble();
        rows << trial;
    }
    rankSweepTrialRows(rows, sweep.maximize);
    return rows;
}

} // namespace ty
