#include "event_stream.h"

#include "commands.h"
#include "event_kinds.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <cmath>

namespace ty::cli {

namespace {

QJsonValue number(double v)
{
    return std::isfinite(v) ? QJsonValue(v) : QJsonValue();
}

QJsonObject metricMap(const QMap<QString, double> &metrics)
{
    QJsonObject out;
    for (auto it = metrics.constBegin(); it != metrics.constEnd(); ++it)
        out.insert(it.key(), number(it.value()));
    return out;
}

} // namespace

void EventStream::write(const QJsonObject &object)
{
    m_out << QJsonDocument(object).toJson(QJsonDocument::Compact) << '\n';
    m_out.flush();
}

void EventStream::started(qint64 runId, const QString &dbPath, const TrainStart &start)
{
    write({{QStringLiteral("event"), eventKindName(EventKind::Started)}, {QStringLiteral("run_id"), runId},
           {QStringLiteral("db"), dbPath}, {QStringLiteral("device"), start.device},
           {QStringLiteral("train_samples"), start.trainSamples}, {QStringLiteral("val_samples"), start.valSamples},
           {QStringLiteral("test_samples"), start.testSamples}, {QStringLiteral("steps_per_epoch"), start.stepsPerEpoch},
           {QStringLiteral("total_steps"), start.totalSteps}, {QStringLiteral("epochs"), start.epochs},
           {QStringLiteral("parameters"), start.parameters}, {QStringLiteral("resumed_at_step"), start.resumedAtStep},
           {QStringLiteral("data_loaded_ahead"), start.dataLoadedAhead}});
}

void EventStream::metrics(const QList<MetricSample> &samples)
{
    QJsonArray rows;
    for (const MetricSample &s : samples)
        rows.append(QJsonArray{s.name, s.step, s.epoch, s.time, number(s.value)});
    write({{QStringLiteral("event"), eventKindName(EventKind::Metrics)}, {QStringLiteral("columns"),
           QJsonArray{QStringLiteral("name"), QStringLiteral("step"), QStringLiteral("epoch"), QStringLiteral("time"), QStringLiteral("value")}},
           {QStringLiteral("rows"), rows}});
}

void EventStream::epoch(int epoch, qint64 step, const QMap<QString, double> &metrics)
{
    write({{QStringLiteral("event"), eventKindName(EventKind::Epoch)}, {QStringLiteral("epoch"), epoch}, {QStringLiteral("step"), step},
           {QStringLiteral("metrics"), metricMap(metrics)}});
}

void EventStream::checkpoint(const CheckpointInfo &checkpoint)
{
    write({{QStringLiteral("event"), eventKindName(EventKind::Checkpoint)}, {QStringLiteral("step"), checkpoint.step},
           {QStringLiteral("epoch"), checkpoint.epoch}, {QStringLiteral("path"), checkpoint.path}});
}

void EventStream::note(const QString &kind, const QString &message, qint64 step)
{
    write({{QStringLiteral("event"), kind}, {QStringLiteral("message"), message}, {QStringLiteral("step"), step}});
}

void EventStream::finished(qint64 runId, const QString &status, const TrainResult &result)
{
    write({{QStringLiteral("event"), eventKindName(EventKind::Finished)}, {QStringLiteral("run_id"), runId},
           {QStringLiteral("status"), status}, {QStringLiteral("message"), result.message},
           {QStringLiteral("node"), result.errorNode}, {QStringLiteral("steps"), result.steps},
           {QStringLiteral("epochs"), result.epochs}, {QStringLiteral("summary"), metricMap(result.lastMetrics)},
           {QStringLiteral("checkpoint"), result.finalCheckpoint}});
}

void EventStream::error(const Error &error)
{
    writeErrorEvent(m_out, error);
}

} // namespace ty::cli
