#include "run_session.h"

#include "commands.h"
#include "preset_format.h"
#include "preset_sections.h"
#include "run_database.h"
#include "run_recorder.h"
#include "run_writer.h"
#include "shape_inference.h"
#include "event_stream.h"
#include "live_tensorboard.h"
#include "evaluation_store.h"
#include "team_replicator.h"
#include "team_store.h"
#include "version.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QSysInfo>

namespace ty::cli {

namespace {

RunStatus statusOf(TrainOutcome outcome)
{
    switch (outcome) {
    case TrainOutcome::Finished: return RunStatus::Finished;
    case TrainOutcome::Failed: return RunStatus::Failed;
    case TrainOutcome::Diverged: return RunStatus::Diverged;
    case TrainOutcome::Stopped: return RunStatus::Stopped;
    case TrainOutcome::Interrupted: return RunStatus::Interrupted;
    }
    return RunStatus::Failed;
}

int exitCodeOf(TrainOutcome outcome)
{
    switch (outcome) {
    case TrainOutcome::Finished: return Success;
    case TrainOutcome::Stopped: return Stopped;
    default: return RunFailed;
    }
}

void printSummary(qint64 runId, const TrainResult &result, const QString &dbPath, const QString &folder, bool json, Io &io)
{
    const QString status = runStatusName(statusOf(result.outcome));
    if (json) {
        QJsonObject summary;
        for (auto it = result.lastMetrics.constBegin(); it != result.lastMetrics.constEnd(); ++it)
            summary.insert(it.key(), it.value());
        printJson(io, QJsonObject{{QStringLiteral("id"), runId}, {QStringLiteral("status"), status},
                                  {QStringLiteral("message"), result.message}, {QStringLiteral("steps"), result.steps},
                                  {QStringLiteral("epochs"), result.epochs}, {QStringLiteral("summary"), summary},
                                  {QStringLiteral("db"), dbPath}, {QStringLiteral("folder"), folder},
                                  {QStringLiteral("checkpoint"), result.finalCheckpoint}});
        return;
    }
    io.out << "run " << runId << " " << status << " after " << result.epochs << " epochs, " << result.steps << " steps";
    if (!result.message.isEmpty())
        io.out << ": " << result.message;
    io.out << "\n";
    for (auto it = result.lastMetrics.constBegin(); it != result.lastMetrics.constEnd(); ++it)
        if (!it.key().startsWith(QStringLiteral("train/")))
            io.out << "  " << it.key() << " " << QString::number(it.value(), 'f', 4) << "\n";
    if (!result.finalCheckpoint.isEmpty())
        io.out << "  checkpoint " << result.finalCheckpoint << "\n";
    io.out.flush();
}

// How long rows that cannot be committed are kept and retried before the run ends failed: TRAINYARD_DB_RETRY_SECONDS
// (docs/cli.md), else RunWriter's default.
int databaseRetryMs()
{
    bool ok = false;
    const int seconds = qEnvironmentVariableIntValue("TRAINYARD_DB_RETRY_SECONDS", &ok);
    if (!ok || seconds < 0 || seconds > 24 * 3600)
        return RunWriter::kDefaultRetryForMs;
    return seconds * 1000;
}

} // namespace

NewRun describeNewRun(const Preset &preset, const TrainStart &start, const QString &path, const QString &name, const QString &command,
                      const QStringList &arguments)
{
    NewRun run;
    run.name = name;
    run.preset = presetToJson(preset);
    run.presetHash = presetHash(preset);
    run.params = flattenParams(preset);
    run.appVersion = appVersion();
    run.torchVersion = torchVersion();
    run.qtVersion = qtVersion();
    run.device = start.device;
    run.seed = trainingSettings(preset).seed;
    run.provenance = QJsonObject{{QStringLiteral("preset_file"), QFileInfo(path).absoluteFilePath()},
                                 {QStringLiteral("command"), QJsonArray::fromStringList(QStringList{QStringLiteral("trainyard-cli"), command} + argumentsWithoutPasswords(arguments))},
                                 {QStringLiteral("host"), QSysInfo::machineHostName()},
                                 {QStringLiteral("os"), QSysInfo::prettyProductName()},
                                 {QStringLiteral("data_sha256"), start.dataFingerprint}};
    return run;
}

std::unique_ptr<PreparedTraining> prepareTraining(const Preset &preset, const QString &resumeCheckpoint, qint64 runId,
                                                  const Args &args, Io &io,
                                                  const std::optional<TrainOptions::WarmStartSource> &initFrom,
                                                  const DistributedLaunch *launch)
{
    TrainOptions options{QString(), QString(), resumeCheckpoint, runId, initFrom};
    if (launch) {
        options.group = launch->group();
        options.threads = launch->threads();
    }
    Result<std::unique_ptr<PreparedTraining>> prepared = Trainer::prepare(preset, options);
    if (!prepared) {
        reportError(prepared.error(), args, io);
        return nullptr;
    }
    return std::move(prepared).value();
}

bool stoppedBeforeTraining(const Args &args, Io &io)
{
    if (!stopFlag().load())
        return false;
    Error e;
    e.message = QStringLiteral("stopped before training started: nothing was recorded or changed");
    reportError(e, args, io);
    return true;
}

int trainAndRecord(PreparedTraining &training, const QString &dbPath, qint64 runId, const QString &folder, const Args &args,
                   Io &io, const QList<TrainOptions::OwnedCheckpoint> &owned, std::shared_ptr<TensorBoardEventFile> tensorBoard)
{
    RunWriter writer(dbPath, runId, 1000, databaseRetryMs());
    const Status started = writer.start();
    if (!started) {
        printError(io, started.error());
        return RunFailed;
    }
    const bool json = args.flag(QStringLiteral("json"));
    const bool events = args.flag(QStringLiteral("events"));
    const bool chatty = !json && !events && !args.flag(QStringLiteral("quiet"));
    if (chatty)
        io.err << "run " << runId << " recorded in " << dbPath << "\n";
    if (tensorBoard) {
        const QString eventFile = tensorBoard->path();
        if (const Status fed = feedTensorBoard(writer, std::move(tensorBoard), dbPath, runId); !fed)
            io.err << "warning: the run trains without its TensorBoard file " << eventFile << ": " << fed.error().toString() << "\n";
        else if (chatty)
            io.err << "TensorBoard event file " << eventFile << "\n";
    }
    io.err.flush();
    // The team store's replicator, on its own thread: training never waits on the network (docs/team.md).
    std::unique_ptr<TeamReplicator> replicator = startTeamReplication(args, dbPath, runId);
    RunRecorder recorder(writer, io, args.flag(QStringLiteral("quiet")) || events);
    EventStream stream(io.out);
    if (events)
        recorder.setEventStream(&stream, runId, dbPath);
    training.setRunFolder(folder, runId, owned);
    const TrainResult result = training.run(recorder);
    recorder.clearProgress();
    if (result.outcome == TrainOutcome::Finished && recorder.currentStage() >= 0)
        writer.recordStage(StageRecord{recorder.currentStage(), {}, 0, result.steps});
    TrainResult ending = result;
    const Status finished = writer.finish(statusOf(ending.outcome), ending.message, ending.errorNode);
    if (!finished) {
        printError(io, finished.error());
        // Rows were lost (the writer then records the run failed, whatever it was told) or the status not written.
        if (ending.outcome != TrainOutcome::Failed) {
            ending.outcome = TrainOutcome::Failed;
            ending.message = QStringLiteral("the run database could not be written: %1").arg(finished.error().toString());
        }
    }
    if (finished && ending.outcome == TrainOutcome::Finished && ending.testEvaluation) {
        // Every finished run is evaluated on its test split (docs/evaluation.md); the run itself is recorded
        // whatever happens here.
        if (const Result<qint64> stored = storeEvaluation(dbPath, runId, *ending.testEvaluation); !stored) {
            Error warning = stored.error();
            warning.message = QStringLiteral("the run finished, but its test evaluation was not stored: %1").arg(warning.message);
            printError(io, warning);
        }
    }
    if (replicator)
        replicator->stop();  // a last pass with the final status, unless the store was down
    if (events)
        stream.finished(runId, runStatusName(statusOf(ending.outcome)), ending);
    else
        printSummary(runId, ending, dbPath, folder, json, io);
    return exitCodeOf(ending.outcome);
}

} // namespace ty::cli
