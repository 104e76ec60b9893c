#include "runs_export.h"

#include "run_database.h"
#include "tensorboard_events.h"

#include <QDir>

namespace ty::cli {

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
        const Result<QString> written = writeTensorBoardEvents(QDir(folder).filePath(tensorBoardRunFolderName(run.id, run.name)), started, run.host, rows.value());
        if (!written) {
            printError(io, written.error());
            return RunFailed;
        }
        io.out << QStringLiteral("run %1: %2 rows -> %3\n").arg(run.id).arg(rows.value().size()).arg(written.value());
    }
    return Success;
}

} // namespace ty::cli
