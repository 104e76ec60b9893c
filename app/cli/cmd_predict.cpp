// trainyard-cli predict RUN_ID INPUT... [--checkpoint last|best|STEP] [--top K] [--device D] [--db PATH] [--json]
// Classifies (or regresses) new inputs with a run's weights: images, IDX files, CSV rows, read the way the run's
// data set is (docs/evaluation.md). One line, or one JSON object, per sample.

#include "commands.h"
#include "predictor.h"
#include "preset_format.h"
#include "run_checkpoints.h"
#include "run_database.h"
#include "training_module.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace ty::cli {

namespace {

const char *const kPredictUsage =
    "usage: trainyard-cli predict RUN_ID INPUT... [--checkpoint last|best|STEP] [--top K] [--device auto|cpu|cuda] [--db PATH] [--json]\n"
    "INPUT: PNG, JPEG or BMP images, IDX files of samples, CSV files with the training columns\n";

QJsonObject predictionJson(const Prediction &p, bool classification)
{
    QJsonObject o{{QStringLiteral("input"), p.input}};
    if (!classification) {
        QJsonArray values;
        for (double v : p.values)
            values.append(v);
        o.insert(QStringLiteral("values"), values);
        return o;
    }
    QJsonArray top;
    for (const ClassProbability &c : p.top)
        top.append(QJsonObject{{QStringLiteral("class"), c.name}, {QStringLiteral("index"), c.index},
                               {QStringLiteral("probability"), c.probability}});
    o.insert(QStringLiteral("predicted"), p.top.empty() ? QString() : p.top.front().name);
    o.insert(QStringLiteral("probability"), p.top.empty() ? 0.0 : p.top.front().probability);
    o.insert(QStringLiteral("top"), top);
    return o;
}

QString predictionText(const Prediction &p, bool classification)
{
    QStringList parts;
    if (!classification) {
        for (double v : p.values)
            parts << QString::number(v, 'g', 6);
        return QStringLiteral("%1: %2\n").arg(p.input, parts.join(QStringLiteral(", ")));
    }
    for (size_t i = 1; i < p.top.size(); ++i)
        parts << QStringLiteral("%1 %2").arg(p.top[i].name, QString::number(p.top[i].probability, 'f', 4));
    QString line = QStringLiteral("%1: %2 %3").arg(p.input, p.top.front().name, QString::number(p.top.front().probability, 'f', 4));
    if (!parts.isEmpty())
        line += QStringLiteral(" (then %1)").arg(parts.join(QStringLiteral(", ")));
    return line + QLatin1Char('\n');
}

} // namespace

int predictCommand(const QStringList &arguments, Io &io)
{
    const Args args = parseArgs(arguments, {QStringLiteral("db"), QStringLiteral("checkpoint"), QStringLiteral("top"), QStringLiteral("device")},
                                {QStringLiteral("json")});
    bool idOk = false;
    const qint64 id = args.positionals.value(0).toLongLong(&idOk);
    if (!args.error.isEmpty() || args.positionals.size() < 2 || !idOk || !args.sets.isEmpty()) {
        io.err << (args.error.isEmpty() ? QString() : args.error + QStringLiteral("\n")) << kPredictUsage;
        return BadInput;
    }
    int topK = 3;
    if (args.options.contains(QStringLiteral("top"))) {
        bool ok = false;
        topK = args.option(QStringLiteral("top")).toInt(&ok);
        if (!ok || topK < 1 || topK > 1000) {
            printError(io, Error::atField(QStringLiteral("--top"), QStringLiteral("must be a whole number from 1 to 1000, not \"%1\"").arg(args.option(QStringLiteral("top")).left(20))));
            return BadInput;
        }
    }
    const Result<RunCheckpoint> recorded = verifiedRunCheckpoint(
        databasePath(args), id, args.options.value(QStringLiteral("checkpoint"), QStringLiteral("last")), QStringLiteral("predict with"));
    if (!recorded) {
        printError(io, recorded.error());
        return BadInput;
    }
    const RunInfo &run = recorded.value().run;
    Result<Preset> preset = presetFromJson(run.preset, run.provenance.value(QStringLiteral("preset_file")).toString());
    if (!preset) {
        printError(io, preset.error());
        return BadInput;
    }
    PredictOptions options;
    options.weightsPath = recorded.value().checkpoint.path;
    options.inputs = args.positionals.mid(1);
    options.topK = topK;
    options.device = args.option(QStringLiteral("device"));
    Result<Predictions> predictions = predictWithWeights(preset.value(), options);
    if (!predictions) {
        printError(io, predictions.error());
        return BadInput;
    }
    const bool json = args.flag(QStringLiteral("json"));
    for (const Prediction &p : predictions.value().samples) {
        if (json)
            io.out << QJsonDocument(predictionJson(p, predictions.value().classification)).toJson(QJsonDocument::Compact) << "\n";
        else
            io.out << predictionText(p, predictions.value().classification);
    }
    return Success;
}

} // namespace ty::cli
