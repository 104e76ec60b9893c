// trainyard-cli export RUN_ID [--format safetensors|onnx] --output FILE [--checkpoint last|best|STEP] [--db PATH] [--json]
// safetensors: the weights and buffers of a run's checkpoint under their stable names (`fc1.weight`,
// `bn1.running_mean`), without the optimizer state and training position. onnx: the network in evaluation mode
// with those weights inside (cmd_export_onnx.cpp). Checkpoints are safetensors files already, so both read and
// write plain data: no LibTorch is loaded.

#include "commands.h"
#include "export_formats.h"
#include "printable_text.h"
#include "run_checkpoints.h"
#include "run_database.h"
#include "safetensors_file.h"
#include "version.h"

#include <QJsonObject>

namespace ty::cli {

namespace {

const char *const kExportUsage =
    "usage: trainyard-cli export RUN_ID [--format safetensors|onnx] --output FILE [--checkpoint last|best|STEP] [--db PATH] [--json]\n";

bool isTrainingState(const QString &name)
{
    return name.startsWith(QStringLiteral("optimizer/")) || name.startsWith(QStringLiteral("trainyard/"));
}

} // namespace

int exportCommand(const QStringList &arguments, Io &io)
{
    const Args args = parseArgs(arguments, {QStringLiteral("db"), QStringLiteral("format"), QStringLiteral("output"), QStringLiteral("checkpoint")},
                                {QStringLiteral("json")});
    bool idOk = false;
    const qint64 id = args.positionals.value(0).toLongLong(&idOk);
    if (!args.error.isEmpty() || args.positionals.size() != 1 || !idOk || args.option(QStringLiteral("output")).isEmpty()) {
        io.err << (args.error.isEmpty() ? QString() : args.error + QStringLiteral("\n")) << kExportUsage;
        return BadInput;
    }
    const QString format = args.options.value(QStringLiteral("format"), QStringLiteral("safetensors"));
    if (format != QStringLiteral("safetensors") && format != QStringLiteral("onnx")) {
        printError(io, Error::atField(QStringLiteral("--format"), QStringLiteral("--format %1 is not supported; this version exports safetensors and onnx").arg(format.left(40))));
        return BadInput;
    }
    const QString output = args.option(QStringLiteral("output"));
    const Result<RunCheckpoint> recorded = verifiedRunCheckpoint(
        databasePath(args), id, args.options.value(QStringLiteral("checkpoint"), QStringLiteral("last")), QStringLiteral("export"));
    if (!recorded) {
        printError(io, recorded.error());
        return BadInput;
    }
    const CheckpointRecord &checkpoint = recorded.value().checkpoint;
    Result<TensorFile> read = readSafetensors(checkpoint.path);
    if (!read || read.value().metadata.value(QStringLiteral("format")) != QStringLiteral("trainyard-checkpoint")) {
        Error e = read ? Error(QStringLiteral("not a checkpoint this version can read (LibTorch archives of older versions are not loaded)")) : read.error();
        e.file = checkpoint.path;
        printError(io, e);
        return BadInput;
    }
    // A checkpoint whose recorded sha256 was forged with it may hold NaN weights: they are no model to hand on.
    for (const NamedTensor &t : read.value().tensors) {
        if (!isTrainingState(t.name) && !tensorIsFinite(t)) {
            printError(io, Error::inFile(checkpoint.path, QStringLiteral("tensor \"%1\" holds NaN or infinite values: nothing was exported")
                                                              .arg(printableExcerpt(t.name, 80)), t.name));
            return BadInput;
        }
    }
    if (format == QStringLiteral("onnx"))
        return writeOnnxExport(OnnxExportRequest{id, recorded.value().run, checkpoint, read.value(), output, args.flag(QStringLiteral("json"))}, io);

    TensorFile weights;
    qint64 values = 0;
    for (const NamedTensor &t : read.value().tensors)
        if (!isTrainingState(t.name)) {
            weights.tensors.append(t);
            values += t.elementCount();
        }
    weights.metadata = {{QStringLiteral("format"), QStringLiteral("trainyard-weights")},
                        {QStringLiteral("run"), QString::number(id)},
                        {QStringLiteral("step"), QString::number(checkpoint.step)},
                        {QStringLiteral("preset_hash"), read.value().metadata.value(QStringLiteral("preset_hash"))},
                        {QStringLiteral("trainyard_version"), appVersion()}};
    if (Status written = writeFileAtomically(output, encodeSafetensors(weights)); !written) {
        printError(io, written.error());
        return BadInput;
    }
    if (args.flag(QStringLiteral("json")))
        printJson(io, QJsonObject{{QStringLiteral("run"), id}, {QStringLiteral("checkpoint_step"), checkpoint.step},
                                  {QStringLiteral("format"), format}, {QStringLiteral("output"), output},
                                  {QStringLiteral("tensors"), weights.tensors.size()}, {QStringLiteral("values"), values}});
    else
        io.out << "exported " << weights.tensors.size() << " tensors (" << values << " values) of run " << id << " at step "
               << checkpoint.step << " to " << output << "\n";
    return Success;
}

} // namespace ty::cli
