// trainyard-cli import MODEL.onnx --output NAME.trainyard.json [--force] [--json]: an ONNX model as a preset whose
// network is the model's (core/export/onnx_import.h) and its weights beside it as NAME.weights.safetensors, which
// the preset's training.init_from names. Without LibTorch. Nothing is written unless the whole model imports.

#include "commands.h"
#include "onnx_import.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>

namespace ty::cli {

namespace {

const char *const kImportUsage = "usage: trainyard-cli import MODEL.onnx --output NAME.trainyard.json [--force] [--json]\n";

// NAME.trainyard.json -> NAME.weights.safetensors in the same folder.
QString weightsPathFor(const QString &presetPath)
{
    const QFileInfo info(presetPath);
    QString base = info.fileName();
    for (const char *suffix : {".trainyard.json", ".json"})
        if (base.endsWith(QLatin1String(suffix))) {
            base.chop(int(qstrlen(suffix)));
            break;
        }
    return info.dir().filePath(base + QStringLiteral(".weights.safetensors"));
}

QString shapeText(const SampleShape &shape)
{
    QStringList parts;
    for (const int64_t d : shape)
        parts << QString::number(d);
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

} // namespace

int importCommand(const QStringList &arguments, Io &io)
{
    const Args args = parseArgs(arguments, {QStringLiteral("output")}, {QStringLiteral("json"), QStringLiteral("force")});
    const QString output = args.option(QStringLiteral("output"));
    if (!args.error.isEmpty() || args.positionals.size() != 1 || output.isEmpty()) {
        io.err << (args.error.isEmpty() ? QString() : args.error + QStringLiteral("\n")) << kImportUsage;
        return BadInput;
    }
    const QString model = args.positionals.first();
    const QString weightsPath = weightsPathFor(output);
    if (!args.flag(QStringLiteral("force")))
        for (const QString &path : {output, weightsPath})
            if (QFileInfo::exists(path)) {
                printError(io, Error::atField(QStringLiteral("--output"), QStringLiteral("%1 exists; pass --force to replace it").arg(path)));
                return BadInput;
            }

    QElapsedTimer timer;
    timer.start();
    const Result<OnnxModelView> view = readOnnxModelFile(model);
    if (!view) {
        printError(io, view.error());
        return BadInput;
    }
    const QString name = QFileInfo(output).fileName().section(QLatin1Char('.'), 0, 0);
    const Result<OnnxImport> imported = importOnnx(view.value(), model, name, QFileInfo(weightsPath).fileName());
    if (!imported) {
        printError(io, imported.error());
        io.err << "nothing was written\n";
        return BadInput;
    }
    const OnnxImport &result = imported.value();
    const Status weightsWritten = writeFileAtomically(weightsPath, encodeSafetensors(result.weights));
    const Status presetWritten = weightsWritten ? writeFileAtomically(output, QJsonDocument(result.preset).toJson(QJsonDocument::Indented))
                                                : weightsWritten;
    if (!presetWritten) {
        QFile::remove(weightsPath);
        Error e = presetWritten.error();
        if (e.file.isEmpty())
            e.file = output;
        printError(io, e);
        return BadInput;
    }
    const double seconds = double(timer.elapsed()) / 1000.0;
    if (args.flag(QStringLiteral("json"))) {
        printJson(io, QJsonObject{{QStringLiteral("model"), model},
                                  {QStringLiteral("preset"), output},
                                  {QStringLiteral("weights"), weightsPath},
                                  {QStringLiteral("producer"), result.producer},
                                  {QStringLiteral("opset"), result.opset},
                                  {QStringLiteral("onnx_nodes"), result.onnxNodes},
                                  {QStringLiteral("layers"), result.layers},
                                  {QStringLiteral("network_nodes"), result.topNodes},
                                  {QStringLiteral("composites"), QJsonArray::fromStringList(result.composites)},
                                  {QStringLiteral("parameters"), result.parameters},
                                  {QStringLiteral("input_shape"), shapeText(result.inputShape)},
                                  {QStringLiteral("output_shape"), shapeText(result.outputShape)},
                                  {QStringLiteral("placeholder"), QStringLiteral("data")},
                                  {QStringLiteral("seconds"), seconds}});
        return Success;
    }
    io.out << "imported " << model << " (" << result.producer << ", opset " << result.opset << ") in " << QString::number(seconds, 'f', 2) << " s: "
           << result.onnxNodes << " ONNX nodes, " << result.layers << " layers, " << result.topNodes << " network nodes, "
           << QLocale(QLocale::English).toString(result.parameters) << " parameters; " << shapeText(result.inputShape) << " -> "
           << shapeText(result.outputShape) << " per sample\n";
    for (const QString &composite : result.composites)
        io.out << "  composite " << composite << "\n";
    io.out << "wrote " << output << " and " << weightsPath << " (its training.init_from)\n"
           << "note: node 'data' is a placeholder (synthetic data of the model's input shape): replace it with your data set; "
              "training.epochs is 0, so a run evaluates the imported weights\n";
    return Success;
}

} // namespace ty::cli
