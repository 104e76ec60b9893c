// trainyard-cli run PRESET [--overlay FILE]... [--set K=V]... [--init-from RUN[:CHECKPOINT]|FILE] [--init-map NAME|JSON] [--db PATH] [--name NAME]
//                  [--device auto|cpu|cuda] [--nproc N] [--note TEXT] [--tag TAG]... [--tensorboard DIR] [--team URL] [--json] [--quiet]
// With --nproc N, or under a launcher's environment (torchrun, srun), a data-parallel run (distributed_launch.h).
// trainyard-cli run --sweep ID --trial N [--set K=V]... [--db PATH] [--events]: one trial of a sweep, started by
// the sweep driver (sweep_driver.h), its preset built from the sweep's record.

#include "commands.h"
#include "training_module.h"
#include "event_stream.h"
#include "init_from_source.h"
#include "json_io.h"
#include "live_tensorboard.h"
#include "preset_format.h"
#include "preset_overrides.h"
#include "run_annotations.h"
#include "team_store.h"
#include "run_database.h"
#include "run_queue.h"
#include "run_session.h"
#include "shape_inference.h"
#include "sweep_trials.h"
#include "preset_sections.h"

#include <QFileInfo>
#include <QJsonArray>

namespace ty::cli {

namespace {

// The overlay files merged into the preset, in order, each with the sha256 of the bytes merged.
QJsonArray overlaySources(const QStringList &overlays, const QStringList &sha256)
{
    QJsonArray sources;
    for (qsizetype i = 0; i < overlays.size(); ++i)
        sources.append(QJsonObject{{QStringLiteral("file"), QFileInfo(overlays[i]).absoluteFilePath()},
                                   {QStringLiteral("sha256"), sha256.value(i)}});
    return sources;
}

// --name, else the preset's name, else the file's base name.
QString runName(const QString &given, const Preset &preset, const QString &path)
{
    return !given.isEmpty() ? given : !preset.name.isEmpty() ? preset.name : QFileInfo(path).completeBaseName();
}

// `name`: as runName() chose it.
NewRun describeRun(const Preset &preset, const TrainStart &start, const QString &path, const QString &name,
                   const QStringList &arguments, const QStringList &overlays, const QStringList &overlaySha256,
                   const std::optional<InitFromSource> &initFrom)
{
    NewRun run = describeNewRun(preset, start, path, name, QStringLiteral("run"), arguments);
    run.provenance.insert(QStringLiteral("deterministic"), trainingSettings(preset).deterministic);
    run.provenance.insert(QStringLiteral("samples"), QJsonObject{{QStringLiteral("train"), start.trainSamples},
                                                                 {QStringLiteral("val"), start.valSamples},
                                                                 {QStringLiteral("test"), start.testSamples}});
    // The thread counts decide the order of floating-point sums, so a run is reproduced bit for bit only with them.
    QJsonObject threads{{QStringLiteral("torch"), start.cpuThreads}};
    for (const char *name : {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"}) {
        const QByteArray value = qgetenv(name);
        threads.insert(QString::fromLatin1(name), value.isNull() ? QJsonValue() : QJsonValue(QString::fromLocal8Bit(value)));
    }
    run.provenance.insert(QStringLiteral("threads"), threads);
    if (initFrom) {
        QJsonObject parent = initFrom->parent;
        if (!start.importReport.isEmpty())
            parent.insert(QStringLiteral("import"), start.importReport);
        run.provenance.insert(QStringLiteral("init_from"), parent);
    }
    if (!overlays.isEmpty())
        run.provenance.insert(QStringLiteral("overlays"), overlaySources(overlays, overlaySha256));
    return run;
}

} // namespace

int runCommand(const QStringList &arguments, Io &io)
{
    Args args = parseArgs(arguments, runValuedOptions(), runFlags());
    const bool isTrial = args.options.contains(QStringLiteral("sweep"));
    if (!args.error.isEmpty() || args.positionals.size() != (isTrial ? 0 : 1)) {
        io.err << (args.error.isEmpty() ? QString() : args.error + QStringLiteral("\n"))
               << "usage: trainyard-cli run PRESET [--overlay FILE]... [--set KEY=VALUE]... [--init-from RUN[:last|best|STEP]|FILE] [--init-map NAME|JSON] [--db PATH] [--name NAME] "
                  "[--device auto|cpu|cuda] [--nproc N] [--note TEXT] [--tag TAG]... [--tensorboard DIR] [--team URL] [--json|--events] [--quiet]\n";
        return BadInput;
    }
    if (!checkRunAnnotations(args, io) || !checkTeamStore(trainingTeamStore(args), io))
        return BadInput;
    // A rank of a launcher's run that fails from here on tells the others as it leaves (distributed_launch.h).
    const std::unique_ptr<DistributedLaunch> launch = DistributedLaunch::fromArguments(args, io);
    if (!launch)
        return BadInput;
    if (args.options.contains(QStringLiteral("device")))
        args.sets << QStringLiteral("training.device=") + args.option(QStringLiteral("device"));
    applyTensorBoardOption(&args);
    Preset preset;
    SweepRecord sweep;
    int trial = -1;
    QStringList overlaySha256;  // of each --overlay as merged
    QString name = args.option(QStringLiteral("name"));
    if (isTrial) {
        if (!loadSweepTrialPreset(args, &preset, &sweep, &trial, io))
            return BadInput;
        if (name.isEmpty())
            name = sweepTrialName(recordedTrials(sweep).at(trial));
    } else if (!loadPresetWithOverrides(args.positionals.first(), args, &preset, io, &overlaySha256)) {
        return BadInput;
    }
    const QString path = isTrial ? sweep.presetFile : args.positionals.first();
    if (args.options.contains(QStringLiteral("init-from")))
        if (const Status set = setInitFromOption(&preset, args.option(QStringLiteral("init-from"))); !set) {
            reportError(set.error(), args, io);
            return BadInput;
        }
    if (args.options.contains(QStringLiteral("init-map")))
        if (const Status set = setInitMapOption(&preset, args.option(QStringLiteral("init-map"))); !set) {
            reportError(set.error(), args, io);
            return BadInput;
        }
    const ShapeReport report = inspectPreset(preset);
    for (const Issue &issue : report.issues) {
        io.err << path << ": " << issue.toString() << "\n";
        if (issue.severity == Severity::Error && args.flag(QStringLiteral("events"))) {
            Error e;
            e.file = path;
            e.node = issue.node;
            e.field = issue.port.isEmpty() ? issue.param : issue.port;
            e.message = issue.message;
            EventStream(io.out).error(e);
        }
    }
    if (!report.ok()) {
        io.err << "nothing was run or recorded: fix the errors above (see `trainyard-cli validate " << path << "`)\n";
        return BadInput;
    }

    const TrainingSettings settings = trainingSettings(preset);
    const QString dbPath = databasePath(args);
    const Result<std::optional<InitFromSource>> initFrom = resolveInitFrom(preset, dbPath);
    if (!initFrom) {
        reportError(initFrom.error(), args, io);
        return BadInput;
    }
    std::optional<TrainOptions::WarmStartSource> weights;
    if (initFrom.value())
        weights = initFrom.value()->weights;
    // Every rank, before anything starts or waits for a turn in the queue.
    if (const int checked = launch->checkBackend(settings, args, io); checked != Success)
        return checked;
    if (!launch->writesRun()) {
        // Another rank of a distributed run: its shard of every batch, nothing recorded.
        if (const int joined = launch->join(QStringLiteral("run"), arguments, settings, args, io); joined != Success)
            return joined;
        std::unique_ptr<PreparedTraining> training = prepareTraining(preset, QString(), -1, args, io, weights, launch.get());
        return training ? trainWorkerRank(*training, *launch, io) : BadInput;
    }
    // Where its live TensorBoard file goes must be writable before anything is recorded or trained.
    const QString tensorBoardDir = tensorBoardDirOf(preset);
    if (!tensorBoardDir.isEmpty())
        if (const Status writable = checkTensorBoardDir(tensorBoardDir, path); !writable) {
            reportError(writable.error(), args, io);
            return BadInput;
        }
    // Under the database's limit on runs at once, wait for a slot before loading anything (run_queue.h).
    NewQueueEntry entry;
    name = runName(name, preset, path);
    entry.name = name;
    entry.kind = isTrial ? QStringLiteral("trial") : QStringLiteral("run");
    entry.sweepId = sweep.id;
    entry.sweepTrial = trial;
    std::unique_ptr<QueuePlace> queued;
    if (const int waited = waitForTurn(dbPath, entry, args, io, &queued); waited != Success)
        return waited;
    // The other ranks start once this one may run.
    if (const int joined = launch->join(QStringLiteral("run"), arguments, settings, args, io); joined != Success)
        return joined;
    // Data, model and optimizer before the database: a truncated data file is bad input that records nothing.
    std::unique_ptr<PreparedTraining> training = prepareTraining(preset, QString(), -1, args, io, weights, launch.get());
    if (!training)
        return BadInput;
    if (!args.flag(QStringLiteral("quiet")) && !args.flag(QStringLiteral("events")))
        for (const QString &line : training->info().importLines)
            io.err << line << "\n";
    if (stoppedBeforeTraining(args, io))
        return Stopped;

    Result<std::unique_ptr<RunDatabase>> db = RunDatabase::open(dbPath);
    if (!db) {
        reportError(db.error(), args, io);
        return BadInput;
    }
    NewRun description = describeRun(preset, training->info(), path, name, arguments, args.overlays, overlaySha256, initFrom.value());
    if (launch->distributed())
        description.provenance.insert(QStringLiteral("distributed"), launch->record());
    if (isTrial) {
        description.sweepId = sweep.id;
        description.sweepTrial = trial;
    }
    Result<qint64> created = db.value()->createRun(description);
    if (!created) {
        reportError(created.error(), args, io);
        return BadInput;
    }
    if (queued)
        queued->leave();  // the run, queued then running, holds the slot from here
    annotateNewRun(*db.value(), created.value(), args, io);
    // A link left where the new run's folder goes (runs.sqlite-runs/ID -> elsewhere) is not written through.
    const Result<QString> folder = db.value()->writableRunFolder(created.value(), QString());
    if (!folder) {
        db.value()->setStatus(created.value(), RunStatus::Failed, folder.error().toString());
        reportError(folder.error(), args, io);
        return BadInput;
    }
    std::shared_ptr<TensorBoardEventFile> tensorBoard;
    if (!tensorBoardDir.isEmpty()) {
        Result<std::shared_ptr<TensorBoardEventFile>> file = createRunEventFile(tensorBoardDir, created.value(), name);
        if (!file) {
            db.value()->setStatus(created.value(), RunStatus::Failed, file.error().toString());
            reportError(file.error(), args, io);
            return BadInput;
        }
        tensorBoard = file.value();
    }
    return trainAndRecord(*training, dbPath, created.value(), folder.value(), args, io, {}, tensorBoard);
}

} // namespace ty::cli
