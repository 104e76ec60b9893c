#include "runs_export.h"

#include "run_database.h"
#include "tensorboard_events.h"

#include <QDir>

namespace ty::cli {

namespace {

// "3-Fashion-MNIST_MLP": the id keeps folders apart, the name says which run it is.
QString runFolderName(const RunInfo &run)
{
    QString name = run.name.left(60);
    for (QChar &c : name)
        if (!c.isLetterOrNumber() && c != QLatin1Char('-') && c != QLatin1Char('.'))
            c = QLatin1Char('_');
    return name.isEmpty() ? QString::number(run.id) : QStringLiteral("%1-%2").arg(run.id).arg(name);
}

} // namespace

bool readRuns(RunDatabase &db, const QList<qint64> &ids, QList<RunInfo> *runs, Io &io)
{
    for (qint64 id : ids) {
        Result<RunInfo> run = db.run(id);
        if (!run) {
            printError(io, run.error());
            return false;
        }
        *runs << run.value();
    }
    return true;
}

int exportRunsToTensorBoard(RunDatabase &db, const QList<qint64> &ids, const QString &folder, Io &io)
{
    QList<RunInfo> runs;
    if (!readRuns(db, ids, &runs, io))
        return BadInput;
    for (const RunInfo &run : runs) {
        Result<QList<MetricPoint>> rows = db.metrics(run.id, QString());
        if (!rows) {
            printError(io, rows.error());
            return RunFailed;
        }
        const QDateTime started = run.startedAt.isValid() ? run.startedAt : run.createdAt;
        const Result<QString> written = writeTensorBoardEvents(QDir(folder).filePath(runFolderName(run)), started, run.host, rows.value());
        if (!written) {
            printError(io, written.error());
            return RunFailed;
        }
        io.out << QStringLiteral("run %1: %2 rows -> %3\n").arg(run.id).arg(rows.value().size()).arg(written.value());
    }
    return Success;
}

} // namespace ty::cli
