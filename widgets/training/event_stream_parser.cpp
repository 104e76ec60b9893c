#include "event_stream_parser.h"

#include "event_kinds.h"

#include "saturating.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>

#include <limits>

namespace ty {

namespace {

double numberOrNaN(const QJsonValue &value)
{
    return value.isDouble() ? value.toDouble() : std::numeric_limits<double>::quiet_NaN();
}

QMap<QString, double> metricMap(const QJsonObject &object)
{
    QMap<QString, double> out;
    for (auto it = object.constBegin(); it != object.constEnd(); ++it)
        out.insert(it.key(), numberOrNaN(it.value()));
    return out;
}

// Empty when every named field is a number; otherwise the first one that is not.
QString missingNumber(const QJsonObject &object, std::initializer_list<const char *> fields)
{
    for (const char *field : fields)
        if (!object.value(QLatin1String(field)).isDouble())
            return QStringLiteral("\"%1\" is not a number").arg(QLatin1String(field));
    return QString();
}

QString missingString(const QJsonObject &object, std::initializer_list<const char *> fields)
{
    for (const char *field : fields)
        if (!object.value(QLatin1String(field)).isString())
            return QStringLiteral("\"%1\" is not a string").arg(QLatin1String(field));
    return QString();
}

QString text(const QJsonObject &object, const char *field) { return object.value(QLatin1String(field)).toString(); }
qint64 integer(const QJsonObject &object, const char *field, qint64 fallback = 0)
{
    const QJsonValue value = object.value(QLatin1String(field));
    return value.isDouble() ? saturatedInt64(value.toDouble()) : fallback;
}

} // namespace

EventStreamParser::EventStreamParser(QObject *parent) : QObject(parent) {}

void EventStreamParser::feed(const QByteArray &bytes)
{
    qsizetype from = 0;
    while (from < bytes.size()) {
        const qsizetype newline = bytes.indexOf('\n', from);
        if (newline < 0) {
            if (!m_discarding)
                m_buffer.append(bytes.constData() + from, bytes.size() - from);
            if (m_buffer.size() > kMaxLineBytes) {
                reportMalformed(m_buffer, QStringLiteral("line longer than %1 bytes").arg(kMaxLineBytes));
                m_buffer.clear();
                m_discarding = true;
            }
            return;
        }
        if (m_discarding) {
            m_discarding = false;
        } else if (m_buffer.isEmpty()) {
            parseLine(QByteArray::fromRawData(bytes.constData() + from, newline - from));
        } else {
            m_buffer.append(bytes.constData() + from, newline - from);
            const QByteArray line = m_buffer;
            m_buffer.clear();
            parseLine(line);
        }
        from = newline + 1;
    }
}

void EventStreamParser::finish()
{
    const QByteArray line = m_buffer;
    m_buffer.clear();
    m_discarding = false;
    parseLine(line);
}

void EventStreamParser::reset()
{
    m_buffer.clear();
    m_discarding = false;
    m_events = m_ignored = m_malformed = 0;
}

void EventStreamParser::reportMalformed(const QByteArray &line, const QString &reason)
{
    ++m_malformed;
    Q_EMIT malformedLine(QString::fromUtf8(line.left(200)), reason);
}

void EventStreamParser::parseLine(const QByteArray &rawLine)
{
    const QByteArray line = rawLine.trimmed();  // also drops a '\r' of CRLF
    if (line.isEmpty())
        return;
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(line, &error);
    if (error.error != QJsonParseError::NoError)
        return reportMalformed(line, QStringLiteral("not JSON: %1 at offset %2").arg(error.errorString()).arg(error.offset));
    if (!document.isObject())
        return reportMalformed(line, QStringLiteral("not a JSON object"));
    const QJsonObject object = document.object();
    const QJsonValue kind = object.value(QLatin1String("event"));
    if (!kind.isString())
        return reportMalformed(line, QStringLiteral("no \"event\" name"));
    const QString problem = dispatch(kind.toString(), object);
    if (!problem.isEmpty())
        return reportMalformed(line, QStringLiteral("%1 event: %2").arg(kind.toString(), problem));
}

QString EventStreamParser::dispatch(const QString &kind, const QJsonObject &o)
{
    // Every kind of the shared list (core/common/event_kinds.h): a note kind with its message and step, the others
    // each with their fields.
    const EventKindInfo *known = eventKindNamed(kind);
    if (!known) {
        ++m_ignored;  // a kind this build does not know
        return QString();
    }
    if (known->note) {
        if (QString why = missingString(o, {"message"}); !why.isEmpty())
            return why;
        ++m_events;
        Q_EMIT noteReceived(TrainingNote{kind, text(o, "message"), integer(o, "step")});
        return QString();
    }
    if (known->kind == EventKind::Metrics)
        return parseMetrics(o);
    if (known->kind == EventKind::Started) {
        if (QString why = missingNumber(o, {"run_id"}); !why.isEmpty())
            return why;
        TrainingStarted e;
        e.runId = integer(o, "run_id");
        e.dbPath = text(o, "db");
        e.device = text(o, "device");
        e.trainSamples = integer(o, "train_samples");
        e.valSamples = integer(o, "val_samples");
        e.testSamples = integer(o, "test_samples");
        e.stepsPerEpoch = integer(o, "steps_per_epoch");
        e.totalSteps = integer(o, "total_steps");
        e.epochs = int(integer(o, "epochs"));
        e.parameters = integer(o, "parameters");
        e.resumedAtStep = integer(o, "resumed_at_step", -1);
        ++m_events;
        Q_EMIT started(e);
    } else if (known->kind == EventKind::Epoch) {
        if (QString why = missingNumber(o, {"epoch", "step"}); !why.isEmpty())
            return why;
        TrainingEpoch e;
        e.epoch = int(integer(o, "epoch"));
        e.step = integer(o, "step");
        e.metrics = metricMap(o.value(QLatin1String("metrics")).toObject());
        ++m_events;
        Q_EMIT epochEnded(e);
    } else if (known->kind == EventKind::Checkpoint) {
        if (QString why = missingNumber(o, {"step"}) + missingString(o, {"path"}); !why.isEmpty())
            return why;
        ++m_events;
        Q_EMIT checkpointWritten(TrainingCheckpoint{integer(o, "step"), int(integer(o, "epoch")), text(o, "path")});
    } else if (known->kind == EventKind::Finished) {
        if (QString why = missingString(o, {"status"}); !why.isEmpty())
            return why;
        TrainingFinished e;
        e.runId = integer(o, "run_id");
        e.status = text(o, "status");
        e.message = text(o, "message");
        e.node = text(o, "node");
        e.steps = integer(o, "steps");
        e.epochs = int(integer(o, "epochs"));
        e.summary = metricMap(o.value(QLatin1String("summary")).toObject());
        e.checkpoint = text(o, "checkpoint");
        ++m_events;
        Q_EMIT finished(e);
    } else if (known->kind == EventKind::Error) {
        if (QString why = missingString(o, {"message"}); !why.isEmpty())
            return why;
        ++m_events;
        Q_EMIT errorReported(TrainingError{text(o, "message"), text(o, "file"), text(o, "node"), text(o, "field"),
                                           int(integer(o, "line")), int(integer(o, "column"))});
    }
    return QString();
}

QString EventStreamParser::parseMetrics(const QJsonObject &o)
{
    // Column positions from "columns" when given (a newer worker may add or reorder columns).
    int name = 0, step = 1, epoch = 2, time = 3, value = 4;
    const QJsonValue columns = o.value(QLatin1String("columns"));
    if (columns.isArray()) {
        const QJsonArray names = columns.toArray();
        auto position = [&names](const char *column) {
            for (int i = 0; i < names.size(); ++i)
                if (names.at(i).toString() == QLatin1String(column))
                    return i;
            return -1;
        };
        name = position("name");
        step = position("step");
        epoch = position("epoch");
        time = position("time");
        value = position("value");
        if (name < 0 || step < 0 || value < 0)
            return QStringLiteral("\"columns\" lacks name, step or value");
    }
    const QJsonValue rowsValue = o.value(QLatin1String("rows"));
    if (!rowsValue.isArray())
        return QStringLiteral("\"rows\" is not an array");
    const QJsonArray rows = rowsValue.toArray();
    QList<MetricPoint> points;
    points.reserve(rows.size());
    for (int i = 0; i < rows.size(); ++i) {
        const QJsonArray row = rows.at(i).toArray();
        const QJsonValue v = row.at(value);
        if (!rows.at(i).isArray() || !row.at(name).isString() || !row.at(step).isDouble() || !(v.isDouble() || v.isNull()))
            return QStringLiteral("row %1 is not [name, step, epoch, time, value]").arg(i);
        MetricPoint p;
        p.name = row.at(name).toString();
        p.step = saturatedInt64(row.at(step).toDouble());
        p.epoch = epoch >= 0 ? row.at(epoch).toInt() : 0;
        p.time = time >= 0 ? numberOrNaN(row.at(time)) : std::numeric_limits<double>::quiet_NaN();
        p.value = numberOrNaN(v);
        points.append(std::move(p));
    }
    ++m_events;
    Q_EMIT metricsReceived(points);
    return QString();
}

} // namespace ty
