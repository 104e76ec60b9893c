// The sweep report (run_report.h): the trial table, the metric by trial, the importance of the searched parameters,
// the base preset and where the sweep ran.

#include "json_io.h"
#include "report_charts.h"
#include "report_html.h"
#include "report_importance.h"
#include "report_page.h"
#include "report_sections.h"
#include "run_database.h"
#include "run_report.h"
#include "sweep_trial_rows.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace ty {

namespace {

QString trialsSectionBody(const SweepRecord &sweep, const QList<SweepTrialRow> &rows, QJsonArray *data)
{
    const QStringList keys = sweepKeys(rows);
    QList<TableCell> header{TableCell::number(QStringLiteral("trial")), TableCell::number(QStringLiteral("run")), QStringLiteral("status"),
                            TableCell::number(sweep.metric)};
    for (const QString &key : keys)
        header.append(key);
    QList<QList<TableCell>> table;
    ChartSeries values;
    values.label = sweep.metric;
    values.dots = true;
    for (const SweepTrialRow &row : rows) {
        QList<TableCell> cells{TableCell::number(QString::number(row.trial)),
                               TableCell::number(row.runId ? QString::number(row.runId) : QStringLiteral("-")), row.status,
                               TableCell::number(row.value ? reportNumber(*row.value, 6) : QStringLiteral("-"))};
        for (const QString &key : keys)
            cells.append(sweepTrialValue(row.sets, key));
        if (row.runId != 0 && row.runId == sweep.bestRun)
            for (TableCell &cell : cells)
                cell.cssClass = (cell.cssClass + QStringLiteral(" best")).trimmed();
        table.append(cells);
        if (row.value) {
            values.x.push_back(row.trial);
            values.y.push_back(*row.value);
        }
        data->append(QJsonObject{{QStringLiteral("trial"), row.trial}, {QStringLiteral("set"), QJsonArray::fromStringList(row.sets)},
                                 {QStringLiteral("run"), row.runId ? QJsonValue(row.runId) : QJsonValue()},
                                 {QStringLiteral("status"), row.status},
                                 {QStringLiteral("value"), row.value ? QJsonValue(*row.value) : QJsonValue()}});
    }
    return lineChartSvg(QStringLiteral("%1 by trial (%2 is better)").arg(sweep.metric, sweep.maximize ? QStringLiteral("higher") : QStringLiteral("lower")),
                        values.x.empty() ? QList<ChartSeries>() : QList<ChartSeries>{values}, ChartAxes{QStringLiteral("trial"), sweep.metric})
           + paragraph(QStringLiteral("Best first; the best trial is shaded."), QStringLiteral("note")) + dataTable(header, table);
}

} // namespace

Result<QByteArray> sweepReportHtml(const RunDatabase &db, qint64 sweepId, const ReportOptions &options)
{
    Q_UNUSED(options);
    const Result<SweepRecord> sweep = db.sweep(sweepId);
    if (!sweep)
        return sweep.error();
    const Result<QList<SweepTrialRow>> rows = sweepTrialRows(db, sweep.value());
    if (!rows)
        return rows.error();
    const SweepRecord &s = sweep.value();

    ReportPage page(QStringLiteral("Sweep %1%2").arg(s.id).arg(s.name.isEmpty() ? QString() : QStringLiteral(": ") + s.name));
    page.setSubtitle(htmlEscaped(QStringLiteral("%1 \u00b7 %2 of %3 trials ended \u00b7 %4, %5 is better")
                                     .arg(s.status)
                                     .arg(endedTrials(rows.value()))
                                     .arg(rows.value().size())
                                     .arg(s.metric, s.maximize ? QStringLiteral("higher") : QStringLiteral("lower"))));
    QJsonArray trialsData;
    page.addSection(QStringLiteral("trials"), QStringLiteral("Trials"), trialsSectionBody(s, rows.value(), &trialsData));
    QJsonObject importanceData;
    const QString importance = importanceSectionBody(s, rows.value(), &importanceData);
    if (!importance.isEmpty())
        page.addSection(QStringLiteral("importance"), QStringLiteral("Parameter importance"), importance);
    QJsonObject presetData;
    page.addSection(QStringLiteral("preset"), QStringLiteral("Preset"), presetSectionBody(s.preset, s.presetFile, &presetData));
    const QList<QPair<QString, QString>> facts{
        {QStringLiteral("Sweep"), QStringLiteral("%1 (uuid %2)").arg(s.id).arg(s.uuid)},
        {QStringLiteral("Status"), s.status},
        {QStringLiteral("Metric"), QStringLiteral("%1, %2").arg(s.metric, s.maximize ? QStringLiteral("maximized") : QStringLiteral("minimized"))},
        {QStringLiteral("Best run"), s.bestRun ? QString::number(s.bestRun) : QStringLiteral("-")},
        {QStringLiteral("Created"), s.createdAt.isValid() ? s.createdAt.toUTC().toString(Qt::ISODate) : QStringLiteral("-")},
        {QStringLiteral("Ended"), s.endedAt.isValid() ? s.endedAt.toUTC().toString(Qt::ISODate) : QStringLiteral("-")},
        {QStringLiteral("Driver"), QStringLiteral("%1 (process %2)").arg(s.host).arg(s.pid)},
        {QStringLiteral("Preset file"), s.presetFile}};
    page.addSection(QStringLiteral("provenance"), QStringLiteral("Environment and provenance"),
                    factsTable(facts) + QStringLiteral("<h3>Search</h3>") + jsonBlock(s.spec));

    const QJsonObject sweepData{{QStringLiteral("id"), s.id}, {QStringLiteral("uuid"), s.uuid}, {QStringLiteral("name"), s.name},
                                {QStringLiteral("status"), s.status}, {QStringLiteral("metric"), s.metric},
                                {QStringLiteral("goal"), s.maximize ? QStringLiteral("maximize") : QStringLiteral("minimize")},
                                {QStringLiteral("best_run"), s.bestRun ? QJsonValue(s.bestRun) : QJsonValue()},
                                {QStringLiteral("created_at"), jsonTime(s.createdAt)}, {QStringLiteral("ended_at"), jsonTime(s.endedAt)},
                                {QStringLiteral("host"), s.host}, {QStringLiteral("preset_file"), s.presetFile},
                                {QStringLiteral("spec"), s.spec}};
    return page.finish(QJsonDocument(QJsonObject{{QStringLiteral("format"), QStringLiteral("trainyard-report")},
                                                 {QStringLiteral("version"), 1},
                                                 {QStringLiteral("kind"), QStringLiteral("sweep")},
                                                 {QStringLiteral("sweep"), sweepData},
                                                 {QStringLiteral("trials"), trialsData},
                                                 {QStringLiteral("importance"), importanceData},
                                                 {QStringLiteral("preset"), presetData}})
                           .toJson(QJsonDocument::Compact));
}

} // namespace ty
