#include "checkpoint_choice.h"

#include "run_database.h"

#include <QFileInfo>

namespace ty {

namespace {

Error checkpointError(const QString &file, const QString &message)
{
    return Error::inFile(file, message, QStringLiteral("--checkpoint"));
}

} // namespace

Result<std::optional<CheckpointRecord>> findCheckpoint(const QList<CheckpointRecord> &checkpoints, const QString &which,
                                                       qint64 runId)
{
    if (which == QStringLiteral("last")) {
        for (auto it = checkpoints.crbegin(); it != checkpoints.crend(); ++it)
            if (QFileInfo::exists(it->path))
                return std::optional<CheckpointRecord>(*it);
        return std::optional<CheckpointRecord>();
    }
    if (which == QStringLiteral("best")) {
        for (auto it = checkpoints.crbegin(); it != checkpoints.crend(); ++it)
            if (it->best) {
                if (!QFileInfo::exists(it->path))
                    return checkpointError(it->path, QStringLiteral("the best checkpoint of run %1 (step %2) was recorded, but its file is gone").arg(runId).arg(it->step));
                return std::optional<CheckpointRecord>(*it);
            }
        return checkpointError(QString(), QStringLiteral("run %1 has no best checkpoint (one is written after each epoch that improves "
                                                         "training.early_stop_metric, else val/loss; runs without a validation split have none)").arg(runId));
    }
    bool ok = false;
    const qint64 step = which.toLongLong(&ok);
    if (!ok || step < 0)
        return checkpointError(QString(), QStringLiteral("\"%1\" is not a checkpoint: use last, best or a step number").arg(which.left(40)));
    QStringList steps;
    for (auto it = checkpoints.crbegin(); it != checkpoints.crend(); ++it) {
        if (it->step == step && !it->best) {
            if (!QFileInfo::exists(it->path))
                return checkpointError(it->path, QStringLiteral("the checkpoint of run %1 at step %2 was recorded, but its file is gone").arg(runId).arg(step));
            return std::optional<CheckpointRecord>(*it);
        }
        if (!steps.contains(QString::number(it->step)))
            steps.prepend(QString::number(it->step));
    }
    for (auto it = checkpoints.crbegin(); it != checkpoints.crend(); ++it)
        if (it->step == step) {  // only a best checkpoint at this step
            if (!QFileInfo::exists(it->path))
                return checkpointError(it->path, QStringLiteral("the checkpoint of run %1 at step %2 was recorded, but its file is gone").arg(runId).arg(step));
            return std::optional<CheckpointRecord>(*it);
        }
    return checkpointError(QString(), QStringLiteral("run %1 has no checkpoint at step %2 (it has: %3)")
                                          .arg(runId).arg(step).arg(steps.isEmpty() ? QStringLiteral("none") : steps.join(QStringLiteral(", "))));
}

Result<RunCheckpoint> chooseRunCheckpoint(const QString &dbPath, qint64 runId, const QString &which, const QString &purpose)
{
    Result<std::unique_ptr<RunDatabase>> opened = RunDatabase::open(dbPath);
    if (!opened)
        return opened.error();
    Result<RunInfo> run = opened.value()->run(runId);
    if (!run)
        return run.error();
    Result<QList<CheckpointRecord>> checkpoints = opened.value()->checkpoints(runId);
    if (!checkpoints)
        return checkpoints.error();
    const Result<std::optional<CheckpointRecord>> chosen = findCheckpoint(checkpoints.value(), which, runId);
    if (!chosen)
        return chosen.error();
    if (!chosen.value())
        return checkpointError(QString(), QStringLiteral("run %1 has no checkpoint to %2 (it is %3)")
                                              .arg(runId).arg(purpose, runStatusName(run.value().status)));
    return RunCheckpoint{run.value(), *chosen.value()};
}

} // namespace ty
