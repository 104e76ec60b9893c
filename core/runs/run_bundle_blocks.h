#pragma once
// The binary blocks of a run bundle: a run's metric rows and an evaluation's samples as fixed-size little-endian
// records, 32 bytes each (docs/run-database.md#run-bundles), packed on export and checked field by field on import.
// Internal to ty_runs (public only because headers of a target share one folder).

#include "error.h"
#include "run_records.h"

#include <QByteArray>
#include <QHash>
#include <QString>
#include <QStringList>

#include <vector>

namespace ty {

constexpr int kBundleRowBytes = 32;

// Metric rows: i32 index into the run's metric names, i32 epoch, i64 step, f64 time, f64 value (NaN: NULL).
class BundleMetricRowsWriter {
public:
    void add(const QString &name, qint64 step, int epoch, double time, double value);
    const QByteArray &bytes() const { return m_bytes; }
    const QStringList &names() const { return m_names; }
    qint64 count() const { return m_bytes.size() / kBundleRowBytes; }

private:
    QByteArray m_bytes;
    QStringList m_names;
    QHash<QString, int> m_index;
};

// The rows of `bytes` (exactly `rows` records) with their names; an error naming `where` for a wrong size or a
// name index out of range.
Result<std::vector<MetricPoint>> readBundleMetricRows(const QByteArray &bytes, qint64 rows, const QStringList &names,
                                                      const QString &where);

// Evaluation samples: i64 sample index, f64 label, f64 predicted, f64 confidence (NaN: NULL).
class BundleSampleRowsWriter {
public:
    void add(qint64 index, double label, double predicted, double confidence);
    const QByteArray &bytes() const { return m_bytes; }
    qint64 count() const { return m_bytes.size() / kBundleRowBytes; }

private:
    QByteArray m_bytes;
};

Result<std::vector<EvaluationSampleRow>> readBundleSampleRows(const QByteArray &bytes, qint64 rows, const QString &where);

} // namespace ty
