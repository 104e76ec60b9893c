#pragma once
// The metric rows of several runs as one table in long form: what `trainyard-cli runs metrics ID ID...` prints and
// the run browser's "Export Metrics as CSV…" writes (docs/cli.md, docs/training-ui.md). A header line
//   run,uuid,name,step,epoch,time,value
// then, for each run in the order given, its rows by metric name and step: the run's id and uuid, the metric's
// name, step and epoch, the time in seconds with three decimals, and the value as the shortest text that reads
// back to it (number_text.h: "nan", "inf", "-inf" for those). The separator is a comma (CSV) or a tab. A name
// holding the separator, a double quote or a line break is quoted as CSV quotes it (RFC 4180); no name the
// engine writes does (node ids are letters, digits and underscores), so such quoting only guards foreign data.
//
// Streaming: one run's rows are in memory at a time, each line goes to the stream as it is made.
// Threads: the RunDatabase's (a connection is bound to the thread that opened it).

#include "error.h"
#include "run_records.h"

#include <QList>
#include <QString>

class QTextStream;

namespace ty {

class RunDatabase;

struct LongFormOptions {
    QChar separator = QLatin1Char(',');
    QString metric;  // only this metric's rows; empty: every metric
};

// `text` as one field of a line whose fields `separator` separates: as it is, or in double quotes with its quotes
// doubled when it holds the separator, a double quote, a carriage return or a line feed.
QString delimitedField(const QString &text, QChar separator);

// Writes the header and the rows of `runs` (records read before: their id and uuid) to `out`. Returns the number
// of rows written, or the error of the first run whose rows cannot be read (what was written before it stays in
// `out`). The stream's own write errors are the caller's to check (QTextStream::status after a flush).
Result<qint64> writeLongFormMetrics(const RunDatabase &db, const QList<RunInfo> &runs, QTextStream &out,
                                    const LongFormOptions &options = {});

// The same table, comma-separated, of the runs `ids` in that order, into the file `path`. Every id is checked first
// and the file is replaced only once every row is written (QSaveFile): a missing run, a read error or a file that
// cannot be written (the error names it) leaves what was there. Returns the number of rows written.
Result<qint64> writeLongFormMetricsCsv(const RunDatabase &db, const QList<qint64> &ids, const QString &path);

} // namespace ty
