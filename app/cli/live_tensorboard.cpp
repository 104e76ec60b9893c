#include "live_tensorboard.h"

#include "cli_args.h"
#include "run_database.h"
#include "run_liveness.h"
#include "run_writer.h"
#include "tensorboard_events.h"

#include <QDir>
#include <QFileInfo>

namespace ty::cli {

QString tensorBoardDirOf(const Preset &preset)
{
    const QString dir = preset.training.value(QLatin1String("tensorboard_dir")).toString();
    if (dir.isEmpty())
        return QString();
    return QDir::cleanPath(QDir(preset.baseDir()).absoluteFilePath(dir));
}

QString absoluteTensorBoardDir(const QString &dir)
{
    return dir.isEmpty() ? QString() : QDir::cleanPath(QFileInfo(dir).absoluteFilePath());
}

void applyTensorBoardOption(Args *args)
{
    if (args->options.contains(QStringLiteral("tensorboard")))
        args->sets << QStringLiteral("training.tensorboard_dir=") + absoluteTensorBoardDir(args->option(QStringLiteral("tensorboard")));
}

Status checkTensorBoardDir(const QString &dir, const QString &presetFile)
{
    // Nothing is created yet (bad input found later changes nothing): the nearest folder of `dir` that exists must be
    // a folder that can be written; the run's own folder is made with its event file, once the run is recorded.
    const QString field = QString::fromLatin1(kTensorBoardField);
    QFileInfo nearest(dir);
    while (!nearest.exists() && nearest.absolutePath() != nearest.absoluteFilePath())
        nearest = QFileInfo(nearest.absolutePath());
    const bool itself = nearest.absoluteFilePath() == QFileInfo(dir).absoluteFilePath();
    if (!nearest.isDir())
        return Error::inFile(presetFile, itself ? QStringLiteral("%1 is not a folder: it cannot hold TensorBoard's event files "
                                                                 "(--tensorboard sets this field too)").arg(dir)
                                                : QStringLiteral("cannot create the folder %1 for TensorBoard's event files: %2 is "
                                                                 "not a folder (--tensorboard sets this field too)")
                                                      .arg(dir, nearest.absoluteFilePath()),
                             field);
    if (!nearest.isWritable())
        return Error::inFile(presetFile, QStringLiteral("cannot create or write the folder %1 for TensorBoard's event files: %2 "
                                                        "cannot be written (--tensorboard sets this field too)")
                                             .arg(dir, nearest.absoluteFilePath()),
                             field);
    return Status::success();
}

Result<std::shared_ptr<TensorBoardEventFile>> createRunEventFile(const QString &dir, qint64 runId, const QString &runName,
                                                                 qint64 restartStep)
{
    Result<std::unique_ptr<TensorBoardEventFile>> file = TensorBoardEventFile::create(
        QDir(dir).filePath(tensorBoardRunFolderName(runId, runName)), QDateTime::currentDateTimeUtc(), thisHostName(), restartStep);
    if (!file)
        return file.error();
    return std::shared_ptr<TensorBoardEventFile>(std::move(file).value());
}

Status feedTensorBoard(RunWriter &writer, std::shared_ptr<TensorBoardEventFile> file, const QString &dbPath, qint64 runId)
{
    Result<std::unique_ptr<RunDatabase>> db = RunDatabase::open(dbPath);
    if (!db)
        return db.error();
    const Result<RunInfo> run = db.value()->run(runId);
    if (!run)
        return run.error();
    const QDateTime started = run.value().startedAt.isValid() ? run.value().startedAt : run.value().createdAt;
    const double startSeconds = double(started.toMSecsSinceEpoch()) / 1000.0;
    writer.setMetricSink([file = std::move(file), startSeconds](const std::vector<MetricPoint> &rows) -> Status {
        if (const Status appended = file->append(startSeconds, rows.data(), rows.size()); !appended) {
            Error stopped = appended.error();
            stopped.message = QStringLiteral("the live TensorBoard file could not be written (%1); it stops here, and the run "
                                             "database keeps every row (`trainyard-cli runs export --tensorboard` writes them all)")
                                  .arg(stopped.message);
            return stopped;
        }
        return Status::success();
    });
    return Status::success();
}

} // namespace ty::cli
