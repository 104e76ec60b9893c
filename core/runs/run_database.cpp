// RunDatabase: opening, creating runs and every write. The read queries are in run_database_queries.cpp,
// interrupted-run detection in run_database_staleness.cpp.

#include "run_database.h"

#include "shared_folder.h"

#include "regular_file.h"
#include "run_liveness.h"

#include "run_metric_summaries.h"
#include "run_sqlite.h"

#include <QUuid>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QSet>
#include <QSqlQuery>
#include <QVariantList>

namespace ty {

QString RunDatabase::defaultPath()
{
    QString base = qEnvironmentVariable("XDG_DATA_HOME");
    if (base.isEmpty() || QDir::isRelativePath(base))
        base = QDir::homePath() + QStringLiteral("/.local/share");
    return QDir::cleanPath(base + QStringLiteral("/trainyard/runs.sqlite"));
}

Result<std::unique_ptr<RunDatabase>> RunDatabase::open(const QString &requestedPath)
{
    if (requestedPath.isEmpty())
        return Error(QStringLiteral("no path given for the run database"));
    const QString path = QFileInfo(requestedPath).absoluteFilePath();
    const QString folder = QFileInfo(path).absolutePath();
    // On a shared folder (NFS, SMB, FUSE) the database is read, never written (shared_folder.h).
    const QString shared = sharedFileSystemOf(path);
    if (!shared.isEmpty() && !QFileInfo(path).isFile())
        return Error(sharedFolderMessage(path, shared) + QStringLiteral("; there is no database there yet to read"));
    if (!QDir().mkpath(folder))
        return Error(QStringLiteral("cannot create the folder %1 for the run database %2").arg(folder, path));

    QSqlDatabase db;
    {
        Result<QSqlDatabase> connection = openRunConnection(uniqueRunConnectionName(QStringLiteral("db")), path, !shared.isEmpty());
        if (!connection.ok())
            return connection.error();
        db = connection.value();
    }  // no copy of the connection may outlive closeRunConnection()
    auto fail = [&db](const Error &error) {
        closeRunConnection(db);
        return error;
    };

    // Refuse a newer schema before anything (even the journal mode) is changed in the file.
    const Result<int> version = readUserVersion(db, path);
    if (!version.ok())
        return fail(version.error());
    if (version.value() > kSchemaVersion)
        return fail(Error(newerRunSchemaMessage(path, version.value())));
    if (!shared.isEmpty()) {
        if (version.value() < kSchemaVersion)
            return fail(Error(sharedFolderMessage(path, shared)
                              + QStringLiteral("; it was written by an older Trainyard (schema version %1) and reading it here "
                                               "needs a migration, which is writing").arg(version.value())));
        return Result<std::unique_ptr<RunDatabase>>(std::unique_ptr<RunDatabase>(new RunDatabase(path, db)));
    }
    if (Status wal = enableWriteAheadLog(db, path); !wal.ok())
        return fail(wal.error());
    if (Status migrated = migrateRunSchema(db, path); !migrated.ok())
        return fail(migrated.error());

    std::unique_ptr<RunDatabase> database(new RunDatabase(path, db));
    database->markStaleRunsInterrupted();
    return Result<std::unique_ptr<RunDatabase>>(std::move(database));
}

RunDatabase::RunDatabase(const QString &path, const QSqlDatabase &db) : m_path(path), m_db(db) {}

RunDatabase::~RunDatabase() { closeRunConnection(m_db); }

QString RunDatabase::path() const { return m_path; }

QString RunDatabase::runFolder(qint64 id) const
{
    return QFileInfo(m_path).absoluteFilePath() + QStringLiteral("-runs/") + QString::number(id);
}

Result<QString> RunDatabase::writableRunFolder(qint64 id, const QString &recorded) const
{
    const QString own = runFolder(id);
    const QString older = QFileInfo(m_path).absolutePath() + QStringLiteral("/runs/") + QString::number(id);
    const QString folder = recorded.isEmpty() ? own : QDir::cleanPath(QFileInfo(recorded).absoluteFilePath());
    // The same folder reached another way (the database opened through a link, or by a relative path) is its own.
    const auto same = [](const QString &a, const QString &b) {
        if (a == b)
            return true;
        const QString canonical = QFileInfo(a).canonicalFilePath();
        return !canonical.isEmpty() && canonical == QFileInfo(b).canonicalFilePath();
    };
    if (!same(folder, own) && !same(folder, older))
        return Error::inFile(m_path, QStringLiteral("run %1's folder is recorded as %2, which is not this database's own folder "
                                                    "for it (%3): a run's files are written and deleted only there (a database copied or renamed "
                                                    "without its folder cannot resume its runs)")
                                         .arg(id).arg(recorded, own), QStringLiteral("runs.folder"));
    for (const QString &path : {folder, folder + QStringLiteral("/checkpoints")}) {
        if (Status real = requireRealFolder(path); !real)
            return real.error();
    }
    return folder;
}

Error RunDatabase::noSuchRun(qint64 id) const
{
    return Error(QStringLiteral("no run with id %1 in %2").arg(id).arg(m_path));
}

Status RunDatabase::requireRun(qint64 id) const
{
    QSqlQuery query(m_db);
    query.prepare(QStringLiteral("SELECT 1 FROM runs WHERE id = ?"));
    query.addBindValue(id);
    if (!query.exec())
        return runDbError(QStringLiteral("cannot read run %1").arg(id), m_path, query.lastError());
    if (!query.next())
        return noSuchRun(id);
    return Status::success();
}

Status RunDatabase::checkIntegrity() const
{
    QSqlQuery check(m_db);
    QStringList problems;
    const bool ran = check.exec(QStringLiteral("PRAGMA quick_check(5)"));
    while (ran && check.next())
        problems << check.value(0).toString();
    const QSqlError error = check.lastError();
    if (!ran || error.isValid()) {
        if (!isDamagedError(error))
            return runDbError(QStringLiteral("cannot check the run database"), m_path, error);
        problems << error.databaseText();
    }
    if (problems == QStringList{QStringLiteral("ok")})
        return Status::success();
    return Error(QStringLiteral("the run database is damaged: %1 fails its integrity check (%2); nothing was written to it; "
                                "see docs/reliability.md for recovery")
                     .arg(m_path, problems.join(QStringLiteral("; ")).replace(QLatin1Char('\n'), QStringLiteral("; ")).left(300)));
}

Result<qint64> RunDatabase::createRun(const NewRun &run)
{
    // A new run is the first write of a training: never into a damaged file, where writing could lose more.
    if (Status intact = checkIntegrity(); !intact)
        return intact.error();
    qint64 id = 0;
    const Status status = inRunWriteTransaction(m_db, m_path, [&]() -> Status {
        QSqlQuery insert(m_db);
        insert.prepare(QStringLiteral(
            "INSERT INTO main.runs (name, status, preset_json, preset_hash, created_at, app_version, torch_version,"
            " qt_version, device, seed, provenance_json, host, pid, sweep_id, sweep_trial, uuid, kind)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
        insert.addBindValue(nullIfEmpty(run.name));
        insert.addBindValue(runStatusName(RunStatus::Queued));
        insert.addBindValue(compactJson(run.preset));
        insert.addBindValue(nullIfEmpty(run.presetHash));
        insert.addBindValue(runDbNow());
        insert.addBindValue(nullIfEmpty(run.appVersion));
        insert.addBindValue(nullIfEmpty(run.torchVersion));
        insert.addBindValue(nullIfEmpty(run.qtVersion));
        insert.addBindValue(nullIfEmpty(run.device));
        insert.addBindValue(run.seed);
        insert.addBindValue(compactJson(run.provenance));
        // The creating process trains the run: a queued run whose process died is interrupted, not queued for ever.
        insert.addBindValue(thisHostName());
        insert.addBindValue(thisProcessId());
        insert.addBindValue(run.sweepId > 0 ? QVariant(run.sweepId) : QVariant());
        insert.addBindValue(run.sweepId > 0 ? QVariant(run.sweepTrial) : QVariant());
        insert.addBindValue(QUuid::createUuid().toString(QUuid::WithoutBraces));
        insert.addBindValue(run.kind.isEmpty() ? QString::fromLatin1(kRunKindTrain) : run.kind);
        if (!insert.exec()) {
            if (run.sweepId > 0 && insert.lastError().text().contains(QLatin1String("UNIQUE")))
                return Error(QStringLiteral("trial %1 of sweep %2 already has a run in %3").arg(run.sweepTrial).arg(run.sweepId).arg(m_path));
            return runDbError(QStringLiteral("cannot create a run"), m_path, insert.lastError());
        }
        id = insert.lastInsertId().toLongLong();

        if (!run.params.isEmpty()) {
            QVariantList runIds, keys, values;
            for (auto it = run.params.cbegin(); it != run.params.cend(); ++it) {
                runIds << id;
                keys << it.key();
                values << it.value();
            }
            QSqlQuery params(m_db);
            params.prepare(QStringLiteral("INSERT INTO main.run_params (run_id, key, value) VALUES (?, ?, ?)"));
            params.addBindValue(runIds);
            params.addBindValue(keys);
            params.addBindValue(values);
            if (!params.execBatch())
                return runDbError(QStringLiteral("cannot store the parameters of run %1").arg(id), m_path,
                                  params.lastError());
        }

        const QString folder = runFolder(id);
        if (!QDir().mkpath(folder))
            return Error(QStringLiteral("cannot create the folder %1 of run %2").arg(folder).arg(id));
        QSqlQuery setFolder(m_db);
        setFolder.prepare(QStringLiteral("UPDATE main.runs SET folder = ? WHERE id = ?"));
        setFolder.addBindValue(folder);
        setFolder.addBindValue(id);
        if (!setFolder.exec())
            return runDbError(QStringLiteral("cannot store the folder of run %1").arg(id), m_path,
                              setFolder.lastError());
        return Status::success();
    });
    if (!status.ok())
        return status.error();
    return id;
}

Status RunDatabase::claimRunForResume(qint64 id, qint64 fromStep)
{
    if (Status intact = checkIntegrity(); !intact)
        return intact.error();
    return inRunWriteTransaction(m_db, m_path, [&]() -> Status {
        QSqlQuery update(m_db);
        update.prepare(QStringLiteral("UPDATE main.runs SET status = ?, ended_at = NULL, host = ?, pid = ? WHERE id = ? AND status IN (?, ?, ?)"));
        update.addBindValue(runStatusName(RunStatus::Queued));
        update.addBindValue(thisHostName());
        update.addBindValue(thisProcessId());
        update.addBindValue(id);
        for (RunStatus resumable : {RunStatus::Interrupted, RunStatus::Stopped, RunStatus::Failed})
            update.addBindValue(runStatusName(resumable));
        if (!update.exec())
            return runDbError(QStringLiteral("cannot claim run %1").arg(id), m_path, update.lastError());
        if (update.numRowsAffected() != 1)
            return Error(QStringLiteral("run %1 is no longer interrupted, stopped or failed: another process is resuming it, or it "
                                        "was resumed meanwhile").arg(id));
        return deleteRowsAfter(id, fromStep);
    });
}

Status RunDatabase::setStatus(qint64 id, RunStatus status, const QString &message, const QString &errorNode)
{
    const QString now = runDbNow();
    QString times;
    if (status == RunStatus::Running)
        times = QStringLiteral("started_at = COALESCE(started_at, ?), ended_at = NULL");
    else if (status == RunStatus::Queued)
        times = QStringLiteral("ended_at = NULL");
    else
        times = QStringLiteral("ended_at = ?");

    return inRunWriteTransaction(m_db, m_path, [&]() -> Status {
        QSqlQuery update(m_db);
        update.prepare(QStringLiteral("UPDATE main.runs SET status = ?, status_message = ?, error_node = ?, %1 WHERE id = ?")
                           .arg(times));
        update.addBindValue(runStatusName(status));
        update.addBindValue(nullIfEmpty(message));
        update.addBindValue(nullIfEmpty(errorNode));
        if (status != RunStatus::Queued)
            update.addBindValue(now);
        update.addBindValue(id);
        if (!update.exec())
            return runDbError(QStringLiteral("cannot set the status of run %1").arg(id), m_path, update.lastError());
        if (update.numRowsAffected() == 0)
            return noSuchRun(id);
        return Status::success();
    });
}

Status RunDatabase::setNotes(qint64 id, const QString &notes)
{
    return inRunWriteTransaction(m_db, m_path, [&]() -> Status {
        QSqlQuery update(m_db);
        update.prepare(QStringLiteral("UPDATE main.runs SET notes = ? WHERE id = ?"));
        update.addBindValue(nullIfEmpty(notes));
        update.addBindValue(id);
        if (!update.exec())
            return runDbError(QStringLiteral("cannot set the notes of run %1").arg(id), m_path, update.lastError());
        if (update.numRowsAffected() == 0)
            return noSuchRun(id);
        return Status::success();
    });
}

Status RunDatabase::setRunResult(qint64 id, const QJsonObject &result)
{
    return inRunWriteTransaction(m_db, m_path, [&]() -> Status {
        QSqlQuery update(m_db);
        update.prepare(QStringLiteral("UPDATE main.runs SET result_json = ? WHERE id = ?"));
        update.addBindValue(result.isEmpty() ? QVariant() : QVariant(compactJson(result)));
        update.addBindValue(id);
        if (!update.exec())
            return runDbError(QStringLiteral("cannot store the result of run %1").arg(id), m_path, update.lastError());
        if (update.numRowsAffected() == 0)
            return noSuchRun(id);
        return Status::success();
    });
}

Status RunDatabase::renameRun(qint64 id, const QString &name)
{
    return inRunWriteTransaction(m_db, m_path, [&]() -> Status {
        QSqlQuery update(m_db);
        update.prepare(QStringLiteral("UPDATE main.runs SET name = ? WHERE id = ?"));
        update.addBindValue(nullIfEmpty(name.trimmed()));
        update.addBindValue(id);
        if (!update.exec())
            return runDbError(QStringLiteral("cannot rename run %1").arg(id), m_path, update.lastError());
        if (update.numRowsAffected() == 0)
            return noSuchRun(id);
        return Status::success();
    });
}

Status RunDatabase::setTags(qint64 id, const QStringList &tags)
{
    return inRunWriteTransaction(m_db, m_path, [&]() -> Status {
        if (Status exists = requireRun(id); !exists.ok())
            return exists;
        QSqlQuery clear(m_db);
        clear.prepare(QStringLiteral("DELETE FROM main.run_tags WHERE run_id = ?"));
        clear.addBindValue(id);
        if (!clear.exec())
            return runDbError(QStringLiteral("cannot set the tags of run %1").arg(id), m_path, clear.lastError());
        QSet<QString> seen;
        QSqlQuery insert(m_db);
        insert.prepare(QStringLiteral("INSERT INTO main.run_tags (run_id, tag) VALUES (?, ?)"));
        for (const QString &raw : tags) {
            const QString tag = raw.trimmed();
            if (tag.isEmpty() || seen.contains(tag))
                continue;
            seen.insert(tag);
            insert.addBindValue(id);
            insert.addBindValue(tag);
            if (!insert.exec())
                return runDbError(QStringLiteral("cannot set the tags of run %1").arg(id), m_path, insert.lastError());
        }
        return Status::success();
    });
}

Status RunDatabase::deleteRun(qint64 id)
{
    return inRunWriteTransaction(m_db, m_path, [&]() -> Status {
        QSqlQuery remove(m_db);
        remove.prepare(QStringLiteral("DELETE FROM main.runs WHERE id = ?"));
        remove.addBindValue(id);
        if (!remove.exec())
            return runDbError(QStringLiteral("cannot delete run %1").arg(id), m_path, remove.lastError());
        if (remove.numRowsAffected() == 0)
            return noSuchRun(id);
        return Status::success();
    });
}

Status RunDatabase::deleteMetricsAfter(qint64 id, qint64 step)
{
    return inRunWriteTransaction(m_db, m_path, [&]() -> Status {
        if (Status exists = requireRun(id); !exists.ok())
            return exists;
        return deleteRowsAfter(id, step);
    });
}

Status RunDatabase::deleteRowsAfter(qint64 id, qint64 step)
{
    // Stages begun after the checkpoint begin again; one that ended after it has not ended yet.
    for (const QString &statement : {QStringLiteral("DELETE FROM metrics WHERE run_id = ? AND step > ?"),
                                     QStringLiteral("DELETE FROM events WHERE run_id = ? AND step > ?"),
                                     QStringLiteral("DELETE FROM stages WHERE run_id = ? AND start_step > ?"),
                                     QStringLiteral("UPDATE stages SET end_step = NULL WHERE run_id = ? AND end_step > ?")}) {
        const QString table = statement.section(QLatin1Char(' '), statement.startsWith(QLatin1String("DELETE")) ? 2 : 1, statement.startsWith(QLatin1String("DELETE")) ? 2 : 1);
        QSqlQuery remove(m_db);
        remove.prepare(statement);
        remove.addBindValue(id);
        remove.addBindValue(step);
        if (!remove.exec())
            return runDbError(QStringLiteral("cannot delete %1 of run %2 after step %3").arg(table).arg(id).arg(step),
                              m_path, remove.lastError());
    }
    // The team store must drop them too (core/team): the replicator deletes the server's rows after the smallest
    // such step, and sends again what follows the run's remaining rows (whose rowids SQLite may hand out anew).
    QSqlQuery mark(m_db);
    mark.prepare(QStringLiteral("UPDATE team_replication SET truncate_after = min(coalesce(truncate_after, :step), :step),"
                                " generation = generation + 1,"
                                " metrics_rowid = min(metrics_rowid, coalesce((SELECT max(rowid) FROM metrics WHERE run_id = :run), 0))"
                                " WHERE run_id = :run"));
    mark.bindValue(QStringLiteral(":step"), step);
    mark.bindValue(QStringLiteral(":run"), id);
    if (!mark.exec())
        return runDbError(QStringLiteral("cannot mark run %1 for the team store after step %2").arg(id).arg(step), m_path, mark.lastError());
    return rebuildMetricSummaries(m_db, m_path, id);
}

} // namespace ty
