// trainyard-cli lrfind PRESET [--min LR] [--max LR] [--steps N] [--overlay FILE]... [--set K=V]... [--db PATH]
//                     [--name NAME] [--device auto|cpu|cuda] [--json] [--quiet]
// The learning-rate range test (docs/evaluation.md#learning-rate-finder): a freshly initialised copy of the preset's
// model trains with its optimizer while the rate grows from --min to --max, recorded as a run of kind lrfind.

#include "commands.h"
#include "lrfind_report.h"
#include "preset_format.h"
#include "preset_sections.h"
#include "run_database.h"
#include "run_session.h"
#include "run_writer.h"
#include "shape_inference.h"
#include "terminal_progress.h"

#include <QElapsedTimer>
#include <QFileInfo>

namespace ty::cli {

namespace {

const char kUsage[] = "usage: trainyard-cli lrfind PRESET [--min LR] [--max LR] [--steps N] [--overlay FILE]... [--set KEY=VALUE]... "
                      "[--db PATH] [--name NAME] [--device auto|cpu|cuda] [--json] [--quiet]\n";

NewRun describeTest(const Preset &preset, const TrainStart &start, const QString &path, const QString &name,
                    const QStringList &arguments, const LrFindOptions &options)
{
    NewRun run = describeNewRun(preset, start, path, name, QStringLiteral("lrfind"), arguments);
    run.kind = QString::fromLatin1(kRunKindLrFind);
    run.provenance.insert(QStringLiteral("lrfind"), QJsonObject{{QStringLiteral("min_lr"), options.minLr},
                                                                {QStringLiteral("max_lr"), options.maxLr},
                                                                {QStringLiteral("steps"), options.steps}});
    return run;
}

RunStatus statusOf(const LrFindResult &result)
{
    return result.failed ? RunStatus::Failed : result.stoppedByRequest ? RunStatus::Stopped : RunStatus::Finished;
}

} // namespace

int lrfindCommand(const QStringList &arguments, Io &io)
{
    Args args = parseArgs(arguments,
                          {QStringLiteral("db"), QStringLiteral("name"), QStringLiteral("device"), QStringLiteral("overlay"),
                           QStringLiteral("min"), QStringLiteral("max"), QStringLiteral("steps")},
                          {QStringLiteral("json"), QStringLiteral("quiet")});
    if (!args.error.isEmpty() || args.positionals.size() != 1) {
        io.err << (args.error.isEmpty() ? QString() : args.error + QStringLiteral("\n")) << kUsage;
        return BadInput;
    }
    QString optionError;
    const LrFindOptions options = lrFindOptionsFrom(args, &optionError);
    if (!optionError.isEmpty()) {
        io.err << "trainyard-cli lrfind: " << optionError << "\n" << kUsage;
        return BadInput;
    }
    if (args.options.contains(QStringLiteral("device")))
        args.sets << QStringLiteral("training.device=") + args.option(QStringLiteral("device"));
    const QString path = args.positionals.first();
    Preset preset;
    if (!loadPresetWithOverrides(path, args, &preset, io))
        return BadInput;
    const ShapeReport report = inspectPreset(preset);
    for (const Issue &issue : report.issues)
        io.err << path << ": " << issue.toString() << "\n";
    if (!report.ok()) {
        io.err << "nothing was run or recorded: fix the errors above (see `trainyard-cli validate " << path << "`)\n";
        return BadInput;
    }
    // A test of the preset's own first weights: a warm start would test another model.
    preset.training.remove(QStringLiteral("init_from"));
    std::unique_ptr<PreparedTraining> training = prepareTraining(preset, QString(), -1, args, io);
    if (!training)
        return BadInput;
    if (stoppedBeforeTraining(args, io))
        return Stopped;

    const QString dbPath = databasePath(args);
    Result<std::unique_ptr<RunDatabase>> db = RunDatabase::open(dbPath);
    if (!db) {
        printError(io, db.error());
        return BadInput;
    }
    const QString name = !args.option(QStringLiteral("name")).isEmpty() ? args.option(QStringLiteral("name"))
                         : QStringLiteral("lrfind %1").arg(!preset.name.isEmpty() ? preset.name : QFileInfo(path).completeBaseName());
    const Result<qint64> created = db.value()->createRun(describeTest(preset, training->info(), path, name, arguments, options));
    if (!created) {
        printError(io, created.error());
        return BadInput;
    }
    const qint64 runId = created.value();
    RunWriter writer(dbPath, runId);
    if (const Status started = writer.start(); !started) {
        printError(io, started.error());
        return RunFailed;
    }
    const bool json = args.flag(QStringLiteral("json"));
    const bool chatty = !json && !args.flag(QStringLiteral("quiet"));
    if (chatty)
        io.err << "learning-rate test recorded as run " << runId << " in " << dbPath << "\n";
    io.err.flush();
    TerminalProgress progress(io.err);
    QElapsedTimer clock;
    clock.start();
    const LrFindResult result = training->findLearningRate(options, [&](int step, const RangeTestPoint &point) {
        const double time = clock.elapsed() / 1000.0;
        writer.appendMetrics({MetricPoint{QStringLiteral("lrfind/lr"), step + 1, 1, time, point.lr},
                              MetricPoint{QStringLiteral("lrfind/loss"), step + 1, 1, time, point.loss},
                              MetricPoint{QStringLiteral("lrfind/smoothed_loss"), step + 1, 1, time, point.smoothed}});
        if (chatty)
            progress.update(step + 1, options.steps, QStringLiteral("lr %1").arg(point.lr, 0, 'e', 2), point.smoothed);
        return !stopFlag().load();
    });
    if (chatty)
        progress.clear();
    const double presetLr = flattenParams(preset).value(result.optimizerNode + QStringLiteral(".lr")).toDouble();
    QJsonObject recorded = lrFindResultJson(options, result, presetLr);
    Status stored = db.value()->setRunResult(runId, recorded);
    const Status finished = writer.finish(stored ? statusOf(result) : RunStatus::Failed,
                                          stored ? result.message : stored.error().toString());
    if (!stored || !finished) {
        printError(io, !stored ? stored.error() : finished.error());
        return RunFailed;
    }
    if (json) {
        recorded.insert(QStringLiteral("id"), runId);
        recorded.insert(QStringLiteral("status"), runStatusName(statusOf(result)));
        recorded.insert(QStringLiteral("message"), result.message);
        recorded.insert(QStringLiteral("db"), dbPath);
        recorded.insert(QStringLiteral("curve"), lrFindCurveJson(result));
        printJson(io, recorded);
    } else {
        for (const QString &line : lrFindReportLines(options, result))
            io.out << line << "\n";
        io.out << "recorded as run " << runId << " (kind lrfind)";
        if (!result.message.isEmpty())
            io.out << ": " << result.message;
        io.out << "\n";
    }
    return result.failed ? RunFailed : result.stoppedByRequest ? Stopped : Success;
}

} // namespace ty::cli
