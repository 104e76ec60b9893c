#include "team_mirror.h"

#include "pg_connection.h"
#include "sqlite_connection.h"
#include "team_schema.h"

#include <QSet>
#include <QStringList>

namespace ty {

namespace {

// The server's runs.id as $run_id, then the table's columns.
struct MirroredTable {
    QString select;      // SELECT run_id, columns... (the filter and order are added)
    QString localTable;
    QString localColumns;  // run_id, columns...
    BundleColumns columns;
};

BundleColumns joined(BundleColumns columns, const BundleColumns &more)
{
    columns += more;
    return columns;
}

QString prefixed(const BundleColumns &columns, const QString &alias)
{
    QStringList names;
    for (const BundleColumn &column : columns)
        names << alias + QLatin1Char('.') + QLatin1String(column.name);
    return names.join(QStringLiteral(", "));
}

MirroredTable childTable(const char *table, const BundleColumns &columns, const QString &order)
{
    return {QStringLiteral("SELECT r.id, %1 FROM trainyard.%2 t JOIN trainyard.runs r ON r.uuid = t.run_uuid WHERE %3 ORDER BY r.id, %4")
                .arg(prefixed(columns, QStringLiteral("t")), QLatin1String(table), QStringLiteral("%1"), order),
            QLatin1String(table), QStringLiteral("run_id, ") + bundleColumnList(columns), columns};
}

Status copyRows(PgConnection &server, SqliteConnection &scratch, const MirroredTable &table, const QString &filter, const QVariantList &params)
{
    const QString what = QStringLiteral("cannot read the team store's %1").arg(table.localTable);
    Result<PgResult> rows = server.exec(table.select.arg(filter), params, what);
    if (!rows)
        return rows.error();
    QStringList marks;
    for (int i = 0; i <= table.columns.size(); ++i)
        marks << QStringLiteral("?");
    SqliteStatement insert;
    const QString sql = QStringLiteral("INSERT INTO %1 (%2) VALUES (%3)").arg(table.localTable, table.localColumns, marks.join(QLatin1Char(',')));
    if (Status prepared = insert.prepare(scratch, sql.toUtf8(), QStringLiteral("cannot copy the team store's %1").arg(table.localTable)); !prepared.ok())
        return prepared;
    for (int row = 0; row < rows.value().rows(); ++row) {
        QVariantList values{rows.value().value(row, 0, BundleColumn::Integer)};
        for (int column = 0; column < table.columns.size(); ++column)
            values << rows.value().value(row, column + 1, table.columns[column].kind);
        bindBundleRow(insert, 1, values);
        if (Status done = insert.run(QStringLiteral("cannot copy the team store's %1").arg(table.localTable)); !done.ok())
            return done;
    }
    return Status::success();
}

MirroredTable runsTable(bool withPreset)
{
    const BundleColumns columns = joined(bundleRunColumns(), teamRunExtraColumns());
    QStringList selected;
    for (const BundleColumn &column : columns)
        selected << (!withPreset && QByteArray(column.name) == "preset_json" ? QStringLiteral("'{}'") : QStringLiteral("r.") + QLatin1String(column.name));
    return {QStringLiteral("SELECT r.id, %1 FROM trainyard.runs r WHERE %2 ORDER BY r.id").arg(selected.join(QStringLiteral(", ")), QStringLiteral("%1")),
            QStringLiteral("runs"), QStringLiteral("id, ") + bundleColumnList(columns), columns};
}

} // namespace

Status mirrorTeamRuns(PgConnection &server, const QString &scratchPath, const TeamMirrorRequest &request)
{
    if (Status schema = checkTeamSchemaForReading(server); !schema.ok())
        return schema;
    SqliteConnection scratch;
    if (Status opened = scratch.open(scratchPath); !opened.ok())
        return opened;
    if (Status begun = scratch.exec("BEGIN", QStringLiteral("cannot fill the scratch database")); !begun.ok())
        return begun;

    QString filter = QStringLiteral("true");
    QVariantList params;
    if (!request.list) {
        QStringList ids;
        for (qint64 id : request.runIds)
            ids << QString::number(id);
        params << QStringLiteral("{%1}").arg(ids.join(QLatin1Char(',')));
        filter = QStringLiteral("r.id = ANY($1::bigint[])");
        Result<PgResult> found = server.exec(QStringLiteral("SELECT id FROM trainyard.runs r WHERE %1").arg(filter), params,
                                             QStringLiteral("cannot read the team store's runs"));
        if (!found)
            return found.error();
        QSet<qint64> present;
        for (int row = 0; row < found.value().rows(); ++row)
            present.insert(found.value().integer(row, 0));
        for (qint64 id : request.runIds)
            if (!present.contains(id))
                return Error(QStringLiteral("no run with id %1 on the team store %2").arg(id).arg(server.name()));
    }

    QList<MirroredTable> tables{runsTable(!request.list),
                                childTable("run_tags", {{"tag", BundleColumn::Text, false}}, QStringLiteral("t.tag")),
                                childTable("metric_summaries", teamMetricSummaryColumns(), QStringLiteral("t.name"))};
    if (!request.list) {
        tables << childTable("run_params", {{"key", BundleColumn::Text, false}, {"value", BundleColumn::Text, true}}, QStringLiteral("t.key"))
               << childTable("events", bundleEventColumns(), QStringLiteral("t.seq"))
               << childTable("stages", bundleStageColumns(), QStringLiteral("t.idx"))
               << childTable("checkpoints", joined(bundleCheckpointColumns(), {{"path", BundleColumn::Text, true}}), QStringLiteral("t.seq"))
               << childTable("evaluations", bundleEvaluationColumns(), QStringLiteral("t.created_at, t.split"));
    }
    for (const MirroredTable &table : tables)
        if (Status copied = copyRows(server, scratch, table, filter, params); !copied.ok())
            return copied;

    if (!request.list) {
        MirroredTable metrics = childTable("metrics", teamMetricColumns(), QStringLiteral("t.name, t.step"));
        QString metricFilter = filter;
        QVariantList metricParams = params;
        if (!request.metric.isEmpty()) {
            metricFilter += QStringLiteral(" AND t.name = $2");
            metricParams << request.metric;
        } else if (!request.everyMetric) {
            // What `runs show` reads: each metric's last row and the speed reports.
            metricFilter += QStringLiteral(" AND (t.name LIKE 'speed/%' OR t.step = (SELECT max(l.step) FROM trainyard.metrics l"
                                           " WHERE l.run_uuid = t.run_uuid AND l.name = t.name))");
        }
        if (Status copied = copyRows(server, scratch, metrics, metricFilter, metricParams); !copied.ok())
            return copied;
    }
    return scratch.exec("COMMIT", QStringLiteral("cannot fill the scratch database"));
}

} // namespace ty
