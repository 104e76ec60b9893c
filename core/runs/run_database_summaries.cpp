// RunDatabase: the run browser's queries (summaries of many runs, per-metric summaries of one run, the change
// stamp to poll). The best and last values come from metric_summaries, kept by RunWriter: no metric row is read.

#include "run_database.h"

#include "run_sqlite.h"

#include <QJsonDocument>
#include <QSqlQuery>

#include <algorithm>
#include <limits>

namespace ty {

namespace {

double doubleOrNaN(const QVariant &value)
{
    return value.isNull() ? std::numeric_limits<double>::quiet_NaN() : value.toDouble();
}

// Reads count, min, max, last step and last value from `first` on.
MetricSummary summaryFromColumns(const QSqlQuery &query, int first, const QString &name)
{
    MetricSummary s;
    s.name = name;
    s.count = query.value(first).toLongLong();
    s.minimum = doubleOrNaN(query.value(first + 1));
    s.maximum = doubleOrNaN(query.value(first + 2));
    s.lastStep = query.value(first + 3).toLongLong();
    s.last = doubleOrNaN(query.value(first + 4));
    return s;
}

const char kSummaryColumns[] =
    "r.id, r.name, r.status, r.status_message, r.error_node,"
    " CASE WHEN json_valid(r.preset_json) THEN json_extract(r.preset_json, '$.name') END,"
    " r.created_at, r.started_at, r.ended_at, r.heartbeat_at, r.device, r.notes, r.host, r.pid,"
    " (SELECT group_concat(tag, char(31)) FROM run_tags t WHERE t.run_id = r.id),"
    // The parent without its import report's tensors (their counts stay): a summary row stays small whatever the
    // network; the run's own record has the whole report.
    " CASE WHEN json_valid(r.provenance_json) THEN json_remove(json_extract(r.provenance_json, '$.init_from'),"
    " '$.import.copied', '$.import.skipped', '$.import.missing', '$.import.mismatched') END,"
    " r.kind";
constexpr int kFirstMetricColumn = 17;
constexpr int kColumnsPerMetric = 5;

RunSummaryRow summaryRowFromQuery(const QSqlQuery &query)
{
    RunSummaryRow row;
    row.id = query.value(0).toLongLong();
    row.name = query.value(1).toString();
    const QString statusName = query.value(2).toString();
    row.statusMessage = query.value(3).toString();
    if (const std::optional<RunStatus> status = runStatusFromName(statusName)) {
        row.status = *status;
    } else {
        row.status = RunStatus::Failed;
        row.statusMessage = QStringLiteral("unknown status '%1'; %2").arg(statusName, row.statusMessage);
    }
    row.errorNode = query.value(4).toString();
    row.presetName = query.value(5).toString();
    row.createdAt = fromRunDbTime(query.value(6));
    row.startedAt = fromRunDbTime(query.value(7));
    row.endedAt = fromRunDbTime(query.value(8));
    row.heartbeatAt = fromRunDbTime(query.value(9));
    row.device = query.value(10).toString();
    row.notes = query.value(11).toString();
    row.host = query.value(12).toString();
    row.pid = query.value(13).toLongLong();
    const QString tags = query.value(14).toString();
    if (!tags.isEmpty()) {
        row.tags = tags.split(QChar(31));
        std::sort(row.tags.begin(), row.tags.end());
    }
    if (!query.value(15).isNull())
        row.parent = QJsonDocument::fromJson(query.value(15).toByteArray()).object();
    row.kind = query.value(16).toString();
    const QStringList &names = keyMetricNames();
    for (int i = 0; i < names.size(); ++i) {
        const int first = kFirstMetricColumn + i * kColumnsPerMetric;
        if (!query.value(first).isNull())
            row.keyMetrics.insert(names.at(i), summaryFromColumns(query, first, names.at(i)));
    }
    return row;
}

} // namespace

Result<QList<RunSummaryRow>> RunDatabase::runSummaries(const RunSummaryQuery &request) const
{
    QString sql = QStringLiteral("SELECT ") + QLatin1String(kSummaryColumns);
    QString joins;
    QVariantList binds;
    const QStringList &names = keyMetricNames();
    // With the team copy attached, metric_summaries is a view that SQLite would build whole for each join: the
    // key metrics are read after the runs instead, in one query through the indexes (keyMetricsOfRows).
    const bool joinMetrics = m_teamCopy.isEmpty();
    for (int i = 0; joinMetrics && i < names.size(); ++i) {
        sql += QStringLiteral(", s%1.count, s%1.min_value, s%1.max_value, s%1.last_step, s%1.last_value").arg(i);
        joins += QStringLiteral(" LEFT JOIN metric_summaries s%1 ON s%1.run_id = r.id AND s%1.name = ?").arg(i);
        binds << names.at(i);
    }
    sql += QStringLiteral(" FROM runs r") + joins;
    QStringList conditions;
    if (request.afterId != 0) {  // ids below 0: the team copy's runs (attachTeamCopy)
        conditions << QStringLiteral("r.id > ?");
        binds << request.afterId;
    }
    if (request.beforeId != 0) {
        conditions << QStringLiteral("r.id < ?");
        binds << request.beforeId;
    }
    if (!request.ids.isEmpty()) {
        QStringList marks;
        for (qint64 id : request.ids) {
            marks << QStringLiteral("?");
            binds << id;
        }
        conditions << QStringLiteral("r.id IN (%1)").arg(marks.join(QLatin1Char(',')));
    }
    if (request.activeOnly) {
        conditions << QStringLiteral("r.status IN (?, ?)");
        binds << runStatusName(RunStatus::Queued) << runStatusName(RunStatus::Running);
    }
    if (!conditions.isEmpty())
        sql += QStringLiteral(" WHERE ") + conditions.join(QStringLiteral(" AND "));
    sql += QStringLiteral(" ORDER BY r.id DESC");
    if (request.limit > 0)
        sql += QStringLiteral(" LIMIT %1").arg(request.limit);

    QSqlQuery query(m_db);
    query.setNumericalPrecisionPolicy(QSql::LowPrecisionDouble);
    query.setForwardOnly(true);
    if (!query.prepare(sql))
        return runDbError(QStringLiteral("cannot summarise runs"), m_path, query.lastError());
    for (const QVariant &value : binds)
        query.addBindValue(value);
    if (!query.exec())
        return runDbError(QStringLiteral("cannot summarise runs"), m_path, query.lastError());
    QList<RunSummaryRow> rows;
    while (query.next())
        rows.append(summaryRowFromQuery(query));
    if (const std::optional<Error> cut = rowsCutShort(query, QStringLiteral("cannot summarise runs"), m_path))
        return *cut;
    if (!joinMetrics && !rows.isEmpty())
        if (Status read = readKeyMetrics(rows); !read.ok())
            return read.error();
    return rows;
}

Status RunDatabase::readKeyMetrics(QList<RunSummaryRow> &rows) const
{
    QHash<qint64, int> rowOfRun;
    QStringList ids, marks;
    for (int i = 0; i < rows.size(); ++i) {
        rowOfRun.insert(rows.at(i).id, i);
        ids << QString::number(rows.at(i).id);
    }
    const QStringList &names = keyMetricNames();
    for (int i = 0; i < names.size(); ++i)
        marks << QStringLiteral("?");
    QSqlQuery query(m_db);
    query.setNumericalPrecisionPolicy(QSql::LowPrecisionDouble);
    query.setForwardOnly(true);
    if (!query.prepare(QStringLiteral("SELECT run_id, name, count, min_value, max_value, last_step, last_value FROM metric_summaries"
                                      " WHERE run_id IN (%1) AND name IN (%2)")
                           .arg(ids.join(QLatin1Char(',')), marks.join(QLatin1Char(',')))))
        return runDbError(QStringLiteral("cannot summarise runs"), m_path, query.lastError());
    for (const QString &name : names)
        query.addBindValue(name);
    if (!query.exec())
        return runDbError(QStringLiteral("cannot summarise runs"), m_path, query.lastError());
    while (query.next()) {
        const auto at = rowOfRun.constFind(query.value(0).toLongLong());
        if (at == rowOfRun.constEnd())
            continue;
        const QString name = query.value(1).toString();
        rows[at.value()].keyMetrics.insert(name, summaryFromColumns(query, 2, name));
    }
    if (const std::optional<Error> cut = rowsCutShort(query, QStringLiteral("cannot summarise runs"), m_path))
        return *cut;
    return Status::success();
}

Result<QList<MetricSummary>> RunDatabase::metricSummaries(qint64 id) const
{
    if (Status exists = requireRun(id); !exists.ok())
        return exists.error();
    QSqlQuery query(m_db);
    query.setNumericalPrecisionPolicy(QSql::LowPrecisionDouble);
    query.prepare(QStringLiteral("SELECT name, count, min_value, max_value, last_step, last_value"
                                 " FROM metric_summaries WHERE run_id = ? ORDER BY name"));
    query.addBindValue(id);
    if (!query.exec())
        return runDbError(QStringLiteral("cannot read the metric summaries of run %1").arg(id), m_path,
                          query.lastError());
    QList<MetricSummary> summaries;
    while (query.next())
        summaries.append(summaryFromColumns(query, 1, query.value(0).toString()));
    if (const std::optional<Error> cut = rowsCutShort(query, QStringLiteral("cannot read the metric summaries of run %1").arg(id), m_path))
        return *cut;
    return summaries;
}

Result<RunsChangeStamp> RunDatabase::changeStamp() const
{
    // Two index-only aggregates: every start, end and heartbeat happens to a queued or running run (found
    // through runs_by_status), and creation or deletion changes the count or the highest id.
    RunsChangeStamp stamp;
    QSqlQuery all(m_db);
    if (!all.exec(QStringLiteral("SELECT count(*), coalesce(max(id), 0) FROM runs")) || !all.next())
        return runDbError(QStringLiteral("cannot poll the runs"), m_path, all.lastError());
    stamp.count = all.value(0).toLongLong();
    stamp.maxId = all.value(1).toLongLong();
    QSqlQuery active(m_db);
    active.prepare(QStringLiteral("SELECT group_concat(id), max(heartbeat_at), max(started_at)"
                                  " FROM runs WHERE status IN (?, ?)"));
    active.addBindValue(runStatusName(RunStatus::Queued));
    active.addBindValue(runStatusName(RunStatus::Running));
    if (!active.exec() || !active.next())
        return runDbError(QStringLiteral("cannot poll the runs"), m_path, active.lastError());
    stamp.activeIds = active.value(0).toString();
    stamp.lastHeartbeat = active.value(1).toString();
    stamp.lastStarted = active.value(2).toString();
    return stamp;
}

Result<CommitStamp> RunDatabase::commitStamp() const
{
    QSqlQuery query(m_db);
    if (!query.exec(QStringLiteral("SELECT data_version, total_changes() FROM pragma_data_version")) || !query.next())
        return runDbError(QStringLiteral("cannot poll the database"), m_path, query.lastError());
    CommitStamp stamp{query.value(0).toLongLong(), query.value(1).toLongLong()};
    if (!m_teamCopy.isEmpty()) {  // data_version is per file: the mirror's commits move the copy's
        QSqlQuery copy(m_db);
        if (!copy.exec(QStringLiteral("PRAGMA team.data_version")) || !copy.next())
            return runDbError(QStringLiteral("cannot poll the team copy %1").arg(m_teamCopy), m_path, copy.lastError());
        stamp.teamCopyVersion = copy.value(0).toLongLong();
    }
    return stamp;
}

} // namespace ty
