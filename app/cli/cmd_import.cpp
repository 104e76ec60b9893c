// trainyard-cli import MODEL.onnx --output NAME.trainyard.json [--force] [--json]: an ONNX model as a preset whose
// network is the model's (core/export/onnx_import.h) and its weights beside it as NAME.weights.safetensors, which
// the preset's training.init_from names. Without LibTorch. Nothing is written unless the whole model imports.

#include "commands.h"
#include "onnx_import_files.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QLocale>

namespace ty::cli {

namespace {

const char *const kImportUsage = "usage: trainyard-cli import MODEL.onnx --output NAME.trainyard.json [--force] [--json]\n";

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
    if (!args.flag(QStringLiteral("force")))
        for (const QString &path : {output, onnxImportWeightsPath(output)})
            if (QFileInfo::exists(path)) {
                printError(io, Error::atField(QStringLiteral("--output"), QStringLiteral("%1 exists; pass --force to replace it").arg(path)));
                return BadInput;
            }

    const Result<OnnxImportFiles> written = importOnnxToFiles(model, output);
    if (!written) {
        printError(io, written.error());
        io.err << "nothing was written\n";
        return BadInput;
    }
    const OnnxImport &result = written.value().import;
    const QString &weightsPath = written.value().weightsPath;
    const double seconds = written.value().seconds;
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
