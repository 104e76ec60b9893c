#include "run_writer_sql.h"

#include "run_liveness.h"
#include "run_schema.h"
#include "run_sqlite.h"
#include "run_writer_metrics.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>

namespace ty {

void RunWriterBatch::clear()
{
    metrics.clear();
    events.clear();
    checkpoints.clear();
    removedCheckpoints.clear();
    stages.clear();
}

void RunWriterBatch::swap(RunWriterBatch &other)
{
    metrics.swap(other.metrics);
    events.swap(other.events);
    checkpoints.swap(other.checkpoints);
    removedCheckpoints.swap(other.removedCheckpoints);
    stages.swap(other.stages);
}

namespace {

Status checkWriterSchema(SqliteConnection &db, const QString &path)
{
    const Result<QString> text = db.queryText("PRAGMA user_version", QStringLiteral("cannot read the schema version"));
    if (!text.ok())
        return text.error();
    const int version = text.value().toInt();
    if (version > kRunSchemaVersion)
        return Error(newerRunSchemaMessage(path, version));
    if (version < kRunSchemaVersion) {
        return Error(QStringLiteral("%1 is not an up-to-date run database (schema version %2, expected %3); "
                                    "open it with RunDatabase::open() first")
                         .arg(path)
                         .arg(version)
                         .arg(kRunSchemaVersion));
    }
    return Status::success();
}

Status enableWriteAheadLog(SqliteConnection &db, const QString &path)
{
    const Result<QString> mode = db.queryText("PRAGMA journal_mode=WAL", QStringLiteral("cannot switch to write-ahead logging"));
    if (!mode.ok())
        return mode.error();
    if (!mode.value().isEmpty() && mode.value().compare(QLatin1String("wal"), Qt::CaseInsensitive) != 0)
        return Error(QStringLiteral("cannot switch %1 to write-ahead logging (journal mode stays '%2')").arg(path, mode.value()));
    return Status::success();
}

Status writeEvents(SqliteConnection &db, qint64 runId, const std::vector<RunEvent> &rows)
{
    const QString what = QStringLiteral("cannot write events of run %1").arg(runId);
    SqliteStatement insert;
    if (Status prepared = insert.prepare(db, "INSERT INTO events (run_id, step, time, kind, message) VALUES (?1, ?2, ?3, ?4, ?5)",
                                         what);
        !prepared.ok())
        return prepared;
    insert.bindInt(1, runId);
    for (const RunEvent &row : rows) {
        insert.bindInt(2, row.step);
        insert.bindDouble(3, row.time);
        insert.bindText(4, row.kind);
        insert.bindText(5, row.message);
        if (Status status = insert.run(what); !status.ok())
            return status;
    }
    return Status::success();
}

Status writeCheckpoints(SqliteConnection &db, qint64 runId, const std::vector<CheckpointRecord> &rows)
{
    const QString what = QStringLiteral("cannot record checkpoints of run %1").arg(runId);
    // One record per file: a checkpoint written again at the same path (a resume stopped at once) replaces its
    // record, whose sha256 would no longer match.
    SqliteStatement replaced;
    if (Status prepared = replaced.prepare(db, "DELETE FROM checkpoints WHERE run_id = ?1 AND path = ?2", what); !prepared.ok())
        return prepared;
    replaced.bindInt(1, runId);
    SqliteStatement insert;
    if (Status prepared = insert.prepare(
            db, "INSERT INTO checkpoints (run_id, step, epoch, path, created_at, sha256, kind) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", what);
        !prepared.ok())
        return prepared;
    insert.bindInt(1, runId);
    insert.bindText(5, runDbNow());
    for (const CheckpointRecord &row : rows) {
        replaced.bindText(2, row.path);
        if (Status status = replaced.run(what); !status.ok())
            return status;
        insert.bindInt(2, row.step);
        insert.bindInt(3, row.epoch);
        insert.bindText(4, row.path);
        if (row.sha256.isEmpty())
            insert.bindNull(6);
        else
            insert.bindText(6, row.sha256);
        if (row.best)
            insert.bindText(7, QStringLiteral("best"));
        else
            insert.bindNull(7);
        if (Status status = insert.run(what); !status.ok())
            return status;
    }
    return Status::success();
}

Status removeCheckpoints(SqliteConnection &db, qint64 runId, const std::vector<QString> &paths)
{
    const QString what = QStringLiteral("cannot drop checkpoint records of run %1").arg(runId);
    SqliteStatement remove;
    if (Status prepared = remove.prepare(db, "DELETE FROM checkpoints WHERE run_id = ?1 AND path = ?2", what); !prepared.ok())
        return prepared;
    remove.bindInt(1, runId);
    for (const QString &path : paths) {
        remove.bindText(2, path);
        if (Status status = remove.run(what); !status.ok())
            return status;
    }
    return Status::success();
}

// A stage that begins is inserted (or replaced, when a resumed run begins it again) and ends the one before it;
// a record with endStep >= 0 only ends its stage.
Status writeStages(SqliteConnection &db, qint64 runId, const std::vector<StageRecord> &rows)
{
    const QString what = QStringLiteral("cannot record the stages of run %1").arg(runId);
    SqliteStatement insert, end;
    if (Status prepared = insert.prepare(db,
                                         "INSERT OR REPLACE INTO stages (run_id, idx, name, start_step, end_step, start_epoch, epochs, frozen_json)"
                                         " VALUES (?1, ?2, ?3, ?4, NULL, ?5, ?6, ?7)",
                                         what);
        !prepared.ok())
        return prepared;
    if (Status prepared = end.prepare(db, "UPDATE stages SET end_step = ?3 WHERE run_id = ?1 AND idx = ?2", what); !prepared.ok())
        return prepared;
    insert.bindInt(1, runId);
    end.bindInt(1, runId);
    for (const StageRecord &row : rows) {
        if (row.endStep < 0) {
            insert.bindInt(2, row.index);
            insert.bindText(3, row.name);
            insert.bindInt(4, row.startStep);
            insert.bindInt(5, row.startEpoch);
            insert.bindInt(6, row.epochs);
            insert.bindText(7, QString::fromUtf8(QJsonDocument(QJsonArray::fromStringList(row.frozen)).toJson(QJsonDocument::Compact)));
            if (Status status = insert.run(what); !status.ok())
                return status;
        }
        end.bindInt(2, row.endStep < 0 ? row.index - 1 : row.index);
        end.bindInt(3, row.endStep < 0 ? row.startStep : row.endStep);
        if (Status status = end.run(what); !status.ok())
            return status;
    }
    return Status::success();
}

// Runs a one-row UPDATE of the run and fails with "no run with id" when it changed nothing.
Status updateRun(SqliteConnection &db, SqliteStatement &update, qint64 runId, const QString &what)
{
    if (Status status = update.run(what); !status.ok())
        return status;
    if (db.changes() == 0)
        return Error(QStringLiteral("no run with id %1 in %2").arg(runId).arg(db.path()));
    return Status::success();
}

Status writeHeartbeat(SqliteConnection &db, qint64 runId)
{
    const QString what = QStringLiteral("cannot update the heartbeat of run %1").arg(runId);
    SqliteStatement update;
    // ?2 interrupted, ?3 pid, ?4 host: a run marked interrupted that is still this process's goes back to ?5 running.
    if (Status prepared = update.prepare(
            db,
            "UPDATE runs SET heartbeat_at = ?1,"
            " status = CASE WHEN status = ?2 AND pid = ?3 AND host = ?4 THEN ?5 ELSE status END,"
            " status_message = CASE WHEN status = ?2 AND pid = ?3 AND host = ?4 THEN NULL ELSE status_message END,"
            " ended_at = CASE WHEN status = ?2 AND pid = ?3 AND host = ?4 THEN NULL ELSE ended_at END"
            " WHERE id = ?6 AND pid = ?3 AND host = ?4",
            what);
        !prepared.ok())
        return prepared;
    update.bindText(1, runDbNow());
    update.bindText(2, runStatusName(RunStatus::Interrupted));
    update.bindInt(3, thisProcessId());
    update.bindText(4, thisHostName());
    update.bindText(5, runStatusName(RunStatus::Running));
    update.bindInt(6, runId);
    if (Status status = update.run(what); !status.ok())
        return status;
    // Another process claimed the run (a resume, after this one's heartbeat went stale while its writes were
    // retried): nothing more of this process's is written into it.
    if (db.changes() == 0)
        return Error(QStringLiteral("run %1 in %2 is no longer this process's: it was deleted, or another process resumed it")
                         .arg(runId).arg(db.path()));
    return Status::success();
}

Status writeBatchRows(SqliteConnection &db, qint64 runId, const RunWriterBatch &batch)
{
    if (!batch.metrics.empty()) {
        if (Status status = writeRunWriterMetrics(db, runId, batch.metrics); !status.ok())
            return status;
    }
    if (!batch.events.empty()) {
        if (Status status = writeEvents(db, runId, batch.events); !status.ok())
            return status;
    }
    if (!batch.checkpoints.empty()) {
        if (Status status = writeCheckpoints(db, runId, batch.checkpoints); !status.ok())
            return status;
    }
    if (!batch.removedCheckpoints.empty()) {
        if (Status status = removeCheckpoints(db, runId, batch.removedCheckpoints); !status.ok())
            return status;
    }
    if (!batch.stages.empty()) {
        if (Status status = writeStages(db, runId, batch.stages); !status.ok())
            return status;
    }
    return Status::success();
}

} // namespace

Status openRunWriterConnection(SqliteConnection &db, const QString &path, qint64 runId, bool markRunning)
{
    if (!QFileInfo::exists(path))  // SQLite would create an empty file
        return Error(QStringLiteral("no run database at %1").arg(path));
    if (Status opened = db.open(path); !opened.ok())
        return opened;
    if (Status schema = checkWriterSchema(db, path); !schema.ok())
        return schema;
    if (Status wal = enableWriteAheadLog(db, path); !wal.ok())
        return wal;
    if (!markRunning)
        return Status::success();

    SqliteWriteTransaction transaction(db);
    if (Status begun = transaction.begin(); !begun.ok())
        return begun;
    const QString what = QStringLiteral("cannot start run %1").arg(runId);
    const QString now = runDbNow();
    SqliteStatement update;
    if (Status prepared = update.prepare(db,
                                         "UPDATE runs SET status = ?1, status_message = NULL, error_node = NULL,"
                                         " started_at = COALESCE(started_at, ?2), ended_at = NULL, pid = ?3, host = ?4,"
                                         " heartbeat_at = ?2 WHERE id = ?5",
                                         what);
        !prepared.ok())
        return prepared;
    update.bindText(1, runStatusName(RunStatus::Running));
    update.bindText(2, now);
    update.bindInt(3, thisProcessId());
    update.bindText(4, thisHostName());
    update.bindInt(5, runId);
    if (Status status = updateRun(db, update, runId, what); !status.ok())
        return status;
    update.finalize();
    return transaction.commit();
}

Status writeRunWriterBatches(SqliteConnection &db, qint64 runId, const std::vector<RunWriterBatch> &batches, bool heartbeat)
{
    const bool empty = std::all_of(batches.cbegin(), batches.cend(), [](const RunWriterBatch &b) { return b.empty(); });
    if (empty && !heartbeat)
        return Status::success();
    SqliteWriteTransaction transaction(db);
    if (Status begun = transaction.begin(); !begun.ok())
        return begun;
    for (const RunWriterBatch &batch : batches) {
        if (Status status = writeBatchRows(db, runId, batch); !status.ok())
            return status;
    }
    if (heartbeat) {
        if (Status status = writeHeartbeat(db, runId); !status.ok())
            return status;
    }
    return transaction.commit();
}

Status writeRunWriterFinalStatus(SqliteConnection &db, qint64 runId, RunStatus status, const QString &message,
                                 const QString &errorNode, bool ownOnly)
{
    SqliteWriteTransaction transaction(db);
    if (Status begun = transaction.begin(); !begun.ok())
        return begun;
    const QString what = QStringLiteral("cannot set the final status of run %1").arg(runId);
    SqliteStatement update;
    if (Status prepared = update.prepare(
            db, ownOnly ? "UPDATE runs SET status = ?1, status_message = ?2, error_node = ?3, ended_at = ?4 WHERE id = ?5"
                          " AND pid = ?6 AND host = ?7"
                        : "UPDATE runs SET status = ?1, status_message = ?2, error_node = ?3, ended_at = ?4 WHERE id = ?5",
            what);
        !prepared.ok())
        return prepared;
    update.bindText(1, runStatusName(status));
    update.bindText(2, message.isEmpty() ? QString() : message);  // empty: NULL
    update.bindText(3, errorNode.isEmpty() ? QString() : errorNode);
    if (runStatusIsTerminal(status))
        update.bindText(4, runDbNow());
    else
        update.bindNull(4);
    update.bindInt(5, runId);
    if (ownOnly) {
        update.bindInt(6, thisProcessId());
        update.bindText(7, thisHostName());
        if (Status updated = update.run(what); !updated.ok())
            return updated;
        if (db.changes() == 0)
            return Error(QStringLiteral("run %1 in %2 is no longer this process's: its status was left as it is").arg(runId).arg(db.path()));
    } else if (Status updated = updateRun(db, update, runId, what); !updated.ok()) {
        return updated;
    }
    update.finalize();
    return transaction.commit();
}

} // namespace ty
