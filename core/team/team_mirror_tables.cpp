#include "team_mirror_tables.h"

#include "pg_connection.h"
#include "sqlite_connection.h"
#include "team_run_parents.h"
#include "team_schema.h"

#include <QStringList>

namespace ty {

namespace {

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
            QLatin1String(table), QStringLiteral("run_id, ") + bundleColumnList(columns), columns, QString()};
}

// Run alias `r` is running on the store and its machine has been silent for kTeamSilentRunSeconds; SQL.
QString silentRunCondition()
{
    return QStringLiteral("r.status = 'running' AND r.replicated_at < now() - interval '%1 seconds'").arg(kTeamSilentRunSeconds);
}

// What readers see of a silent running run (storeRunStatusSql()): why, and when it was last heard of.
QString silentRunColumn(const QByteArray &name)
{
    if (name == "status")
        return storeRunStatusSql();
    if (name == "status_message")
        return QStringLiteral("CASE WHEN %1 THEN 'its machine stopped replicating it (last heard of ' || to_char(r.replicated_at AT TIME ZONE 'UTC',"
                              " 'YYYY-MM-DD HH24:MI:SS') || ' UTC): its process was stopped, or its machine went away' ELSE r.status_message END")
            .arg(silentRunCondition());
    if (name == "ended_at")
        return QStringLiteral("CASE WHEN %1 THEN coalesce(r.heartbeat_at, r.ended_at) ELSE r.ended_at END").arg(silentRunCondition());
    return QString();
}

} // namespace

QString storeRunStatusSql()
{
    return QStringLiteral("CASE WHEN %1 THEN 'interrupted' ELSE r.status END").arg(silentRunCondition());
}

MirroredTable mirroredRunsTable(bool withPreset, int storeVersion)
{
    const BundleColumns columns = joined(joined(bundleRunColumns(), teamRunExtraColumns()), teamRunKindColumns());
    const bool kinds = storeVersion >= kTeamSchemaRunKinds;
    QStringList selected, updates;
    for (const BundleColumn &column : columns) {
        const QByteArray name(column.name);
        if (!withPreset && name == "preset_json")
            selected << QStringLiteral("'{}'");
        else if (const QString silent = silentRunColumn(name); !silent.isEmpty())
            selected << silent;
        else if (name == "kind")  // pushed before schema step 4, or by a build before it: a training run
            selected << (kinds ? QStringLiteral("coalesce(r.kind, 'train')") : QStringLiteral("'train'"));
        else if (name == "result_json" && !kinds)
            selected << QStringLiteral("NULL");
        else
            selected << QStringLiteral("r.") + QLatin1String(column.name);
        updates << QStringLiteral("%1 = excluded.%1").arg(QLatin1String(column.name));
    }
    return {QStringLiteral("SELECT r.id, %1 FROM trainyard.runs r WHERE %2 ORDER BY r.id").arg(selected.join(QStringLiteral(", ")), QStringLiteral("%1")),
            QStringLiteral("runs"), QStringLiteral("id, ") + bundleColumnList(columns), columns,
            QStringLiteral(" ON CONFLICT (id) DO UPDATE SET ") + updates.join(QStringLiteral(", "))};
}

QList<MirroredTable> mirroredListTables()
{
    return {childTable("run_tags", {{"tag", BundleColumn::Text, false}}, QStringLiteral("t.tag")),
            childTable("metric_summaries", teamMetricSummaryColumns(), QStringLiteral("t.name"))};
}

QList<MirroredTable> mirroredDetailTables()
{
    return {childTable("run_params", {{"key", BundleColumn::Text, false}, {"value", BundleColumn::Text, true}}, QStringLiteral("t.key")),
            childTable("events", bundleEventColumns(), QStringLiteral("t.seq")),
            childTable("stages", bundleStageColumns(), QStringLiteral("t.idx")),
            childTable("checkpoints", joined(bundleCheckpointColumns(), {{"path", BundleColumn::Text, true}}), QStringLiteral("t.seq")),
            childTable("evaluations", bundleEvaluationColumns(), QStringLiteral("t.created_at, t.split"))};
}

MirroredTable mirroredMetricsTable()
{
    return childTable("metrics", teamMetricColumns(), QStringLiteral("t.name, t.step"));
}

Result<qint64> copyMirroredRows(PgConnection &server, SqliteConnection &local, const MirroredTable &table, const QString &filter,
                                const QVariantList &params)
{
    const QString what = QStringLiteral("cannot read the team store's %1").arg(table.localTable);
    Result<PgResult> rows = server.exec(table.select.arg(filter), params, what);
    if (!rows)
        return rows.error();
    QStringList marks;
    for (int i = 0; i <= table.columns.size(); ++i)
        marks << QStringLiteral("?");
    SqliteStatement insert;
    const QString sql = QStringLiteral("INSERT INTO %1 (%2) VALUES (%3)%4")
                            .arg(table.localTable, table.localColumns, marks.join(QLatin1Char(',')), table.onConflict);
    const QString copying = QStringLiteral("cannot copy the team store's %1").arg(table.localTable);
    if (Status prepared = insert.prepare(local, sql.toUtf8(), copying); !prepared.ok())
        return prepared.error();
    // A run's parent under the store's id (team_run_parents.h): the store ids of the parents these runs name.
    const int provenance = table.localTable == QLatin1String("runs") ? bundleColumnIndex(table.columns, "provenance_json") : -1;
    QHash<QString, qint64> parentIds;
    if (provenance >= 0) {
        QStringList parents;
        for (int row = 0; row < rows.value().rows(); ++row)
            if (const QString uuid = parentUuidOf(rows.value().text(row, provenance + 1)); !uuid.isEmpty())
                parents << uuid;
        Result<QHash<QString, qint64>> ids = storeIdsOfRuns(server, parents);
        if (!ids)
            return ids.error();
        parentIds = ids.value();
    }
    for (int row = 0; row < rows.value().rows(); ++row) {
        QVariantList values{rows.value().value(row, 0, BundleColumn::Integer)};
        for (int column = 0; column < table.columns.size(); ++column)
            values << rows.value().value(row, column + 1, table.columns[column].kind);
        if (provenance >= 0 && !values.at(provenance + 1).isNull())
            values[provenance + 1] = provenanceWithStoreParent(values.at(provenance + 1).toString(), parentIds);
        bindBundleRow(insert, 1, values);
        if (Status done = insert.run(copying); !done.ok())
            return done.error();
    }
    return qint64(rows.value().rows());
}

} // namespace ty
