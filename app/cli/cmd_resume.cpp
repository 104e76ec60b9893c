// trainyard-cli resume RUN_ID [--db PATH] [--nproc N] [--tensorboard DIR] [--json|--events] [--quiet]
// A distributed run resumes with as many processes as it trained with (distributed_launch.h).

#include "commands.h"
#include "team_store.h"
#include "training_module.h"
#include "live_tensorboard.h"
#include "preset_format.h"
#include "run_checkpoints.h"
#include "run_database.h"
#include "run_queue.h"
#include "run_session.h"

#include "preset_sections.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonObject>

namespace ty::cli {

int resumeCommand(const QStringList &arguments, Io &io)
{
    const Args args = parseArgs(arguments, {QStringLiteral("db"), QStringLiteral("nproc"), QStringLiteral("tensorboard"), QStringLiteral("team")}, {QStringLiteral("json"), QStringLiteral("quiet"), QStringLiteral("events")});
    bool idOk = false;
    const qint64 id = args.positionals.value(0).toLongLong(&idOk);
    if (!args.error.isEmpty() || args.positionals.size() != 1 || !idOk || !args.sets.isEmpty()) {
        io.err << (args.error.isEmpty() ? QString() : args.error + QStringLiteral("\n"))
               << (args.sets.isEmpty() ? QString() : QStringLiteral("resume continues the run with the preset it was started with: --set is not accepted\n"))
               << "usage: trainyard-cli resume RUN_ID [--db PATH] [--nproc N] [--tensorboard DIR] [--team URL] [--json|--events] [--quiet]\n";
        return BadInput;
    }
    if (!checkTeamStore(trainingTeamStore(args), io))
        return BadInput;
    // A rank of a launcher's run that fails from here on tells the others as it leaves (distributed_launch.h).
    const std::unique_ptr<DistributedLaunch> launch = DistributedLaunch::fromArguments(args, io);
    if (!launch)
        return BadInput;
    const QString dbPath = databasePath(args);
    Result<std::unique_ptr<RunDatabase>> opened = RunDatabase::open(dbPath);
    if (!opened) {
        reportError(opened.error(), args, io);
        return BadInput;
    }
    RunDatabase &db = *opened.value();
    Result<RunInfo> run = db.run(id);
    if (!run) {
        reportError(run.error(), args, io);
        return BadInput;
    }
    const int trainedWith = run.value().provenance.value(QStringLiteral("distributed")).toObject().value(QStringLiteral("world_size")).toInt(1);
    if (trainedWith != launch->setup().worldSize) {
        io.err << "error: run " << id << " trained with " << trainedWith << (trainedWith == 1 ? " process" : " processes")
               << ", and this resume would use " << launch->setup().worldSize
               << ": resume it with as many (--nproc " << trainedWith << ", or a launcher starting " << trainedWith
               << "), so that it continues exactly as it would have\n";
        return BadInput;
    }
    const RunStatus status = run.value().status;
    // Rank 0 claims the run; the other ranks of a distributed resume read it while it does.
    if (launch->writesRun() && status != RunStatus::Interrupted && status != RunStatus::Stopped && status != RunStatus::Failed) {
        io.err << "error: run " << id << " is " << runStatusName(status)
               << "; only interrupted, stopped or failed runs can be resumed\n";
        return BadInput;
    }
    // Where its files go is input too: an edited folder or a link in the run's folder is refused before anything
    // changes. (A damaged database is refused by claimRunForResume, which checks it before writing.)
    Result<QString> folder = launch->writesRun() ? db.writableRunFolder(id, run.value().folder) : Result<QString>(QString());
    if (!folder) {
        reportError(folder.error(), args, io);
        return BadInput;
    }
    // The preset as it was run; relative data paths still resolve against the original preset file.
    Result<Preset> preset = presetFromJson(run.value().preset,
                                           run.value().provenance.value(QStringLiteral("preset_file")).toString());
    if (!preset) {
        reportError(preset.error(), args, io);
        return BadInput;
    }

    // The newest recorded checkpoint whose file is still there; without one, start again from step 0.
    // Only the very file this run wrote: not another run's checkpoint copied over it, nor a damaged one.
    Result<QList<CheckpointRecord>> checkpoints = db.checkpoints(id);
    Result<std::optional<CheckpointRecord>> newest = checkpoints ? findCheckpoint(checkpoints.value(), QStringLiteral("last"), id)
                                                                 : Result<std::optional<CheckpointRecord>>(checkpoints.error());
    const Status verified = newest && newest.value() ? verifyCheckpointFile(*newest.value(), id) : Status::success();
    if (!newest || !verified) {
        reportError(!newest ? newest.error() : verified.error(), args, io);
        return BadInput;
    }
    const QString checkpoint = newest.value() ? newest.value()->path : QString();
    const qint64 step = newest.value() ? newest.value()->step : 0;
    if (checkpoint.isEmpty() && !args.flag(QStringLiteral("json")))
        io.err << "run " << id << " has no checkpoint: training again from the start\n";
    const TrainingSettings settings = trainingSettings(preset.value());
    // Every rank, before anything starts or waits for a turn in the queue.
    if (const int checked = launch->checkBackend(settings, args, io); checked != Success)
        return checked;
    if (!launch->writesRun()) {
        if (const int joined = launch->join(QStringLiteral("resume"), arguments, settings, args, io); joined != Success)
            return joined;
        std::unique_ptr<PreparedTraining> training = prepareTraining(preset.value(), checkpoint, id, args, io, std::nullopt, launch.get());
        return training ? trainWorkerRank(*training, *launch, io) : BadInput;
    }
    // The live TensorBoard file goes on in a new file of the run's folder: --tensorboard, else the recorded preset's field.
    const QString presetFile = run.value().provenance.value(QStringLiteral("preset_file")).toString();
    const QString tensorBoardDir = args.options.contains(QStringLiteral("tensorboard"))
                                       ? absoluteTensorBoardDir(args.option(QStringLiteral("tensorboard")))
                                       : tensorBoardDirOf(preset.value());
    if (!tensorBoardDir.isEmpty())
        if (const Status writable = checkTensorBoardDir(tensorBoardDir, presetFile); !writable) {
            reportError(writable.error(), args, io);
            return BadInput;
        }
    NewQueueEntry entry;
    entry.name = run.value().name;
    entry.kind = QStringLiteral("resume");
    entry.runId = id;
    entry.sweepId = run.value().sweepId;
    entry.sweepTrial = run.value().sweepTrial;
    std::unique_ptr<QueuePlace> queued;
    if (const int waited = waitForTurn(dbPath, entry, args, io, &queued); waited != Success)
        return waited;
    if (const int joined = launch->join(QStringLiteral("resume"), arguments, settings, args, io); joined != Success)
        return joined;
    std::unique_ptr<PreparedTraining> training = prepareTraining(preset.value(), checkpoint, id, args, io, std::nullopt, launch.get());
    if (!training)
        return BadInput;
    if (stoppedBeforeTraining(args, io))
        return Stopped;
    // Its new event file starts with TensorBoard's restart mark at the first step trained again.
    std::shared_ptr<TensorBoardEventFile> tensorBoard;
    if (!tensorBoardDir.isEmpty()) {
        Result<std::shared_ptr<TensorBoardEventFile>> file = createRunEventFile(tensorBoardDir, id, run.value().name, step + 1);
        if (!file) {
            reportError(file.error(), args, io);
            return BadInput;
        }
        tensorBoard = file.value();
    }
    // Only one process resumes a run: whoever claims it first (the other may have waited in the queue meanwhile).
    // Claimed, the run is queued and holds its slot in the run queue from here.
    // Its rows after the checkpoint go in the same transaction, so curves never overlap or repeat.
    if (const Status claimed = db.claimRunForResume(id, step); !claimed) {
        if (tensorBoard)
            QFile::remove(tensorBoard->path());  // holds no row: another process resumes the run, or none
        reportError(claimed.error(), args, io);
        return BadInput;
    }
    queued.reset();
    QList<TrainOptions::OwnedCheckpoint> owned;
    for (const CheckpointRecord &c : checkpoints.value())
        owned.append(TrainOptions::OwnedCheckpoint{c.path, c.sha256, c.step, c.best});
    return trainAndRecord(*training, dbPath, id, folder.value(), args, io, owned, tensorBoard);
}

} // namespace ty::cli
