#pragma once
// `--events`: a machine-readable stream of JSON lines on stdout, one object per line, each naming its kind in
// "event" (docs/events.md). The desktop app reads it from the worker process it starts.

#include "error.h"
#include "trainer.h"

#include <QJsonObject>
#include <QTextStream>

namespace ty::cli {

class EventStream {
public:
    explicit EventStream(QTextStream &out) : m_out(out) {}

    void started(qint64 runId, const QString &dbPath, const TrainStart &start);
    void metrics(const QList<MetricSample> &samples);
    void epoch(int epoch, qint64 step, const QMap<QString, double> &metrics);
    void checkpoint(const CheckpointInfo &checkpoint);
    void note(const QString &kind, const QString &message, qint64 step);  // a note kind of event_kinds.h
    void finished(qint64 runId, const QString &status, const TrainResult &result);
    void error(const Error &error);  // bad input: no run was recorded

private:
    void write(const QJsonObject &object);
    QTextStream &m_out;
};

} // namespace ty::cli
