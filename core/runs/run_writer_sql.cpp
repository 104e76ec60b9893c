#include "run_writer_sql.h"

#include "run_liveness.h"
#include "run_metric_summaries.h"
#include "run_schema.h"
#include "run_sqlite.h"

#include <QFileInfo>
#include <QSqlQuery>
#include <QVariantList>

namespace ty {

void RunWriterBatch::clear()
{
    metrics.clear();
    events.clear();
    checkpoints.clear();
}

void RunWriterBatch::swap(RunWriterBatch &other)
{
    metrics.swap(other.metrics);
    events.swap(other.events);
    checkpoints.swap(other.checkpoints);
}

namespace {

Status checkWriterSchema(const QSqlDatabase &db, const QString &path)
{
    const Result<int> version = readUserVersion(db, path);
    if (!version.ok())
        return version.error();
    if (version.value() > kRunSchemaVersion)
        return runError(newerRunSchemaMessage(path, version.value()));
    if (version.value() < kRunSchemaVersion) {
        return runError(QStringLiteral("%1 is not an up-to-date run database (schema version %2, expected %3); "
                                       "open it with RunDatabase::open() first")
                            .arg(path)
                            .arg(version.value())
                            .arg(kRunSchemaVersion));
    }
    return Status::success();
}

// Prepares `sql` and executes it once per row of `columns` (one QVariantList per placeholder).
Status execBatchInsert(const QSqlDatabase &db, const QString &path, const QString &sql,
                       const QList<QVariantList> &columns, const QString &what)
{
    QSqlQuery query(db);
    if (!query.prepare(sql))
        return runDbError(what, path, query.lastError());
    for (const QVariantList &column : columns)
        query.addBindValue(column);
    if (!query.execBatch())
        return runDbError(what, path, query.lastError());
    return Status::success();
}

// Rows per multi-row INSERT: binding 64 rows per statement execution saves most of Qt's per-execution overhead.
constexpr int kMetricRowsPerStatement = 64;

QString metricInsertSql(int rows)
{
    QString sql = QStringLiteral("INSERT INTO metrics (run_id, name, step, epoch, time, value) VALUES ");
    for (int i = 0; i < rows; ++i)
        sql += i == 0 ? QStringLiteral("(?, ?, ?, ?, ?, ?)") : QStringLiteral(", (?, ?, ?, ?, ?, ?)");
    return sql;
}

Status writeMetrics(const QSqlDatabase &db, const QString &path, qint64 runId, const std::vector<MetricPoint> &rows)
{
    const QString what = QStringLiteral("cannot write metrics of run %1").arg(runId);
    const size_t fullChunks = rows.size() / kMetricRowsPerStatement;
    size_t next = 0;
    if (fullChunks > 0) {
        QSqlQuery insert(db);
        if (!insert.prepare(metricInsertSql(kMetricRowsPerStatement)))
            return runDbError(what, path, insert.lastError());
        const QVariant run(runId);
        for (size_t chunk = 0; chunk < fullChunks; ++chunk) {
            int position = 0;
            for (int i = 0; i < kMetricRowsPerStatement; ++i, ++next) {
                const MetricPoint &row = rows[next];
                insert.bindValue(position++, run);
                insert.bindValue(position++, row.name);
                insert.bindValue(position++, row.step);
                insert.bindValue(position++, row.epoch);
                insert.bindValue(position++, row.time);
                insert.bindValue(position++, row.value);  // NaN becomes NULL in SQLite
            }
            if (!insert.exec())
                return runDbError(what, path, insert.lastError());
        }
    }
    if (next == rows.size())
        return Status::success();
    QList<QVariantList> columns(6);
    for (; next < rows.size(); ++next) {
        const MetricPoint &row = rows[next];
        columns[0] << runId;
        columns[1] << row.name;
        columns[2] << row.step;
        columns[3] << row.epoch;
        columns[4] << row.time;
        columns[5] << row.value;
    }
    return execBatchInsert(db, path, metricInsertSql(1), columns, what);
}

Status writeEvents(const QSqlDatabase &db, const QString &path, qint64 runId, const std::vector<RunEvent> &rows)
{
    QList<QVariantList> columns(5);
    for (const RunEvent &row : rows) {
        columns[0] << runId;
        columns[1] << row.step;
        columns[2] << row.time;
        columns[3] << row.kind;
        columns[4] << row.message;
    }
    return execBatchInsert(db, path,
                           QStringLiteral("INSERT INTO events (run_id, step, time, kind, message) VALUES (?, ?, ?, ?, ?)"),
                           columns, QStringLiteral("cannot write events of run %1").arg(runId));
}

Status writeCheckpoints(const QSqlDatabase &db, const QString &path, qint64 runId,
                        const std::vector<CheckpointRecord> &rows)
{
    const QString now = runDbNow();
    QList<QVariantList> columns(5);
    for (const CheckpointRecord &row : rows) {
        columns[0] << runId;
        columns[1] << row.step;
        columns[2] << row.epoch;
        columns[3] << row.path;
        columns[4] << now;
    }
    return execBatchInsert(db, path,
                           QStringLiteral("INSERT INTO checkpoints (run_id, step, epoch, path, created_at)"
                                          " VALUES (?, ?, ?, ?, ?)"),
                           columns, QStringLiteral("cannot record checkpoints of run %1").arg(runId));
}

Status writeHeartbeat(const QSqlDatabase &db, const QString &path, qint64 runId)
{
    const QString running = runStatusName(RunStatus::Running);
    const QString interrupted = runStatusName(RunStatus::Interrupted);
    const qint64 pid = thisProcessId();
    const QString host = thisHostName();
    QSqlQuery update(db);
    update.prepare(QStringLiteral(
        "UPDATE runs SET heartbeat_at = ?,"
        " status = CASE WHEN status = ? AND pid = ? AND host = ? THEN ? ELSE status END,"
        " status_message = CASE WHEN status = ? AND pid = ? AND host = ? THEN NULL ELSE status_message END,"
        " ended_at = CASE WHEN status = ? AND pid = ? AND host = ? THEN NULL ELSE ended_at END"
        " WHERE id = ?"));
    update.addBindValue(runDbNow());
    for (int i = 0; i < 3; ++i) {
        update.addBindValue(interrupted);
        update.addBindValue(pid);
        update.addBindValue(host);
        if (i == 0)
            update.addBindValue(running);
    }
    update.addBindValue(runId);
    if (!update.exec())
        return runDbError(QStringLiteral("cannot update the heartbeat of run %1").arg(runId), path, update.lastError());
    if (update.numRowsAffected() == 0)
        return runError(QStringLiteral("no run with id %1 in %2").arg(runId).arg(path));
    return Status::success();
}

} // namespace

Status openRunWriterConnection(QSqlDatabase &db, const QString &path, qint64 runId, bool markRunning)
{
    if (!QFileInfo::exists(path))  // SQLite would create an empty file
        return runError(QStringLiteral("no run database at %1").arg(path));
    {
        Result<QSqlDatabase> connection = openRunConnection(uniqueRunConnectionName(QStringLiteral("writer")), path);
        if (!connection.ok())
            return connection.error();
        db = connection.value();
    }  // no copy of the connection may outlive closeRunConnection()
    if (Status schema = checkWriterSchema(db, path); !schema.ok())
        return schema;
    if (Status wal = enableWriteAheadLog(db, path); !wal.ok())
        return wal;
    if (!markRunning)
        return Status::success();

    RunWriteTransaction transaction(db, path);
    if (Status begun = transaction.begin(); !begun.ok())
        return begun;
    const QString now = runDbNow();
    QSqlQuery update(db);
    update.prepare(QStringLiteral(
        "UPDATE runs SET status = ?, status_message = NULL, error_node = NULL, started_at = COALESCE(started_at, ?),"
        " ended_at = NULL, pid = ?, host = ?, heartbeat_at = ? WHERE id = ?"));
    update.addBindValue(runStatusName(RunStatus::Running));
    update.addBindValue(now);
    update.addBindValue(thisProcessId());
    update.addBindValue(thisHostName());
    update.addBindValue(now);
    update.addBindValue(runId);
    if (!update.exec())
        return runDbError(QStringLiteral("cannot start run %1").arg(runId), path, update.lastError());
    if (update.numRowsAffected() == 0)
        return runError(QStringLiteral("no run with id %1 in %2").arg(runId).arg(path));
    return transaction.commit();
}

Status writeRunWriterBatch(const QSqlDatabase &db, const QString &path, qint64 runId, const RunWriterBatch &batch,
                           bool heartbeat)
{
    if (batch.empty() && !heartbeat)
        return Status::success();
    RunWriteTransaction transaction(db, path);
    if (Status begun = transaction.begin(); !begun.ok())
        return begun;
    if (!batch.metrics.empty()) {
        if (Status status = writeMetrics(db, path, runId, batch.metrics); !status.ok())
            return status;
        if (Status status = upsertMetricSummaries(db, path, runId, batch.metrics); !status.ok())
            return status;
    }
    if (!batch.events.empty()) {
        if (Status status = writeEvents(db, path, runId, batch.events); !status.ok())
            return status;
    }
    if (!batch.checkpoints.empty()) {
        if (Status status = writeCheckpoints(db, path, runId, batch.checkpoints); !status.ok())
            return status;
    }
    if (heartbeat) {
        if (Status status = writeHeartbeat(db, path, runId); !status.ok())
            return status;
    }
    return transaction.commit();
}

Status writeRunWriterFinalStatus(const QSqlDatabase &db, const QString &path, qint64 runId, RunStatus status,
                                 const QString &message, const QString &errorNode)
{
    RunWriteTransaction transaction(db, path);
    if (Status begun = transaction.begin(); !begun.ok())
        return begun;
    QSqlQuery update(db);
    update.prepare(QStringLiteral("UPDATE runs SET status = ?, status_message = ?, error_node = ?, ended_at = ?"
                                  " WHERE id = ?"));
    update.addBindValue(runStatusName(status));
    update.addBindValue(nullIfEmpty(message));
    update.addBindValue(nullIfEmpty(errorNode));
    update.addBindValue(runStatusIsTerminal(status) ? QVariant(runDbNow()) : QVariant());
    update.addBindValue(runId);
    if (!update.exec())
        return runDbError(QStringLiteral("cannot set the final status of run %1").arg(runId), path, update.lastError());
    if (update.numRowsAffected() == 0)
        return runError(QStringLiteral("no run with id %1 in %2").arg(runId).arg(path));
    return transaction.commit();
}

} // namespace ty
