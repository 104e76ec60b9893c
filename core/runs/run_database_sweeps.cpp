// RunDatabase: sweeps, the record of a hyper-parameter search whose trials are runs (docs/sweeps.md).

#include "run_database.h"

#include "run_liveness.h"
#include "run_sqlite.h"

#include <QUuid>
#include <QJsonDocument>
#include <QSqlQuery>

namespace ty {

namespace {

const char kSweepColumns[] = "id, name, status, spec_json, preset_json, preset_file, trials_json, metric, maximize,"
                             " best_run, created_at, ended_at, host, pid, uuid";


SweepRecord sweepFromRow(const QSqlQuery &query)
{
    SweepRecord sweep;
    sweep.id = query.value(0).toLongLong();
    sweep.name = query.value(1).toString();
    sweep.status = query.value(2).toString();
    sweep.spec = QJsonDocument::fromJson(query.value(3).toString().toUtf8()).object();
    sweep.preset = QJsonDocument::fromJson(query.value(4).toString().toUtf8()).object();
    sweep.presetFile = query.value(5).toString();
    sweep.trials = QJsonDocument::fromJson(query.value(6).toString().toUtf8()).array();
    sweep.metric = query.value(7).toString();
    sweep.maximize = query.value(8).toInt() != 0;
    sweep.bestRun = query.value(9).toLongLong();
    sweep.createdAt = fromRunDbTime(query.value(10));
    sweep.endedAt = fromRunDbTime(query.value(11));
    sweep.host = query.value(12).toString();
    sweep.pid = query.value(13).toLongLong();
    sweep.uuid = query.value(14).toString();
    // A driver that died (kill -9, a crash) cannot have written its end.
    if (sweep.status == QLatin1String("running") && sweep.host == thisHostName() && !processMayBeAlive(sweep.pid))
        sweep.status = QStringLiteral("interrupted");
    return sweep;
}

} // namespace

Result<qint64> RunDatabase::createSweep(const NewSweep &sweep)
{
    return adoptSweep(sweep, QUuid::createUuid().toString(QUuid::WithoutBraces));
}

Result<qint64> RunDatabase::adoptSweep(const NewSweep &sweep, const QString &uuid)
{
    if (Status intact = checkIntegrity(); !intact)
        return intact.error();
    qint64 id = 0;
    const Status status = inRunWriteTransaction(m_db, m_path, [&]() -> Status {
        QSqlQuery existing(m_db);
        existing.prepare(QStringLiteral("SELECT id FROM sweeps WHERE uuid = ?"));
        existing.addBindValue(uuid);
        if (!existing.exec())
            return runDbError(QStringLiteral("cannot look up sweep %1").arg(uuid), m_path, existing.lastError());
        if (existing.next()) {
            id = existing.value(0).toLongLong();
            return Status::success();
        }
        QSqlQuery insert(m_db);
        insert.prepare(QStringLiteral("INSERT INTO sweeps (name, status, spec_json, preset_json, preset_file, trials_json, metric,"
                                      " maximize, created_at, host, pid, uuid) VALUES (?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
        insert.addBindValue(nullIfEmpty(sweep.name));
        insert.addBindValue(compactJson(sweep.spec));
        insert.addBindValue(compactJson(sweep.preset));
        insert.addBindValue(nullIfEmpty(sweep.presetFile));
        insert.addBindValue(compactJson(sweep.trials));
        insert.addBindValue(sweep.metric);
        insert.addBindValue(sweep.maximize ? 1 : 0);
        insert.addBindValue(runDbNow());
        insert.addBindValue(thisHostName());
        insert.addBindValue(thisProcessId());
        insert.addBindValue(uuid);
        if (!insert.exec())
            return runDbError(QStringLiteral("cannot record the sweep"), m_path, insert.lastError());
        id = insert.lastInsertId().toLongLong();
        return Status::success();
    });
    if (!status)
        return status.error();
    return id;
}

Status RunDatabase::claimSweep(qint64 id)
{
    if (Status intact = checkIntegrity(); !intact)
        return intact.error();
    return inRunWriteTransaction(m_db, m_path, [&]() -> Status {
        QSqlQuery read(m_db);
        read.prepare(QStringLiteral("SELECT %1 FROM sweeps WHERE id = ?").arg(QLatin1String(kSweepColumns)));
        read.addBindValue(id);
        if (!read.exec())
            return runDbError(QStringLiteral("cannot read sweep %1").arg(id), m_path, read.lastError());
        if (!read.next())
            return Error(QStringLiteral("no sweep with id %1 in %2").arg(id).arg(m_path));
        const SweepRecord sweep = sweepFromRow(read);
        read.finish();
        if (sweep.status == QLatin1String("running"))
            return Error(QStringLiteral("sweep %1 is being run by process %2 on %3").arg(id).arg(sweep.pid).arg(sweep.host));
        if (sweep.status == QLatin1String("finished"))
            return Error(QStringLiteral("sweep %1 is finished: every trial has ended").arg(id));
        QSqlQuery update(m_db);
        update.prepare(QStringLiteral("UPDATE sweeps SET status = 'running', ended_at = NULL, host = ?, pid = ? WHERE id = ?"));
        update.addBindValue(thisHostName());
        update.addBindValue(thisProcessId());
        update.addBindValue(id);
        if (!update.exec())
            return runDbError(QStringLiteral("cannot update sweep %1").arg(id), m_path, update.lastError());
        return Status::success();
    });
}

Status RunDatabase::setSweepStatus(qint64 id, const QString &status)
{
    return inRunWriteTransaction(m_db, m_path, [&]() -> Status {
        QSqlQuery update(m_db);
        update.prepare(QStringLiteral("UPDATE sweeps SET status = ?, ended_at = ? WHERE id = ?"));
        update.addBindValue(status);
        update.addBindValue(status == QLatin1String("running") ? QVariant() : QVariant(runDbNow()));
        update.addBindValue(id);
        if (!update.exec())
            return runDbError(QStringLiteral("cannot update sweep %1").arg(id), m_path, update.lastError());
        return Status::success();
    });
}

Status RunDatabase::setSweepBestRun(qint64 id, qint64 runId)
{
    return inRunWriteTransaction(m_db, m_path, [&]() -> Status {
        QSqlQuery update(m_db);
        update.prepare(QStringLiteral("UPDATE sweeps SET best_run = ? WHERE id = ?"));
        update.addBindValue(runId > 0 ? QVariant(runId) : QVariant());
        update.addBindValue(id);
        if (!update.exec())
            return runDbError(QStringLiteral("cannot update sweep %1").arg(id), m_path, update.lastError());
        return Status::success();
    });
}

Result<SweepRecord> RunDatabase::sweep(qint64 id) const
{
    QSqlQuery query(m_db);
    query.prepare(QStringLiteral("SELECT %1 FROM sweeps WHERE id = ?").arg(QLatin1String(kSweepColumns)));
    query.addBindValue(id);
    if (!query.exec())
        return runDbError(QStringLiteral("cannot read sweep %1").arg(id), m_path, query.lastError());
    if (!query.next()) {
        if (const std::optional<Error> cut = rowsCutShort(query, QStringLiteral("cannot read sweep %1").arg(id), m_path))
            return *cut;
        return Error(QStringLiteral("no sweep with id %1 in %2").arg(id).arg(m_path));
    }
    return sweepFromRow(query);
}

Result<qint64> RunDatabase::runIdByUuid(const QString &uuid) const
{
    QSqlQuery query(m_db);
    query.prepare(QStringLiteral("SELECT id FROM runs WHERE uuid = ?"));
    query.addBindValue(uuid);
    if (!query.exec())
        return runDbError(QStringLiteral("cannot look up run %1").arg(uuid), m_path, query.lastError());
    return query.next() ? query.value(0).toLongLong() : qint64(0);
}

Result<QList<SweepRecord>> RunDatabase::listSweeps() const
{
    QSqlQuery query(m_db);
    if (!query.exec(QStringLiteral("SELECT %1 FROM sweeps ORDER BY id DESC").arg(QLatin1String(kSweepColumns))))
        return runDbError(QStringLiteral("cannot list sweeps"), m_path, query.lastError());
    QList<SweepRecord> sweeps;
    while (query.next())
        sweeps.append(sweepFromRow(query));
    if (const std::optional<Error> cut = rowsCutShort(query, QStringLiteral("cannot list sweeps"), m_path))
        return *cut;
    return sweeps;
}

} // namespace ty
