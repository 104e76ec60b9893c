// RunDatabase: the read queries. Opening and writes are in run_database.cpp.

#include "run_database.h"

#include "run_sqlite.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSqlQuery>
#include <QSqlRecord>

#include <cmath>
#include <limits>

namespace ty {

namespace {

// The columns runInfoFromRow reads, in its order; PRESET is the preset's column, or NULL where a list needs none.
#define TY_RUN_COLUMNS(PRESET)                                                                                      \
    "id, name, status, status_message, error_node, " PRESET ", preset_hash, created_at, started_at, ended_at,"       \
    " heartbeat_at, app_version, torch_version, qt_version, device, host, pid, seed, provenance_json, folder, notes," \
    " sweep_id, sweep_trial, uuid, kind, result_json"
const char kRunColumns[] = TY_RUN_COLUMNS("preset_json");
// The presets are most of a big database's bytes, and a list shows none.
const char kRunListColumns[] = TY_RUN_COLUMNS("NULL");
#undef TY_RUN_COLUMNS

QJsonObject jsonObjectFromText(const QVariant &text)
{
    return QJsonDocument::fromJson(text.toString().toUtf8()).object();  // empty for NULL or malformed text
}

// NaN is stored as NULL by SQLite.
double doubleOrNaN(const QVariant &value)
{
    return value.isNull() ? std::numeric_limits<double>::quiet_NaN() : value.toDouble();
}

RunInfo runInfoFromRow(const QSqlQuery &query)
{
    RunInfo info;
    info.id = query.value(0).toLongLong();
    info.name = query.value(1).toString();
    const QString statusName = query.value(2).toString();
    info.statusMessage = query.value(3).toString();
    if (const std::optional<RunStatus> status = runStatusFromName(statusName)) {
        info.status = *status;
    } else {
        // A status this build does not know cannot come from schema version 1; report it rather than hide it.
        info.status = RunStatus::Failed;
        info.statusMessage = QStringLiteral("unknown status '%1'; %2").arg(statusName, info.statusMessage);
    }
    info.errorNode = query.value(4).toString();
    info.preset = jsonObjectFromText(query.value(5));
    info.presetHash = query.value(6).toString();
    info.createdAt = fromRunDbTime(query.value(7));
    info.startedAt = fromRunDbTime(query.value(8));
    info.endedAt = fromRunDbTime(query.value(9));
    info.heartbeatAt = fromRunDbTime(query.value(10));
    info.appVersion = query.value(11).toString();
    info.torchVersion = query.value(12).toString();
    info.qtVersion = query.value(13).toString();
    info.device = query.value(14).toString();
    info.host = query.value(15).toString();
    info.pid = query.value(16).toLongLong();
    info.seed = query.value(17).toLongLong();
    info.provenance = jsonObjectFromText(query.value(18));
    info.folder = query.value(19).toString();
    info.notes = query.value(20).toString();
    info.sweepId = query.value(21).toLongLong();
    info.sweepTrial = query.value(22).isNull() ? -1 : query.value(22).toInt();
    info.uuid = query.value(23).toString();
    info.kind = query.value(24).toString();
    info.result = jsonObjectFromText(query.value(25));
    return info;
}

} // namespace

Result<QList<RunInfo>> RunDatabase::listRuns() const
{
    QMap<qint64, QStringList> tags;
    {
        QSqlQuery query(m_db);
        if (!query.exec(QStringLiteral("SELECT run_id, tag FROM run_tags ORDER BY run_id, tag")))
            return runDbError(QStringLiteral("cannot read run tags"), m_path, query.lastError());
        while (query.next())
            tags[query.value(0).toLongLong()].append(query.value(1).toString());
        if (const std::optional<Error> cut = rowsCutShort(query, QStringLiteral("cannot read run tags"), m_path))
            return *cut;
    }
    QSqlQuery query(m_db);
    query.setForwardOnly(true);
    if (!query.exec(QStringLiteral("SELECT %1 FROM runs ORDER BY id DESC").arg(QLatin1String(kRunListColumns))))
        return runDbError(QStringLiteral("cannot list runs"), m_path, query.lastError());
    QList<RunInfo> runs;
    while (query.next()) {
        RunInfo info = runInfoFromRow(query);
        info.tags = tags.value(info.id);
        runs.append(std::move(info));
    }
    if (const std::optional<Error> cut = rowsCutShort(query, QStringLiteral("cannot list runs"), m_path))
        return *cut;
    return runs;
}

Result<QMap<int, RunInfo>> RunDatabase::sweepRuns(qint64 sweepId) const
{
    QSqlQuery query(m_db);
    query.prepare(QStringLiteral("SELECT %1 FROM runs WHERE sweep_id = ? ORDER BY sweep_trial").arg(QLatin1String(kRunColumns)));
    query.addBindValue(sweepId);
    if (!query.exec())
        return runDbError(QStringLiteral("cannot read the runs of sweep %1").arg(sweepId), m_path, query.lastError());
    QMap<int, RunInfo> runs;
    while (query.next()) {
        RunInfo info = runInfoFromRow(query);
        runs.insert(info.sweepTrial, info);
    }
    if (const std::optional<Error> cut = rowsCutShort(query, QStringLiteral("cannot read the runs of sweep %1").arg(sweepId), m_path))
        return *cut;
    return runs;
}

Result<RunInfo> RunDatabase::run(qint64 id) const
{
    RunInfo info;
    {
        QSqlQuery query(m_db);
        query.prepare(QStringLiteral("SELECT %1 FROM runs WHERE id = ?").arg(QLatin1String(kRunColumns)));
        query.addBindValue(id);
        if (!query.exec())
            return runDbError(QStringLiteral("cannot read run %1").arg(id), m_path, query.lastError());
        if (!query.next())
            return noSuchRun(id);
        info = runInfoFromRow(query);
    }
    QSqlQuery tags(m_db);
    tags.prepare(QStringLiteral("SELECT tag FROM run_tags WHERE run_id = ? ORDER BY tag"));
    tags.addBindValue(id);
    if (!tags.exec())
        return runDbError(QStringLiteral("cannot read the tags of run %1").arg(id), m_path, tags.lastError());
    while (tags.next())
        info.tags.append(tags.value(0).toString());
    if (const std::optional<Error> cut = rowsCutShort(tags, QStringLiteral("cannot read the tags of run %1").arg(id), m_path))
        return *cut;
    return info;
}

Result<QMap<QString, QString>> RunDatabase::params(qint64 id) const
{
    if (Status exists = requireRun(id); !exists.ok())
        return exists.error();
    QSqlQuery query(m_db);
    query.prepare(QStringLiteral("SELECT key, value FROM run_params WHERE run_id = ?"));
    query.addBindValue(id);
    if (!query.exec())
        return runDbError(QStringLiteral("cannot read the parameters of run %1").arg(id), m_path, query.lastError());
    QMap<QString, QString> params;
    while (query.next())
        params.insert(query.value(0).toString(), query.value(1).toString());
    if (const std::optional<Error> cut = rowsCutShort(query, QStringLiteral("cannot read the parameters of run %1").arg(id), m_path))
        return *cut;
    return params;
}

Result<QList<MetricPoint>> RunDatabase::metrics(qint64 id, const QString &name) const
{
    if (Status exists = requireRun(id); !exists.ok())
        return exists.error();
    QSqlQuery query(m_db);
    query.setNumericalPrecisionPolicy(QSql::LowPrecisionDouble);  // doubles exactly, not via 15-digit text
    query.setForwardOnly(true);
    const QString filter = name.isEmpty() ? QString() : QStringLiteral(" AND name = ?");
    query.prepare(QStringLiteral("SELECT name, step, epoch, time, value FROM metrics WHERE run_id = ?%1"
                                 " ORDER BY name, step, rowid")
                      .arg(filter));
    query.addBindValue(id);
    if (!name.isEmpty())
        query.addBindValue(name);
    if (!query.exec())
        return runDbError(QStringLiteral("cannot read the metrics of run %1").arg(id), m_path, query.lastError());
    QList<MetricPoint> points;
    while (query.next()) {
        MetricPoint point;
        point.name = query.value(0).toString();
        point.step = query.value(1).toLongLong();
        point.epoch = query.value(2).toInt();
        point.time = doubleOrNaN(query.value(3));
        point.value = doubleOrNaN(query.value(4));
        points.append(std::move(point));
    }
    if (const std::optional<Error> cut = rowsCutShort(query, QStringLiteral("cannot read the metrics of run %1").arg(id), m_path))
        return *cut;
    return points;
}

Result<QList<MetricPoint>> RunDatabase::metricsAfter(qint64 id, qint64 afterRowId, qint64 *lastRowId) const
{
    if (lastRowId)
        *lastRowId = afterRowId;
    if (Status exists = requireRun(id); !exists.ok())
        return exists.error();
    // Two plans, same rows. A poll (few rows written since afterRowId, by any run) walks the table from that
    // rowid on; a first read, or a cursor left far behind, takes the run's rows through its index and sorts.
    constexpr qint64 kMaxRowsToWalk = 200000;
    // With the team copy attached (the Both view), the run's own table rather than the view: its rowids, its plans.
    const QString table = m_teamCopy.isEmpty() ? QStringLiteral("metrics")
                                               : isTeamCopyId(id) ? QStringLiteral("team.metrics") : QStringLiteral("main.metrics");
    const qint64 rowsOf = m_teamCopy.isEmpty() || !isTeamCopyId(id) ? id : storeIdOfCopy(id);
    bool walkFromRowId = false;
    if (afterRowId > 0) {
        QSqlQuery newest(m_db);
        if (!newest.exec(QStringLiteral("SELECT max(rowid) FROM %1").arg(table)) || !newest.next())
            return runDbError(QStringLiteral("cannot read the metrics of run %1").arg(id), m_path, newest.lastError());
        walkFromRowId = newest.value(0).toLongLong() - afterRowId <= kMaxRowsToWalk;
    }
    QSqlQuery query(m_db);
    query.setNumericalPrecisionPolicy(QSql::LowPrecisionDouble);
    query.setForwardOnly(true);
    query.prepare(walkFromRowId
                      ? QStringLiteral("SELECT rowid, name, step, epoch, time, value FROM %1"
                                       " WHERE +run_id = ? AND rowid > ? ORDER BY rowid").arg(table)
                      : QStringLiteral("SELECT rowid, name, step, epoch, time, value FROM %1"
                                       " WHERE run_id = ? AND rowid > ? ORDER BY rowid").arg(table));
    query.addBindValue(rowsOf);
    query.addBindValue(afterRowId);
    if (!query.exec())
        return runDbError(QStringLiteral("cannot read the metrics of run %1").arg(id), m_path, query.lastError());
    QList<MetricPoint> points;
    qint64 last = afterRowId;
    while (query.next()) {
        last = query.value(0).toLongLong();
        MetricPoint point;
        point.name = query.value(1).toString();
        point.step = query.value(2).toLongLong();
        point.epoch = query.value(3).toInt();
        point.time = doubleOrNaN(query.value(4));
        point.value = doubleOrNaN(query.value(5));
        points.append(std::move(point));
    }
    if (const std::optional<Error> cut = rowsCutShort(query, QStringLiteral("cannot read the metrics of run %1").arg(id), m_path))
        return *cut;
    if (lastRowId)
        *lastRowId = last;
    return points;
}

Result<QMap<QString, double>> RunDatabase::lastMetricValues(qint64 id) const
{
    if (Status exists = requireRun(id); !exists.ok())
        return exists.error();
    QSqlQuery query(m_db);
    query.setNumericalPrecisionPolicy(QSql::LowPrecisionDouble);
    query.setForwardOnly(true);
    query.prepare(QStringLiteral(
        "SELECT n.name, (SELECT m.value FROM metrics m WHERE m.run_id = ? AND m.name = n.name"
        "                ORDER BY m.step DESC, m.rowid DESC LIMIT 1)"
        " FROM (SELECT DISTINCT name FROM metrics WHERE run_id = ?) n"));
    query.addBindValue(id);
    query.addBindValue(id);
    if (!query.exec())
        return runDbError(QStringLiteral("cannot read the last metrics of run %1").arg(id), m_path, query.lastError());
    QMap<QString, double> values;
    while (query.next())
        values.insert(query.value(0).toString(), doubleOrNaN(query.value(1)));
    if (const std::optional<Error> cut = rowsCutShort(query, QStringLiteral("cannot read the last metrics of run %1").arg(id), m_path))
        return *cut;
    return values;
}

Result<QHash<qint64, QMap<QString, double>>> RunDatabase::lastMetricValuesOfRuns() const
{
    QSqlQuery query(m_db);
    query.setNumericalPrecisionPolicy(QSql::LowPrecisionDouble);
    query.setForwardOnly(true);
    if (!query.exec(QStringLiteral("SELECT run_id, name, last_value FROM metric_summaries")))
        return runDbError(QStringLiteral("cannot read the last metrics of the runs"), m_path, query.lastError());
    QHash<qint64, QMap<QString, double>> values;
    while (query.next())
        values[query.value(0).toLongLong()].insert(query.value(1).toString(), doubleOrNaN(query.value(2)));
    if (const std::optional<Error> cut = rowsCutShort(query, QStringLiteral("cannot read the last metrics of the runs"), m_path))
        return *cut;
    return values;
}

Result<QList<RunEvent>> RunDatabase::events(qint64 id) const
{
    if (Status exists = requireRun(id); !exists.ok())
        return exists.error();
    QSqlQuery query(m_db);
    query.setNumericalPrecisionPolicy(QSql::LowPrecisionDouble);
    query.prepare(QStringLiteral("SELECT step, time, kind, message FROM events WHERE run_id = ? ORDER BY step, rowid"));
    query.addBindValue(id);
    if (!query.exec())
        return runDbError(QStringLiteral("cannot read the events of run %1").arg(id), m_path, query.lastError());
    QList<RunEvent> events;
    while (query.next())
        events.append({query.value(0).toLongLong(), doubleOrNaN(query.value(1)), query.value(2).toString(),
                       query.value(3).toString()});
    if (const std::optional<Error> cut = rowsCutShort(query, QStringLiteral("cannot read the events of run %1").arg(id), m_path))
        return *cut;
    return events;
}

Result<QList<CheckpointRecord>> RunDatabase::checkpoints(qint64 id) const
{
    if (Status exists = requireRun(id); !exists.ok())
        return exists.error();
    QSqlQuery query(m_db);
    query.prepare(QStringLiteral("SELECT step, epoch, path, sha256, kind FROM checkpoints WHERE run_id = ? ORDER BY step, rowid"));
    query.addBindValue(id);
    if (!query.exec())
        return runDbError(QStringLiteral("cannot read the checkpoints of run %1").arg(id), m_path, query.lastError());
    QList<CheckpointRecord> records;
    while (query.next())
        records.append({query.value(0).toLongLong(), query.value(1).toInt(), query.value(2).toString(), query.value(3).toString(),
                        query.value(4).toString() == QStringLiteral("best")});
    if (const std::optional<Error> cut = rowsCutShort(query, QStringLiteral("cannot read the checkpoints of run %1").arg(id), m_path))
        return *cut;
    return records;
}

Result<QList<StageRecord>> RunDatabase::stages(qint64 id) const
{
    if (Status exists = requireRun(id); !exists.ok())
        return exists.error();
    const QString what = QStringLiteral("cannot read the stages of run %1").arg(id);
    QSqlQuery query(m_db);
    query.prepare(QStringLiteral("SELECT idx, name, start_step, end_step, start_epoch, epochs, frozen_json FROM stages"
                                 " WHERE run_id = ? ORDER BY idx"));
    query.addBindValue(id);
    if (!query.exec())
        return runDbError(what, m_path, query.lastError());
    QList<StageRecord> records;
    while (query.next()) {
        StageRecord r;
        r.index = query.value(0).toInt();
        r.name = query.value(1).toString();
        r.startStep = query.value(2).toLongLong();
        r.endStep = query.value(3).isNull() ? -1 : query.value(3).toLongLong();
        r.startEpoch = query.value(4).toInt();
        r.epochs = query.value(5).toInt();
        for (const QJsonValue &v : QJsonDocument::fromJson(query.value(6).toByteArray()).array())
            r.frozen << v.toString();
        records.append(r);
    }
    if (const std::optional<Error> cut = rowsCutShort(query, what, m_path))
        return *cut;
    return records;
}

} // namespace ty
