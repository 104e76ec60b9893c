#pragma once
// Reads a training worker's `--events` stream (JSON lines on its stdout, docs/events.md) incrementally and
// emits one typed signal per event. Chunks may split lines anywhere (even inside a UTF-8 sequence); a line is
// parsed once its '\n' arrives, and finish() parses a last line without one. Malformed lines (not JSON, not an
// object, no "event", a known event with fields of the wrong type) are reported through malformedLine() and
// skipped; unknown events are ignored (newer workers may add some); empty lines are skipped.
//
// Thread affinity: the thread it lives on (normally the GUI thread, fed from QProcess::readyRead). Owns
// nothing but its buffer.

#include "training_events.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QObject>

namespace ty {

class EventStreamParser : public QObject {
    Q_OBJECT
public:
    // A line longer than this is dropped as malformed (a runaway writer must not exhaust memory).
    static constexpr int kMaxLineBytes = 64 * 1024 * 1024;

    explicit EventStreamParser(QObject *parent = nullptr);

    // Appends bytes read from the stream and emits the events of every complete line, in order.
    void feed(const QByteArray &bytes);
    // End of stream: parses what is left in the buffer as a last line.
    void finish();
    // Forgets a partial line and the counters (for reuse on another stream).
    void reset();

    qint64 eventCount() const { return m_events; }        // events emitted
    qint64 ignoredCount() const { return m_ignored; }     // well-formed lines of unknown kinds
    qint64 malformedCount() const { return m_malformed; }
    int bufferedBytes() const { return int(m_buffer.size()); }

Q_SIGNALS:
    void started(const ty::TrainingStarted &event);
    // The rows of one "metrics" event, in stream order; a null value is NaN.
    void metricsReceived(const QList<ty::MetricPoint> &rows);
    void epochEnded(const ty::TrainingEpoch &event);
    void checkpointWritten(const ty::TrainingCheckpoint &event);
    void noteReceived(const ty::TrainingNote &event);  // every note kind of core/common/event_kinds.h
    void finished(const ty::TrainingFinished &event);
    void errorReported(const ty::TrainingError &event);
    // `line` is cut to 200 characters; `reason` says what is wrong.
    void malformedLine(const QString &line, const QString &reason);

private:
    void parseLine(const QByteArray &line);
    // Returns an empty string when the event was emitted, else why the line is malformed.
    QString dispatch(const QString &kind, const QJsonObject &object);
    QString parseMetrics(const QJsonObject &object);
    void reportMalformed(const QByteArray &line, const QString &reason);

    QByteArray m_buffer;
    bool m_discarding = false;  // inside an over-long line: drop bytes up to its end
    qint64 m_events = 0;
    qint64 m_ignored = 0;
    qint64 m_malformed = 0;
};

} // namespace ty
