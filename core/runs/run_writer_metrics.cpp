#include "run_writer_metrics.h"

#include <QHash>

#include <algorithm>
#include <cmath>

namespace ty {

namespace {

// One metric name of a batch: its UTF-8 bytes (bound to every row of that name) and the fold of its rows.
struct NameFold {
    QString name;
    QByteArray utf8;
    qint64 count = 0;
    double minimum = std::nan("");
    double maximum = std::nan("");
    qint64 lastStep = 0;
    double last = std::nan("");

    void add(const MetricPoint &row)
    {
        if (count++ == 0)
            lastStep = row.step;
        if (!std::isnan(row.value)) {
            if (std::isnan(minimum) || row.value < minimum)
                minimum = row.value;
            if (std::isnan(maximum) || row.value > maximum)
                maximum = row.value;
        }
        if (row.step >= lastStep) {  // the latest written row wins on ties, as in the metrics table
            lastStep = row.step;
            last = row.value;
        }
    }
};

// Names are few (a handful per run) and rows of one name often follow each other.
class NameTable {
public:
    NameFold &find(const QString &name)
    {
        if (m_last >= 0 && m_folds[size_t(m_last)].name == name)
            return m_folds[size_t(m_last)];
        auto found = m_index.constFind(name);
        if (found == m_index.constEnd()) {
            found = m_index.insert(name, int(m_folds.size()));
            m_folds.push_back(NameFold{name, name.toUtf8()});
        }
        m_last = found.value();
        return m_folds[size_t(m_last)];
    }
    const std::vector<NameFold> &folds() const { return m_folds; }

private:
    std::vector<NameFold> m_folds;
    QHash<QString, int> m_index;
    int m_last = -1;
};

// Rows per INSERT statement: one statement run per row costs SQLite about 2.5 times as much (cursors opened and
// closed, the statement started and halted, per row).
constexpr size_t kRowsPerStatement = 64;

// "INSERT ... VALUES (?1, ?2, ?3, ?4, ?5, ?6), (?1, ?7, ?8, ?9, ?10, ?11), ...": ?1 is the run, then five per row.
QByteArray metricInsertSql(int rows)
{
    QByteArray sql("INSERT INTO metrics (run_id, name, step, epoch, time, value) VALUES ");
    for (int i = 0; i < rows; ++i) {
        const int p = 2 + 5 * i;
        sql += (i == 0 ? "(?1" : ", (?1");
        for (int k = 0; k < 5; ++k)
            sql += ", ?" + QByteArray::number(p + k);
        sql += ')';
    }
    return sql;
}

Status upsertSummaries(SqliteConnection &db, qint64 runId, const std::vector<NameFold> &folds, const QString &what)
{
    SqliteStatement upsert;
    if (Status prepared = upsert.prepare(
            db,
            "INSERT INTO metric_summaries (run_id, name, count, min_value, max_value, last_step, last_value)"
            " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
            " ON CONFLICT (run_id, name) DO UPDATE SET"
            " count = count + excluded.count,"
            " min_value = CASE WHEN min_value IS NULL OR excluded.min_value < min_value"
            "             THEN coalesce(excluded.min_value, min_value) ELSE min_value END,"
            " max_value = CASE WHEN max_value IS NULL OR excluded.max_value > max_value"
            "             THEN coalesce(excluded.max_value, max_value) ELSE max_value END,"
            " last_value = CASE WHEN excluded.last_step >= last_step THEN excluded.last_value ELSE last_value END,"
            " last_step = max(last_step, excluded.last_step)",
            what);
        !prepared.ok())
        return prepared;
    upsert.bindInt(1, runId);
    for (const NameFold &fold : folds) {
        upsert.bindStaticText(2, fold.utf8);
        upsert.bindInt(3, fold.count);
        upsert.bindDouble(4, fold.minimum);  // NaN (every value NaN) binds NULL
        upsert.bindDouble(5, fold.maximum);
        upsert.bindInt(6, fold.lastStep);
        upsert.bindDouble(7, fold.last);
        if (Status status = upsert.run(what); !status.ok())
            return status;
    }
    return Status::success();
}

} // namespace

Status writeRunWriterMetrics(SqliteConnection &db, qint64 runId, const std::vector<MetricPoint> &rows)
{
    const QString what = QStringLiteral("cannot write metrics of run %1").arg(runId);
    NameTable names;
    SqliteStatement insert;
    int preparedRows = 0;
    for (size_t first = 0; first < rows.size(); first += kRowsPerStatement) {
        const int count = int(std::min<size_t>(kRowsPerStatement, rows.size() - first));
        if (count != preparedRows) {  // the full size, then once more for the batch's tail
            if (Status prepared = insert.prepare(db, metricInsertSql(count), what); !prepared.ok())
                return prepared;
            insert.bindInt(1, runId);
            preparedRows = count;
        }
        for (int i = 0; i < count; ++i) {
            const MetricPoint &row = rows[first + size_t(i)];
            NameFold &fold = names.find(row.name);
            fold.add(row);
            const int p = 2 + 5 * i;
            // Not copied: a QByteArray's bytes stay where they are (on the heap) when the table grows.
            insert.bindStaticText(p, fold.utf8);
            insert.bindInt(p + 1, row.step);
            insert.bindInt(p + 2, row.epoch);
            insert.bindDouble(p + 3, row.time);
            insert.bindDouble(p + 4, row.value);  // NaN becomes NULL, as documented
        }
        if (Status status = insert.run(what); !status.ok())
            return status;
    }
    return upsertSummaries(db, runId, names.folds(), QStringLiteral("cannot summarise the metrics of run %1").arg(runId));
}

} // namespace ty
