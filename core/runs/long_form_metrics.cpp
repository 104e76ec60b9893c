#include "long_form_metrics.h"

#include "number_text.h"
#include "run_database.h"

#include <QDir>
#include <QSaveFile>
#include <QTextStream>

namespace ty {

QString delimitedField(const QString &text, QChar separator)
{
    const bool plain = !text.contains(separator) && !text.contains(QLatin1Char('"')) && !text.contains(QLatin1Char('\n'))
                       && !text.contains(QLatin1Char('\r'));
    if (plain)
        return text;
    QString quoted = text;
    quoted.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

Result<qint64> writeLongFormMetrics(const RunDatabase &db, const QList<RunInfo> &runs, QTextStream &out,
                                    const LongFormOptions &options)
{
    const QChar sep = options.separator;
    out << "run" << sep << "uuid" << sep << "name" << sep << "step" << sep << "epoch" << sep << "time" << sep << "value\n";
    qint64 written = 0;
    for (const RunInfo &run : runs) {
        const Result<QList<MetricPoint>> metrics = db.metrics(run.id, options.metric);
        if (!metrics)
            return metrics.error();
        const QString uuid = delimitedField(run.uuid, sep);
        QString name, shownName;  // rows come by name: each name is checked for quoting once
        for (const MetricPoint &m : metrics.value()) {
            if (m.name != name) {
                name = m.name;
                shownName = delimitedField(name, sep);
            }
            out << run.id << sep << uuid << sep << shownName << sep << m.step << sep << m.epoch << sep
                << QString::number(m.time, 'f', 3) << sep << shortestNumberText(m.value) << "\n";
        }
        written += metrics.value().size();
    }
    return written;
}

Result<qint64> writeLongFormMetricsCsv(const RunDatabase &db, const QList<qint64> &ids, const QString &path)
{
    QList<RunInfo> runs;
    for (qint64 id : ids) {
        Result<RunInfo> run = db.run(id);
        if (!run)
            return run.error();
        runs << std::move(run).value();
    }
    const QString shown = QDir::toNativeSeparators(path);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Error::inFile(shown, QStringLiteral("cannot write the file: %1").arg(file.errorString()));
    QTextStream out(&file);
    const Result<qint64> rows = writeLongFormMetrics(db, runs, out);
    if (!rows)
        return rows.error();  // the QSaveFile is dropped: the file is left as it was
    out.flush();
    if (out.status() != QTextStream::Ok || !file.commit())
        return Error::inFile(shown, QStringLiteral("cannot write the file: %1").arg(file.errorString()));
    return rows;
}

} // namespace ty
