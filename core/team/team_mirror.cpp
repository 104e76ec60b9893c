#include "team_mirror.h"

#include "pg_connection.h"
#include "sqlite_connection.h"
#include "team_mirror_tables.h"
#include "team_schema.h"

#include <QSet>
#include <QStringList>

namespace ty {

Status mirrorTeamRuns(PgConnection &server, const QString &scratchPath, const TeamMirrorRequest &request)
{
    const Result<int> version = checkTeamSchemaForReading(server);
    if (!version)
        return version.error();
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

    QList<MirroredTable> tables = QList<MirroredTable>{mirroredRunsTable(!request.list, version.value())} + mirroredListTables();
    if (!request.list)
        tables += mirroredDetailTables();
    for (MirroredTable &table : tables) {
        table.onConflict.clear();  // a fresh scratch database
        if (Result<qint64> copied = copyMirroredRows(server, scratch, table, filter, params); !copied)
            return copied.error();
    }

    if (!request.list) {
        const MirroredTable metrics = mirroredMetricsTable();
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
        if (Result<qint64> copied = copyMirroredRows(server, scratch, metrics, metricFilter, metricParams); !copied)
            return copied.error();
    }
    return scratch.exec("COMMIT", QStringLiteral("cannot fill the scratch database"));
}

} // namespace ty
