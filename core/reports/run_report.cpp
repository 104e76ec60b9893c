#include "run_report.h"

#include "json_io.h"
#include "number_text.h"
#include "report_charts.h"
#include "report_html.h"
#include "report_page.h"
#include "report_sections.h"
#include "report_series.h"
#include "run_database.h"
#include "run_process_state.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>
#include <QSaveFile>

namespace ty {

namespace {

QString timeText(const QDateTime &t)
{
    return t.isValid() ? t.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss 'UTC'")) : QStringLiteral("-");
}

QString curvesSectionBody(const QList<MetricSeries> &series, const ReportOptions &options)
{
    if (series.isEmpty())
        return paragraph(QStringLiteral("The run recorded no metric values."), QStringLiteral("note"));
    QString body;
    for (const MetricChartGroup &group : metricChartGroups(series)) {
        QList<ChartSeries> drawn;
        for (const int i : group.seriesIndices) {
            ChartSeries s = chartSeries(series[i], series[i].name, options.chartPointsPerSeries);
            s.dashed = series[i].name.startsWith(QStringLiteral("val/"));
            drawn.append(s);
        }
        body += lineChartSvg(group.title, drawn, ChartAxes{QStringLiteral("step"), group.title});
    }
    QList<QList<TableCell>> rows;
    for (const MetricSeries &s : series) {
        const double last = s.values.empty() ? qQNaN() : s.values.back();
        rows.append({s.name, TableCell::number(QString::number(qint64(s.values.size()))),
                     TableCell::number(s.steps.empty() ? QStringLiteral("-") : QString::number(s.steps.back())),
                     TableCell::number(s.epochs.empty() ? QStringLiteral("-") : QString::number(s.epochs.back())),
                     TableCell::number(reportNumber(last, 6))});
    }
    return body + QStringLiteral("<h3>Series</h3>")
           + dataTable({QStringLiteral("metric"), TableCell::number(QStringLiteral("points")), TableCell::number(QStringLiteral("last step")),
                        TableCell::number(QStringLiteral("last epoch")), TableCell::number(QStringLiteral("last value"))},
                       rows);
}

// What `runs show --json` tells of where the run ran and where it came from.
QString provenanceSectionBody(const RunInfo &run, const QList<StageRecord> &stages, const QList<CheckpointRecord> &checkpoints,
                              QJsonObject *data)
{
    QList<QPair<QString, QString>> facts{
        {QStringLiteral("Run"), QStringLiteral("%1 (uuid %2)").arg(run.id).arg(run.uuid)},
        {QStringLiteral("Status"), shownRunStatus(run.status, run.host, run.pid)
                                       + (run.statusMessage.isEmpty() ? QString() : QStringLiteral(": ") + run.statusMessage)},
        {QStringLiteral("Created"), timeText(run.createdAt)},
        {QStringLiteral("Started"), timeText(run.startedAt)},
        {QStringLiteral("Ended"), timeText(run.endedAt)},
        {QStringLiteral("Versions"), QStringLiteral("Trainyard %1, LibTorch %2, Qt %3").arg(run.appVersion, run.torchVersion, run.qtVersion)},
        {QStringLiteral("Machine"), QStringLiteral("%1 on %2 (process %3)").arg(run.device, run.host).arg(run.pid)},
        {QStringLiteral("Seed"), QString::number(run.seed)},
        {QStringLiteral("Preset hash"), QStringLiteral("sha256 ") + run.presetHash},
        {QStringLiteral("Folder"), run.folder}};
    if (!run.errorNode.isEmpty())
        facts.append({QStringLiteral("Error at node"), run.errorNode});
    if (!run.tags.isEmpty())
        facts.append({QStringLiteral("Tags"), run.tags.join(QStringLiteral(", "))});
    if (!run.notes.isEmpty())
        facts.append({QStringLiteral("Notes"), run.notes});
    if (run.sweepId > 0)
        facts.append({QStringLiteral("Sweep"), QStringLiteral("%1, trial %2").arg(run.sweepId).arg(run.sweepTrial)});
    const QJsonObject parent = run.provenance.value(QStringLiteral("init_from")).toObject();
    if (!parent.isEmpty())
        facts.append({QStringLiteral("Parent"), parent.contains(QStringLiteral("run"))
                                                    ? QStringLiteral("run %1 (%2), checkpoint at step %3")
                                                          .arg(parent.value(QStringLiteral("run")).toInteger())
                                                          .arg(parent.value(QStringLiteral("run_name")).toString())
                                                          .arg(parent.value(QStringLiteral("checkpoint_step")).toInteger())
                                                    : parent.value(QStringLiteral("file")).toString()});
    for (const StageRecord &s : stages)
        facts.append({QStringLiteral("Stage %1").arg(s.index + 1),
                      QStringLiteral("%1: steps %2 to %3, %4 epochs%5")
                          .arg(s.name)
                          .arg(s.startStep)
                          .arg(s.endStep >= 0 ? QString::number(s.endStep) : QStringLiteral("..."))
                          .arg(s.epochs)
                          .arg(s.frozen.isEmpty() ? QString() : QStringLiteral(", frozen ") + s.frozen.join(QStringLiteral(", ")))});
    if (!checkpoints.isEmpty())
        facts.append({QStringLiteral("Checkpoints"), QStringLiteral("%1, the last at step %2").arg(checkpoints.size()).arg(checkpoints.last().step)});

    QJsonArray checkpointsJson, stagesJson;
    for (const CheckpointRecord &c : checkpoints)
        checkpointsJson.append(QJsonObject{{QStringLiteral("step"), c.step}, {QStringLiteral("epoch"), c.epoch}, {QStringLiteral("path"), c.path},
                                           {QStringLiteral("sha256"), c.sha256}, {QStringLiteral("kind"), c.best ? QStringLiteral("best") : QStringLiteral("periodic")}});
    for (const StageRecord &s : stages)
        stagesJson.append(QJsonObject{{QStringLiteral("name"), s.name}, {QStringLiteral("start_step"), s.startStep},
                                      {QStringLiteral("end_step"), s.endStep >= 0 ? QJsonValue(s.endStep) : QJsonValue()},
                                      {QStringLiteral("epochs"), s.epochs}, {QStringLiteral("frozen"), QJsonArray::fromStringList(s.frozen)}});
    *data = QJsonObject{{QStringLiteral("id"), run.id}, {QStringLiteral("uuid"), run.uuid}, {QStringLiteral("name"), run.name},
                        {QStringLiteral("status"), runStatusName(run.status)}, {QStringLiteral("status_message"), run.statusMessage},
                        {QStringLiteral("error_node"), run.errorNode}, {QStringLiteral("preset_hash"), run.presetHash},
                        {QStringLiteral("created_at"), jsonTime(run.createdAt)}, {QStringLiteral("started_at"), jsonTime(run.startedAt)},
                        {QStringLiteral("ended_at"), jsonTime(run.endedAt)}, {QStringLiteral("app_version"), run.appVersion},
                        {QStringLiteral("torch_version"), run.torchVersion}, {QStringLiteral("qt_version"), run.qtVersion},
                        {QStringLiteral("device"), run.device}, {QStringLiteral("host"), run.host}, {QStringLiteral("pid"), run.pid},
                        {QStringLiteral("seed"), run.seed}, {QStringLiteral("provenance"), run.provenance},
                        {QStringLiteral("folder"), run.folder}, {QStringLiteral("notes"), run.notes},
                        {QStringLiteral("tags"), QJsonArray::fromStringList(run.tags)},
                        {QStringLiteral("sweep"), run.sweepId > 0 ? QJsonValue(run.sweepId) : QJsonValue()},
                        {QStringLiteral("sweep_trial"), run.sweepId > 0 ? QJsonValue(run.sweepTrial) : QJsonValue()},
                        {QStringLiteral("parent"), parent.isEmpty() ? QJsonValue() : QJsonValue(parent)},
                        {QStringLiteral("stages"), stagesJson}, {QStringLiteral("checkpoints"), checkpointsJson}};
    return factsTable(facts) + QStringLiteral("<h3>Provenance</h3>") + jsonBlock(run.provenance);
}

} // namespace

Result<QByteArray> runReportHtml(const RunDatabase &db, qint64 runId, const ReportOptions &options)
{
    const Result<RunInfo> run = db.run(runId);
    if (!run)
        return run.error();
    const Result<QList<MetricPoint>> metrics = db.metrics(runId);
    const Result<QList<EvaluationRecord>> evaluations = db.evaluations(runId);
    const Result<QList<StageRecord>> stages = db.stages(runId);
    const Result<QList<CheckpointRecord>> checkpoints = db.checkpoints(runId);
    if (!metrics || !evaluations || !stages || !checkpoints)
        return !metrics ? metrics.error() : !evaluations ? evaluations.error() : !stages ? stages.error() : checkpoints.error();
    const RunInfo &r = run.value();

    ReportPage page(QStringLiteral("Run %1: %2").arg(r.id).arg(r.name));
    page.setSubtitle(htmlEscaped(QStringLiteral("%1 \u00b7 %2 \u00b7 preset %3 \u00b7 created %4")
                                     .arg(shownRunStatus(r.status, r.host, r.pid), r.device,
                                          r.preset.value(QStringLiteral("name")).toString(), timeText(r.createdAt))));
    QJsonObject presetData, runData;
    page.addSection(QStringLiteral("preset"), QStringLiteral("Preset"),
                    presetSectionBody(r.preset, r.provenance.value(QStringLiteral("preset_file")).toString(), &presetData));
    const QList<MetricSeries> series = groupMetricSeries(metrics.value());
    page.addSection(QStringLiteral("curves"), QStringLiteral("Curves"), curvesSectionBody(series, options));
    QJsonValue evaluationData;
    if (!evaluations.value().isEmpty()) {
        const EvaluationRecord &newest = evaluations.value().first();
        page.addSection(QStringLiteral("evaluation"), QStringLiteral("Evaluation"), evaluationSectionBody(evaluationFromJson(newest.summary)));
        evaluationData = newest.summary;
    }
    page.addSection(QStringLiteral("provenance"), QStringLiteral("Environment and provenance"),
                    provenanceSectionBody(r, stages.value(), checkpoints.value(), &runData));

    // The data block: the run and its preset as JSON objects, then every series written out column by column.
    QByteArray head = QJsonDocument(QJsonObject{{QStringLiteral("format"), QStringLiteral("trainyard-report")},
                                                {QStringLiteral("version"), 1},
                                                {QStringLiteral("kind"), QStringLiteral("run")},
                                                {QStringLiteral("run"), runData},
                                                {QStringLiteral("preset"), presetData},
                                                {QStringLiteral("evaluation"), evaluationData}})
                          .toJson(QJsonDocument::Compact);
    head.chop(1);  // the closing brace: the series follow
    return page.finish(head + ",\"series\":" + metricSeriesJson(series) + '}');
}

Status writeReportFile(const QString &path, const QByteArray &html)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Error::inFile(path, QStringLiteral("cannot write the report: %1").arg(file.errorString()));
    if (file.write(html) != html.size() || !file.commit())
        return Error::inFile(path, QStringLiteral("cannot write the report: %1").arg(file.errorString()));
    return Status::success();
}

} // namespace ty
