#include "run_metric_summaries.h"

#include "run_sqlite.h"

#include <QSqlQuery>

namespace ty {

Status rebuildMetricSummaries(const QSqlDatabase &db, const QString &path, qint64 runId)
{
    const QString statements[] = {
        QStringLiteral("DELETE FROM metric_summaries WHERE run_id = ?"),
        QStringLiteral("INSERT INTO metric_summaries (run_id, name, count, min_value, max_value, last_step, last_value)"
                       " SELECT run_id, name, count(*), min(value), max(value), max(step), NULL"
                       " FROM metrics WHERE run_id = ? GROUP BY name"),
        QStringLiteral("UPDATE metric_summaries SET last_value = (SELECT m.value FROM metrics m"
                       " WHERE m.run_id = metric_summaries.run_id AND m.name = metric_summaries.name"
                       " ORDER BY m.step DESC, m.rowid DESC LIMIT 1) WHERE run_id = ?"),
    };
    for (const QString &sql : statements) {
        QSqlQuery query(db);
        query.prepare(sql);
        query.addBindValue(runId);
        if (!query.exec())
            return runDbError(QStringLiteral("cannot summarise the metrics of run %1").arg(runId), path,
                              query.lastError());
    }
    return Status::success();
}

} // namespace ty
