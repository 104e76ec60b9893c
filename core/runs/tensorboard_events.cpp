#include "tensorboard_events.h"

#include <QDir>
#include <QSaveFile>
#include <QtEndian>

#include <algorithm>
#include <array>
#include <cstring>

namespace ty {

namespace {

const std::array<uint32_t, 256> &crcTable()
{
    static const std::array<uint32_t, 256> table = [] {
        std::array<uint32_t, 256> t{};
        for (uint32_t i = 0; i < 256; ++i) {
            uint32_t c = i;
            for (int k = 0; k < 8; ++k)
                c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;  // the Castagnoli polynomial, reflected
            t[i] = c;
        }
        return t;
    }();
    return table;
}

// Protocol buffer encoding of the few field kinds an Event uses.
void varint(QByteArray *out, uint64_t value)
{
    while (value >= 0x80) {
        out->append(char((value & 0x7F) | 0x80));
        value >>= 7;
    }
    out->append(char(value));
}

void key(QByteArray *out, int field, int wireType)
{
    varint(out, uint64_t(field) << 3 | uint64_t(wireType));
}

void varintField(QByteArray *out, int field, uint64_t value)
{
    key(out, field, 0);
    varint(out, value);
}

void lengthDelimited(QByteArray *out, int field, const QByteArray &bytes)
{
    key(out, field, 2);
    varint(out, uint64_t(bytes.size()));
    out->append(bytes);
}

// A fixed-width field: double (wire type 1, 8 bytes) or float (wire type 5, 4 bytes), little-endian.
template <typename Real, typename Bits>
void fixedField(QByteArray *out, int field, int wireType, Real value)
{
    static_assert(sizeof(Real) == sizeof(Bits));
    key(out, field, wireType);
    Bits bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    char bytes[sizeof bits];
    qToLittleEndian(bits, bytes);
    out->append(bytes, sizeof bits);
}

void doubleField(QByteArray *out, int field, double value) { fixedField<double, uint64_t>(out, field, 1, value); }
void floatField(QByteArray *out, int field, float value) { fixedField<float, uint32_t>(out, field, 5, value); }

// An Event's wall_time and step; the caller adds what happened (a summary, a session log).
QByteArray eventAt(double wallTime, int64_t step)
{
    QByteArray event;
    doubleField(&event, 1, wallTime);
    varintField(&event, 2, uint64_t(step));
    return event;
}

} // namespace

uint32_t crc32c(const QByteArray &data)
{
    const std::array<uint32_t, 256> &table = crcTable();
    uint32_t crc = 0xFFFFFFFFu;
    for (const char byte : data)
        crc = table[(crc ^ uint8_t(byte)) & 0xFF] ^ (crc >> 8);
    return crc ^ 0xFFFFFFFFu;
}

uint32_t maskedCrc32c(const QByteArray &data)
{
    const uint32_t crc = crc32c(data);
    return ((crc >> 15) | (crc << 17)) + 0xA282EAD8u;
}

QByteArray tfRecord(const QByteArray &record)
{
    QByteArray length(8, '\0');
    qToLittleEndian<quint64>(quint64(record.size()), length.data());
    QByteArray out = length;
    char crc[4];
    qToLittleEndian<quint32>(maskedCrc32c(length), crc);
    out.append(crc, 4);
    out.append(record);
    qToLittleEndian<quint32>(maskedCrc32c(record), crc);
    out.append(crc, 4);
    return out;
}

QByteArray fileVersionEvent(double wallTime)
{
    QByteArray event;
    doubleField(&event, 1, wallTime);
    lengthDelimited(&event, 3, QByteArrayLiteral("brain.Event:2"));
    return event;
}

QByteArray scalarEvent(double wallTime, int64_t step, const QString &tag, float value)
{
    QByteArray summaryValue;
    lengthDelimited(&summaryValue, 1, tag.toUtf8());
    floatField(&summaryValue, 2, value);
    QByteArray summary;
    lengthDelimited(&summary, 1, summaryValue);
    QByteArray event = eventAt(wallTime, step);
    lengthDelimited(&event, 5, summary);
    return event;
}

QByteArray sessionStartEvent(double wallTime, int64_t step)
{
    QByteArray sessionLog;
    varintField(&sessionLog, 1, 1);  // SessionLog.status START
    QByteArray event = eventAt(wallTime, step);
    lengthDelimited(&event, 7, sessionLog);
    return event;
}

void appendScalarRecords(QByteArray *out, double startSeconds, const MetricPoint *rows, size_t count)
{
    for (size_t i = 0; i < count; ++i)
        out->append(tfRecord(scalarEvent(startSeconds + rows[i].time, rows[i].step, rows[i].name, float(rows[i].value))));
}

QString eventFileName(const QDateTime &created, const QString &host)
{
    QString safeHost = host.isEmpty() ? QStringLiteral("localhost") : host;
    for (QChar &c : safeHost)
        if (!c.isLetterOrNumber() && c != QLatin1Char('-') && c != QLatin1Char('.'))
            c = QLatin1Char('_');
    return QStringLiteral("events.out.tfevents.%1.%2").arg(created.toSecsSinceEpoch()).arg(safeHost);
}

QString tensorBoardRunFolderName(qint64 runId, const QString &runName)
{
    QString name = runName.left(60);
    for (QChar &c : name)
        if (!c.isLetterOrNumber() && c != QLatin1Char('-') && c != QLatin1Char('.'))
            c = QLatin1Char('_');
    return name.isEmpty() ? QString::number(runId) : QStringLiteral("%1-%2").arg(runId).arg(name);
}

Result<QString> writeTensorBoardEvents(const QString &folder, const QDateTime &started, const QString &host,
                                       const QList<MetricPoint> &rows)
{
    if (!QDir().mkpath(folder))
        return Error::inFile(folder, QStringLiteral("cannot create the folder"));
    const QDateTime start = started.isValid() ? started : QDateTime::currentDateTimeUtc();
    const double startSeconds = double(start.toMSecsSinceEpoch()) / 1000.0;
    const QString path = QDir(folder).filePath(eventFileName(start, host));
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Error::inFile(path, QStringLiteral("cannot write: %1").arg(file.errorString()));
    QByteArray buffer = tfRecord(fileVersionEvent(startSeconds));
    for (qsizetype at = 0; at < rows.size(); at += 4096) {
        appendScalarRecords(&buffer, startSeconds, rows.constData() + at, size_t(std::min<qsizetype>(4096, rows.size() - at)));
        if (buffer.size() > (1 << 20)) {
            if (file.write(buffer) != buffer.size())
                return Error::inFile(path, QStringLiteral("cannot write: %1").arg(file.errorString()));
            buffer.clear();
        }
    }
    if (file.write(buffer) != buffer.size() || !file.commit())
        return Error::inFile(path, QStringLiteral("cannot write: %1").arg(file.errorString()));
    return path;
}

} // namespace ty
