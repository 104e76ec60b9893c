#include "run_bundle_blocks.h"

#include <QtEndian>

#include <cstring>

namespace ty {

namespace {

void appendRecord(QByteArray &bytes, quint64 a, quint64 b, quint64 c, quint64 d)
{
    char record[kBundleRowBytes];
    qToLittleEndian(a, record);
    qToLittleEndian(b, record + 8);
    qToLittleEndian(c, record + 16);
    qToLittleEndian(d, record + 24);
    bytes.append(record, kBundleRowBytes);
}

quint64 bitsOf(double value)
{
    quint64 bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

double doubleAt(const char *at)
{
    const quint64 bits = qFromLittleEndian<quint64>(at);
    double value = 0;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

Status checkSize(const QByteArray &bytes, qint64 rows, const QString &where)
{
    if (rows < 0 || bytes.size() / kBundleRowBytes != rows || bytes.size() % kBundleRowBytes != 0)
        return Error::atField(where, QStringLiteral("%1 bytes do not hold %2 rows of %3 bytes").arg(bytes.size()).arg(rows).arg(kBundleRowBytes));
    return Status::success();
}

} // namespace

void BundleMetricRowsWriter::add(const QString &name, qint64 step, int epoch, double time, double value)
{
    auto it = m_index.constFind(name);
    if (it == m_index.constEnd()) {
        it = m_index.insert(name, int(m_names.size()));
        m_names << name;
    }
    const quint64 first = quint64(quint32(it.value())) | (quint64(quint32(epoch)) << 32);
    appendRecord(m_bytes, first, quint64(step), bitsOf(time), bitsOf(value));
}

Result<std::vector<MetricPoint>> readBundleMetricRows(const QByteArray &bytes, qint64 rows, const QStringList &names,
                                                      const QString &where)
{
    if (Status size = checkSize(bytes, rows, where); !size)
        return size.error();
    std::vector<MetricPoint> points;
    points.reserve(size_t(rows));
    const char *at = bytes.constData();
    for (qint64 i = 0; i < rows; ++i, at += kBundleRowBytes) {
        const qint32 nameIndex = qFromLittleEndian<qint32>(at);
        if (nameIndex < 0 || nameIndex >= names.size())
            return Error::atField(where, QStringLiteral("row %1 names metric %2 of %3").arg(i).arg(nameIndex).arg(names.size()));
        MetricPoint point;
        point.name = names[nameIndex];  // shared, not copied
        point.epoch = qFromLittleEndian<qint32>(at + 4);
        point.step = qFromLittleEndian<qint64>(at + 8);
        point.time = doubleAt(at + 16);
        point.value = doubleAt(at + 24);
        points.push_back(std::move(point));
    }
    return points;
}

void BundleSampleRowsWriter::add(qint64 index, double label, double predicted, double confidence)
{
    appendRecord(m_bytes, quint64(index), bitsOf(label), bitsOf(predicted), bitsOf(confidence));
}

Result<std::vector<EvaluationSampleRow>> readBundleSampleRows(const QByteArray &bytes, qint64 rows, const QString &where)
{
    if (Status size = checkSize(bytes, rows, where); !size)
        return size.error();
    std::vector<EvaluationSampleRow> samples;
    samples.reserve(size_t(rows));
    const char *at = bytes.constData();
    for (qint64 i = 0; i < rows; ++i, at += kBundleRowBytes)
        samples.push_back({qFromLittleEndian<qint64>(at), doubleAt(at + 8), doubleAt(at + 16), doubleAt(at + 24)});
    return samples;
}

} // namespace ty
