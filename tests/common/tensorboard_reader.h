#pragma once
// An independent reader of TensorBoard event files, for the tests of the writer (core/runs/tensorboard_events.h):
// the TFRecord framing, both CRC-32C checksums (computed bit by bit, not with the writer's table), and each Event
// decoded from its protocol buffer bytes: wall_time, step, file_version, a Summary's scalar (tag, simple_value) and
// a SessionLog's status. Anything else in a record is a fault.

#include <QByteArray>
#include <QFile>
#include <QList>
#include <QString>
#include <QtEndian>

#include <cstdint>
#include <cstring>

namespace tytest {

inline uint32_t crc32cBitwise(const QByteArray &data)
{
    uint32_t crc = 0xFFFFFFFFu;
    for (const char byte : data) {
        crc ^= uint8_t(byte);
        for (int bit = 0; bit < 8; ++bit)
            crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
    }
    return ~crc;
}

inline uint32_t maskedCrc(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xA282EAD8u; }

struct TensorBoardEvent {
    double wallTime = 0;
    qint64 step = 0;
    QString fileVersion;
    QString tag;
    float value = 0;
    bool hasValue = false;
    int sessionStatus = 0;  // SessionLog.status: 1 START
};

// A minimal protocol buffer reader: varints, fixed 32/64-bit fields and length-delimited fields.
class ProtoReader {
public:
    explicit ProtoReader(const QByteArray &bytes) : m_bytes(bytes) {}
    bool atEnd() const { return m_at >= m_bytes.size(); }
    quint64 varint()
    {
        quint64 value = 0;
        for (int shift = 0; m_at < m_bytes.size() && shift < 64; shift += 7) {
            const uchar byte = uchar(m_bytes.at(m_at++));
            value |= quint64(byte & 0x7F) << shift;
            if (!(byte & 0x80))
                return value;
        }
        m_failed = true;
        return 0;
    }
    QByteArray take(qsizetype n)
    {
        if (n < 0 || m_at + n > m_bytes.size()) {
            m_failed = true;
            return QByteArray(qMax<qsizetype>(n, 8), '\0');
        }
        const QByteArray out = m_bytes.mid(m_at, n);
        m_at += n;
        return out;
    }
    bool failed() const { return m_failed; }

private:
    QByteArray m_bytes;
    qsizetype m_at = 0;
    bool m_failed = false;
};

inline bool decodeTensorBoardEvent(const QByteArray &bytes, TensorBoardEvent *event)
{
    ProtoReader reader(bytes);
    while (!reader.atEnd()) {
        const quint64 key = reader.varint();
        const int field = int(key >> 3), wire = int(key & 7);
        if (field == 1 && wire == 1) {
            const quint64 bits = qFromLittleEndian<quint64>(reader.take(8).constData());
            std::memcpy(&event->wallTime, &bits, 8);
        } else if (field == 2 && wire == 0) {
            event->step = qint64(reader.varint());
        } else if (field == 3 && wire == 2) {
            event->fileVersion = QString::fromUtf8(reader.take(qsizetype(reader.varint())));
        } else if (field == 5 && wire == 2) {
            ProtoReader summary(reader.take(qsizetype(reader.varint())));
            if (summary.varint() != (1 << 3 | 2))
                return false;
            ProtoReader value(summary.take(qsizetype(summary.varint())));
            while (!value.atEnd()) {
                const quint64 valueKey = value.varint();
                if (valueKey == (1 << 3 | 2)) {
                    event->tag = QString::fromUtf8(value.take(qsizetype(value.varint())));
                } else if (valueKey == (2 << 3 | 5)) {
                    const quint32 bits = qFromLittleEndian<quint32>(value.take(4).constData());
                    std::memcpy(&event->value, &bits, 4);
                    event->hasValue = true;
                } else {
                    return false;
                }
            }
            if (value.failed() || summary.failed() || !summary.atEnd())
                return false;
        } else if (field == 7 && wire == 2) {
            ProtoReader sessionLog(reader.take(qsizetype(reader.varint())));
            if (sessionLog.varint() != (1 << 3 | 0))
                return false;
            event->sessionStatus = int(sessionLog.varint());
            if (sessionLog.failed() || !sessionLog.atEnd())
                return false;
        } else {
            return false;
        }
    }
    return !reader.failed();
}

// Every event of the file at `path`, in order; false with `problem` saying where the first fault is.
inline bool readTensorBoardFile(const QString &path, QList<TensorBoardEvent> *events, QString *problem)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *problem = path + QStringLiteral(": cannot open");
        return false;
    }
    const QByteArray bytes = file.readAll();
    qsizetype at = 0;
    while (at < bytes.size()) {
        const QString where = QStringLiteral("%1 at byte %2: ").arg(path).arg(at);
        if (at + 12 > bytes.size()) {
            *problem = where + QStringLiteral("a truncated length");
            return false;
        }
        const QByteArray length = bytes.mid(at, 8);
        const quint64 size = qFromLittleEndian<quint64>(length.constData());
        if (qFromLittleEndian<quint32>(bytes.constData() + at + 8) != maskedCrc(crc32cBitwise(length))) {
            *problem = where + QStringLiteral("the length's CRC is wrong");
            return false;
        }
        if (size > quint64(bytes.size()) || at + 12 + qsizetype(size) + 4 > bytes.size()) {
            *problem = where + QStringLiteral("a truncated record");
            return false;
        }
        const QByteArray record = bytes.mid(at + 12, qsizetype(size));
        if (qFromLittleEndian<quint32>(bytes.constData() + at + 12 + size) != maskedCrc(crc32cBitwise(record))) {
            *problem = where + QStringLiteral("the record's CRC is wrong");
            return false;
        }
        TensorBoardEvent event;
        if (!decodeTensorBoardEvent(record, &event)) {
            *problem = where + QStringLiteral("an Event that does not decode");
            return false;
        }
        events->append(event);
        at += 12 + qsizetype(size) + 4;
    }
    return true;
}

} // namespace tytest
