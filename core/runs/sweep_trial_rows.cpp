#include "sweep_trial_rows.h"

#include "run_database.h"

#include <QJsonArray>
#include <QJsonObject>

#include <algorithm>
#include <cmath>

namespace ty {

namespace {

bool endedForGood(const QString &status)
{
    return status == QLatin1String("finished") || status == QLatin1String("pruned") || status == QLatin1String("diverged")
        || status == QLatin1String("failed");
}

} // namespace

Result<QList<SweepTrialRow>> sweepTrialRows(const RunDatabase &db, const SweepRecord &sweep)
{
    Result<QMap<int, RunInfo>> runs = db.sweepRuns(sweep.id);
    if (!runs)
        return runs.error();
    QList<SweepTrialRow> rows;
    for (const QJsonValue &value : sweep.trials) {
        const QJsonObject trial = value.toObject();
        SweepTrialRow row;
        row.trial = trial.value(QStringLiteral("index")).toInt();
        for (const QJsonValue &set : trial.value(QStringLiteral("set")).toArray())
            row.sets.append(set.toString());
        row.status = QStringLiteral("queued");
        if (runs.value().contains(row.trial)) {
            const RunInfo &run = runs.value().value(row.trial);
            row.runId = run.id;
            row.status = runStatusName(run.status);
            Result<QList<MetricSummary>> summaries = db.metricSummaries(run.id);
            if (!summaries)
                return summaries.error();
            for (const MetricSummary &summary : summaries.value()) {
                const double best = sweep.maximize ? summary.maximum : summary.minimum;
                if (summary.name == sweep.metric && std::isfinite(best))
                    row.value = best;
            }
        }
        rows.append(row);
    }
    rankSweepTrialRows(rows, sweep.maximize);
    return rows;
}

void rankSweepTrialRows(QList<SweepTrialRow> &rows, bool maximize)
{
    std::stable_sort(rows.begin(), rows.end(), [&](const SweepTrialRow &a, const SweepTrialRow &b) {
        if (a.value.has_value() != b.value.has_value())
            return a.value.has_value();
        if (!a.value)
            return false;
        return maximize ? *a.value > *b.value : *a.value < *b.value;
    });
}

int endedTrials(const QList<SweepTrialRow> &rows)
{
    return int(std::count_if(rows.begin(), rows.end(), [](const SweepTrialRow &row) { return endedForGood(row.status); }));
}

QStringList sweepKeys(const QList<SweepTrialRow> &rows)
{
    QStringList keys;
    for (const SweepTrialRow &row : rows)
        for (const QString &set : row.sets) {
            const QString key = set.section(QLatin1Char('='), 0, 0);
            if (!keys.contains(key))
                keys << key;
        }
    return keys;
}

QString sweepTrialValue(const QStringList &sets, const QString &key)
{
    for (const QString &set : sets)
        if (set.startsWith(key + QLatin1Char('=')))
            return set.mid(key.size() + 1);
    return QString();
}

} // namespace ty
