// TensorBoard event files read back by an independent reader written here: the TFRecord framing, both CRC-32C
// checksums (computed bit by bit, not with the writer's table), and every Event decoded from its protocol buffer
// bytes: the first says file_version "brain.Event:2", then one per metric row with its step, tag, value and wall
// time. And the CRC against the standard check value.

#include "test_suite.h"
#include "tensorboard_events.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtEndian>
#include <QtTest>

#include <cstring>

using namespace ty;

namespace {

uint32_t crc32cBitwise(const QByteArray &data)
{
    uint32_t crc = 0xFFFFFFFFu;
    for (const char byte : data) {
        crc ^= uint8_t(byte);
        for (int bit = 0; bit < 8; ++bit)
            crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
    }
    return ~crc;
}

uint32_t masked(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xA282EAD8u; }

struct DecodedEvent {
    double wallTime = 0;
    qint64 step = 0;
    QString fileVersion;
    QString tag;
    float value = 0;
    bool hasValue = false;
};

// A minimal protocol buffer reader: varints, fixed 32/64-bit fields and length-delimited fields.
class Reader {
public:
    explicit Reader(const QByteArray &bytes) : m_bytes(bytes) {}
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
            return {};
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

bool decodeEvent(const QByteArray &bytes, DecodedEvent *event)
{
    Reader reader(bytes);
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
            Reader summary(reader.take(qsizetype(reader.varint())));
            if (summary.varint() != (1 << 3 | 2))
                return false;
            Reader value(summary.take(qsizetype(summary.varint())));
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
            if (value.failed() || !summary.atEnd())
                return false;
        } else {
            return false;
        }
    }
    return !reader.failed();
}

} // namespace

class TestTensorBoardEvents : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void crcMatchesTheStandardCheckValue()
    {
        QCOMPARE(crc32c(QByteArrayLiteral("123456789")), 0xE3069283u);
        QCOMPARE(crc32c(QByteArray()), 0u);
        const QByteArray some = QByteArrayLiteral("val/accuracy\x00\x01\xff");
        QCOMPARE(crc32c(some), crc32cBitwise(some));
    }

    void eventsReadBackEqualTheRows()
    {
        QList<MetricPoint> rows;
        for (int step = 1; step <= 300; ++step) {
            rows.append({QStringLiteral("train/loss"), step, 1 + step / 100, step * 0.05, 2.0 / step});
            if (step % 100 == 0)
                rows.append({QStringLiteral("val/accuracy"), step, step / 100, step * 0.05 + 0.5, 0.5 + step / 1000.0});
        }
        rows.append({QStringLiteral("val/loss"), 300, 3, 15.6, std::numeric_limits<double>::quiet_NaN()});
        QTemporaryDir dir;
        const QDateTime started = QDateTime::fromSecsSinceEpoch(1795000000, Qt::UTC).addMSecs(250);
        const Result<QString> written = writeTensorBoardEvents(dir.filePath(QStringLiteral("1-mlp")), started,
                                                               QStringLiteral("host one"), rows);
        QVERIFY2(written.ok(), written.ok() ? "" : qPrintable(written.error().toString()));
        QCOMPARE(QFileInfo(written.value()).fileName(), QStringLiteral("events.out.tfevents.1795000000.host_one"));

        QFile file(written.value());
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray bytes = file.readAll();
        QList<DecodedEvent> events;
        qsizetype at = 0;
        while (at < bytes.size()) {
            QVERIFY(at + 12 <= bytes.size());
            const QByteArray length = bytes.mid(at, 8);
            const quint64 size = qFromLittleEndian<quint64>(length.constData());
            QCOMPARE(qFromLittleEndian<quint32>(bytes.constData() + at + 8), masked(crc32cBitwise(length)));
            QVERIFY(at + 12 + qsizetype(size) + 4 <= bytes.size());
            const QByteArray record = bytes.mid(at + 12, qsizetype(size));
            QCOMPARE(qFromLittleEndian<quint32>(bytes.constData() + at + 12 + size), masked(crc32cBitwise(record)));
            DecodedEvent event;
            QVERIFY(decodeEvent(record, &event));
            events << event;
            at += 12 + qsizetype(size) + 4;
        }
        QCOMPARE(events.size(), rows.size() + 1);
        QCOMPARE(events.first().fileVersion, QStringLiteral("brain.Event:2"));
        QCOMPARE(events.first().wallTime, 1795000000.25);
        for (int i = 0; i < rows.size(); ++i) {
            const DecodedEvent &event = events.at(i + 1);
            QCOMPARE(event.step, rows[i].step);
            QCOMPARE(event.tag, rows[i].name);
            QVERIFY(event.hasValue);
            if (std::isnan(rows[i].value))
                QVERIFY(std::isnan(event.value));
            else
                QCOMPARE(event.value, float(rows[i].value));
            QVERIFY(std::abs(event.wallTime - (1795000000.25 + rows[i].time)) < 1e-6);
        }
    }
};

TY_TEST_CLASS(TestTensorBoardEvents)
#include "test_tensorboard_events.moc"
