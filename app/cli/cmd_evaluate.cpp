// trainyard-cli evaluate RUN_ID [--split test|val|train] [--checkpoint last|best|STEP] [--top K] [--mistakes N]
//                              [--device D] [--db PATH] [--json]
// Runs a run's weights on a split of its data in evaluation mode, stores the result in the run database and prints
// it (docs/evaluation.md).

#include "commands.h"
#include "evaluation_store.h"
#include "evaluator.h"
#include "preset_format.h"
#include "run_checkpoints.h"
#include "run_database.h"
#include "training_module.h"

#include <QJsonObject>

namespace ty::cli {

namespace {

const char *const kEvaluateUsage =
    "usage: trainyard-cli evaluate RUN_ID [--split test|val|train] [--checkpoint last|best|STEP] [--top K] [--mistakes N]\n"
    "                              [--device auto|cpu|cuda] [--db PATH] [--json]\n";

// A positive integer option, or `fallback` when absent; an Error names the option otherwise.
Result<int> countOption(const Args &args, const QString &name, int fallback, int maximum)
{
    if (!args.options.contains(name))
        return fallback;
    bool ok = false;
    const int value = args.option(name).toInt(&ok);
    if (!ok || value < 0 || value > maximum)
        return Error::atField(QStringLiteral("--") + name, QStringLiteral("must be a whole number from 0 to %1, not \"%2\"").arg(maximum).arg(args.option(name).left(20)));
    return value;
}

} // namespace

int evaluateCommand(const QStringList &arguments, Io &io)
{
    const Args args = parseArgs(arguments,
                                {QStringLiteral("db"), QStringLiteral("split"), QStringLiteral("checkpoint"), QStringLiteral("top"),
                                 QStringLiteral("mistakes"), QStringLiteral("device")},
                                {QStringLiteral("json")});
    bool idOk = false;
    const qint64 id = args.positionals.value(0).toLongLong(&idOk);
    if (!args.error.isEmpty() || args.positionals.size() != 1 || !idOk || !args.sets.isEmpty()) {
        io.err << (args.error.isEmpty() ? QString() : args.error + QStringLiteral("\n"))
               << (args.sets.isEmpty() ? QString() : QStringLiteral("evaluate uses the preset the run was trained with: --set is not accepted\n"))
               << kEvaluateUsage;
        return BadInput;
    }
    const Result<int> top = countOption(args, QStringLiteral("top"), 5, 1000);
    const Result<int> mistakes = countOption(args, QStringLiteral("mistakes"), 10, 100000);
    if (!top || !mistakes) {
        printError(io, !top ? top.error() : mistakes.error());
        return BadInput;
    }
    const QString dbPath = databasePath(args);
    const Result<RunCheckpoint> recorded = verifiedRunCheckpoint(
        dbPath, id, args.options.value(QStringLiteral("checkpoint"), QStringLiteral("last")), QStringLiteral("evaluate"));
    if (!recorded) {
        printError(io, recorded.error());
        return BadInput;
    }
    const RunInfo &run = recorded.value().run;
    const CheckpointRecord &checkpoint = recorded.value().checkpoint;
    // The preset as it was run; relative data paths still resolve against the original preset file.
    Result<Preset> preset = presetFromJson(run.preset, run.provenance.value(QStringLiteral("preset_file")).toString());
    if (!preset) {
        printError(io, preset.error());
        return BadInput;
    }
    EvaluateOptions options;
    options.split = args.options.value(QStringLiteral("split"), QStringLiteral("test"));
    options.weightsPath = checkpoint.path;
    options.checkpointStep = checkpoint.step;
    options.device = args.option(QStringLiteral("device"));
    options.topK = std::max(1, top.value());
    Result<EvaluationReport> report = evaluateWeights(preset.value(), options);
    if (!report) {
        printError(io, report.error());
        return BadInput;
    }
    const Result<qint64> stored = storeEvaluation(dbPath, id, report.value());
    if (!stored) {
        printError(io, stored.error());
        return RunFailed;
    }
    if (args.flag(QStringLiteral("json"))) {
        QJsonObject json = evaluationToJson(report.value(), mistakes.value());
        json.insert(QStringLiteral("run"), id);
        json.insert(QStringLiteral("evaluation"), stored.value());
        printJson(io, json);
    } else {
        io.out << "run " << id << ": " << evaluationText(report.value(), mistakes.value());
    }
    return Success;
}

} // namespace ty::cli
