#include "run_metric_summaries.h"

#include "run_sqlite.h"

#include <QHash>
#include <QSqlQuery>
#include <QVariant>

#include <cmath>

namespace ty {

namespace {

struct Fold {
    QString name;
    qint64 count = 0;
    double minimum = std::nan("");
    double maximum = std::nan("");
    qint64 lastStep = 0;
    double last = std::nan("");
};

QVariant orNull(double value) { return std::isnan(value) ? QVariant() : QVariant(value); }

} // namespace

Status upsertMetricSummaries(const QSqlDatabase &db, const QString &path, qint64 runId,
                             const std::vector<MetricPoint> &rows)
{
    // Names are few (a handful per run): fold the batch in memory, then one statement per name.
    std::vector<Fold> folds;
    QHash<QString, size_t> index;
    for (const MetricPoint &row : rows) {
        auto found = index.constFind(row.name);
        if (found == index.constEnd()) {
            found = index.insert(row.name, folds.size());
            folds.push_back(Fold{row.name});
            folds.back().lastStep = row.step;
        }
        Fold &fold = folds[found.value()];
        ++fold.count;
        if (!std::isnan(row.value)) {
            if (std::isnan(fold.minimum) || row.value < fold.minimum)
                fold.minimum = row.value;
            if (std::isnan(fold.maximum) || row.value > fold.maximum)
                fold.maximum = row.value;
        }
        if (row.step >= fold.lastStep) {  // the latest written row wins on ties, as in the metrics table
            fold.lastStep = row.step;
            fold.last = row.value;
        }
    }
    QSqlQuery upsert(db);
    const bool prepared = upsert.prepare(QStringLiteral(
        "INSERT INTO metric_summaries (run_id, name, count, min_value, max_value, last_step, last_value)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (run_id, name) DO UPDATE SET"
        " count = count + excluded.count,"
        " min_value = CASE WHEN min_value IS NULL OR excluded.min_value < min_value"
        "             THEN coalesce(excluded.min_value, min_value) ELSE min_value END,"
        " max_value = CASE WHEN max_value IS NULL OR excluded.max_value > max_value"
        "             THEN coalesce(excluded.max_value, max_value) ELSE max_value END,"
        " last_value = CASE WHEN excluded.last_step >= last_step THEN excluded.last_value ELSE last_value END,"
        " last_step = max(last_step, excluded.last_step)"));
    const QString what = QStringLiteral("cannot summarise the metrics of run %1").arg(runId);
    if (!prepared)
        return runDbError(what, path, upsert.lastError());
    for (const Fold &fold : folds) {
        upsert.bindValue(0, runId);
        upsert.bindValue(1, fold.name);
        upsert.bindValue(2, fold.count);
        upsert.bindValue(3, orNull(fold.minimum));
        upsert.bindValue(4, orNull(fold.maximum));
        upsert.bindValue(5, fold.lastStep);
        upsert.bindValue(6, orNull(fold.last));
        if (!upsert.exec())
            return runDbError(what, path, upsert.lastError());
    }
    return Status::success();
}

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
