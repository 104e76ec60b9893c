#include "sweep_report.h"

#include "commands.h"
#include "json_io.h"
#include "printable_text.h"
#include "run_database.h"

#include <QJsonArray>

#include <algorithm>
#include <cmath>

namespace ty::cli {

namespace {

QString valueText(const std::optional<double> &value)
{
    return value ? QString::number(*value, 'g', 5) : QStringLiteral("-");
}

} // namespace

void printSweepTable(Io &io, const SweepRecord &sweep, const QList<SweepTrialRow> &rows)
{
    io.out << "sweep " << sweep.id << (sweep.name.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(printableExcerpt(sweep.name, 80)))
           << ": " << sweep.status << ", " << endedTrials(rows) << " of " << rows.size() << " trials ended; "
           << sweep.metric << ", " << (sweep.maximize ? "higher" : "lower") << " is better\n";
    io.out << QStringLiteral("%1  %2  %3  %4  %5\n").arg(QStringLiteral("trial"), 5).arg(QStringLiteral("run"), 5)
                  .arg(QStringLiteral("status"), -11).arg(sweep.metric, 12).arg(QStringLiteral("parameters"));
    for (const SweepTrialRow &row : rows) {
        const bool best = row.runId != 0 && row.runId == sweep.bestRun;
        io.out << QStringLiteral("%1  %2  %3  %4  %5%6\n")
                      .arg(row.trial, 5)
                      .arg(row.runId ? QString::number(row.runId) : QStringLiteral("-"), 5)
                      .arg(row.status, -11)
                      .arg(valueText(row.value), 12)
                      .arg(printableExcerpt(row.sets.join(QLatin1Char(' ')), 200), best ? QStringLiteral("  <- best") : QString());
    }
    io.out.flush();
}

void printSweepImportance(Io &io, const SweepRecord &sweep, const SweepImportance &importance)
{
    if (importance.parameters.isEmpty()) {
        io.out << "parameter importance: " << importance.absentReason << "\n";
        io.out.flush();
        return;
    }
    io.out << "parameter importance for " << sweep.metric << " (random forest, permutation importance +- spread over "
           << ImportanceSettings().repeats << " forests; " << importance.finishedTrials << " finished trials):\n";
    io.out << QStringLiteral("%1  %2  %3  %4  %5\n").arg(QStringLiteral("parameter"), -24).arg(QStringLiteral("importance"), 10)
                  .arg(QStringLiteral("spread"), 8).arg(QStringLiteral("spearman"), 8).arg(QStringLiteral("scale"));
    for (const ParameterImportance &p : importance.parameters)
        io.out << QStringLiteral("%1  %2  %3  %4  %5\n")
                      .arg(printableExcerpt(p.name, 24), -24)
                      .arg(p.importance, 10, 'f', 3)
                      .arg(p.spread, 8, 'f', 3)
                      .arg(p.spearman ? QString::number(*p.spearman, 'f', 2) : QStringLiteral("-"), 8)
                      .arg(parameterScaleName(p.scale));
    io.out.flush();
}

QJsonObject sweepJson(const SweepRecord &sweep, const QList<SweepTrialRow> &rows)
{
    QJsonArray trials;
    for (const SweepTrialRow &row : rows)
        trials.append(QJsonObject{{QStringLiteral("trial"), row.trial},
                                  {QStringLiteral("set"), QJsonArray::fromStringList(row.sets)},
                                  {QStringLiteral("run"), row.runId ? QJsonValue(row.runId) : QJsonValue()},
                                  {QStringLiteral("status"), row.status},
                                  {QStringLiteral("value"), row.value ? QJsonValue(*row.value) : QJsonValue()}});
    return QJsonObject{{QStringLiteral("id"), sweep.id},
                       {QStringLiteral("uuid"), sweep.uuid},
                       {QStringLiteral("host"), sweep.host},
                       {QStringLiteral("name"), sweep.name},
                       {QStringLiteral("status"), sweep.status},
                       {QStringLiteral("metric"), sweep.metric},
                       {QStringLiteral("goal"), sweep.maximize ? QStringLiteral("maximize") : QStringLiteral("minimize")},
                       {QStringLiteral("best_run"), sweep.bestRun ? QJsonValue(sweep.bestRun) : QJsonValue()},
                       {QStringLiteral("trials_total"), rows.size()},
                       {QStringLiteral("trials_ended"), endedTrials(rows)},
                       {QStringLiteral("created_at"), jsonTime(sweep.createdAt)},
                       {QStringLiteral("ended_at"), jsonTime(sweep.endedAt)},
                       {QStringLiteral("preset_file"), sweep.presetFile},
                       {QStringLiteral("spec"), sweep.spec},
                       {QStringLiteral("trials"), trials}};
}

void printSweepList(Io &io, const QList<QPair<SweepRecord, QList<SweepTrialRow>>> &sweeps, bool json)
{
    QJsonArray entries;
    if (!json)
        io.out << QStringLiteral("%1  %2  %3  %4  %5  %6\n").arg(QStringLiteral("id"), 4).arg(QStringLiteral("status"), -11)
                      .arg(QStringLiteral("trials"), 9).arg(QStringLiteral("best"), 12).arg(QStringLiteral("metric"), -14).arg(QStringLiteral("name"));
    for (const auto &[sweep, rows] : sweeps) {
        // Rows come best first; NaN when no trial has a value yet.
        const double best = !rows.isEmpty() && rows.first().value ? *rows.first().value : qQNaN();
        if (json) {
            QJsonObject entry = sweepJson(sweep, rows);
            entry.remove(QStringLiteral("trials"));
            entry.remove(QStringLiteral("spec"));
            entry.insert(QStringLiteral("best_value"), std::isfinite(best) ? QJsonValue(best) : QJsonValue());
            entries.append(entry);
            continue;
        }
        io.out << QStringLiteral("%1  %2  %3  %4  %5  %6\n")
                      .arg(sweep.id, 4)
                      .arg(sweep.status, -11)
                      .arg(QStringLiteral("%1/%2").arg(endedTrials(rows)).arg(rows.size()), 9)
                      .arg(std::isfinite(best) ? QString::number(best, 'g', 5) : QStringLiteral("-"), 12)
                      .arg(printableExcerpt(sweep.metric, 40), -14)
                      .arg(printableExcerpt(sweep.name, 80));
    }
    if (json)
        printJson(io, entries);
    io.out.flush();
}

} // namespace ty::cli
