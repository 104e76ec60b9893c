// trainyard-cli predict RUN_ID INPUT... [--checkpoint last|best|STEP] [--top K] [--device D] [--db PATH] [--json]
// trainyard-cli predict RUN_ID --text TEXT [--generate N] [--temperature T] [--seed S] [...]
// Classifies (or regresses) new inputs with a run's weights: images, IDX files, CSV rows, read the way the run's
// data set is (docs/evaluation.md). One line, or one JSON object, per sample. A character-level model (dataset.text)
// reads --text instead: the most probable next characters, and with --generate a continuation sampled from it.

#include "commands.h"
#include "predictor.h"
#include "preset_format.h"
#include "run_checkpoints.h"
#include "run_database.h"
#include "text_generator.h"
#include "training_module.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace ty::cli {

namespace {

const char *const kPredictUsage =
    "usage: trainyard-cli predict RUN_ID INPUT... [--checkpoint last|best|STEP] [--top K] [--device auto|cpu|cuda] [--db PATH] [--json]\n"
    "       trainyard-cli predict RUN_ID --text TEXT [--generate N] [--temperature T] [--seed S] [--checkpoint ...] [--db PATH] [--json]\n"
    "INPUT: PNG, JPEG or BMP images, IDX files of samples, CSV files with the training columns;\n"
    "--text: for a model trained on dataset.text, the characters that follow TEXT (--generate N: N more, sampled)\n";

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

QJsonArray nextJson(const std::vector<ClassProbability> &next)
{
    QJsonArray top;
    for (const ClassProbability &c : next)
        top.append(QJsonObject{{QStringLiteral("class"), c.name}, {QStringLiteral("index"), c.index}, {QStringLiteral("probability"), c.probability}});
    return top;
}

// --generate, --temperature and --seed, each within its range; an Error naming the option otherwise.
Result<TextGenerationOptions> textOptions(const Args &args)
{
    TextGenerationOptions o;
    o.prompt = args.option(QStringLiteral("text"));
    bool ok = true;
    if (args.options.contains(QStringLiteral("generate"))) {
        o.length = args.option(QStringLiteral("generate")).toInt(&ok);
        if (!ok || o.length < 0 || o.length > 100000)
            return Error::atField(QStringLiteral("--generate"), QStringLiteral("must be a whole number from 0 to 100000, not \"%1\"")
                                                                    .arg(args.option(QStringLiteral("generate")).left(20)));
    }
    if (args.options.contains(QStringLiteral("temperature"))) {
        o.temperature = args.option(QStringLiteral("temperature")).toDouble(&ok);
        if (!ok || !(o.temperature >= 0) || o.temperature > 100)
            return Error::atField(QStringLiteral("--temperature"), QStringLiteral("must be a number from 0 (always the most probable) to 100, not \"%1\"")
                                                                       .arg(args.option(QStringLiteral("temperature")).left(20)));
    }
    if (args.options.contains(QStringLiteral("seed"))) {
        o.seed = args.option(QStringLiteral("seed")).toULongLong(&ok);
        if (!ok)
            return Error::atField(QStringLiteral("--seed"), QStringLiteral("must be a whole number of at least 0, not \"%1\"")
                                                                .arg(args.option(QStringLiteral("seed")).left(20)));
    }
    return o;
}

int predictText(const Preset &preset, TextGenerationOptions options, const Args &args, Io &io)
{
    Result<TextGeneration> generated = generateText(preset, options);
    if (!generated) {
        printError(io, generated.error());
        return BadInput;
    }
    const TextGeneration &g = generated.value();
    if (args.flag(QStringLiteral("json"))) {
        QJsonObject o{{QStringLiteral("prompt"), g.prompt}, {QStringLiteral("window"), g.window}, {QStringLiteral("next"), nextJson(g.next)}};
        if (options.length > 0)
            o.insert(QStringLiteral("generated"), g.continuation);
        io.out << QJsonDocument(o).toJson(QJsonDocument::Compact) << "\n";
        return Success;
    }
    QStringList next;
    for (const ClassProbability &c : g.next)
        next << QStringLiteral("%1 %2").arg(c.name, QString::number(c.probability, 'f', 4));
    io.out << "next: " << next.join(QStringLiteral(", ")) << "\n";
    if (options.length > 0)
        io.out << g.prompt << g.continuation << "\n";
    return Success;
}

} // namespace

int predictCommand(const QStringList &arguments, Io &io)
{
    const Args args = parseArgs(arguments, {QStringLiteral("db"), QStringLiteral("checkpoint"), QStringLiteral("top"), QStringLiteral("device"),
                                            QStringLiteral("text"), QStringLiteral("generate"), QStringLiteral("temperature"), QStringLiteral("seed")},
                                {QStringLiteral("json")});
    bool idOk = false;
    const qint64 id = args.positionals.value(0).toLongLong(&idOk);
    const bool text = args.options.contains(QStringLiteral("text"));
    const bool textOnly = args.options.contains(QStringLiteral("generate")) || args.options.contains(QStringLiteral("temperature"))
                       || args.options.contains(QStringLiteral("seed"));
    const bool positionalsOk = text ? args.positionals.size() == 1 : args.positionals.size() >= 2;
    if (!args.error.isEmpty() || !positionalsOk || !idOk || !args.sets.isEmpty() || (textOnly && !text)) {
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
    if (text) {
        Result<TextGenerationOptions> textSettings = textOptions(args);
        if (!textSettings) {
            printError(io, textSettings.error());
            return BadInput;
        }
        TextGenerationOptions options = textSettings.value();
        options.weightsPath = recorded.value().checkpoint.path;
        options.topK = topK;
        options.device = args.option(QStringLiteral("device"));
        return predictText(preset.value(), options, args, io);
    }
    PredictOptions options;
    options.weightsPath = recorded.value().checkpoint.path;
    options.inputs = args.positionals.mid(1);
    options.topK = topK;
    options.device = args.option(QStringLiteral("device"));
    // Each batch's lines are written as it is predicted: a million inputs take the memory of one batch.
    const bool json = args.flag(QStringLiteral("json"));
    const Result<Predictions> predictions = predictEach(preset.value(), options, [&](const Prediction &p, bool classification) {
        if (json)
            io.out << QJsonDocument(predictionJson(p, classification)).toJson(QJsonDocument::Compact) << "\n";
        else
            io.out << predictionText(p, classification);
    });
    if (!predictions) {
        io.out.flush();
        printError(io, predictions.error());
        return BadInput;
    }
    return Success;
}

} // namespace ty::cli
