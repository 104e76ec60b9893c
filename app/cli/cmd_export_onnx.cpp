// trainyard-cli export RUN_ID --format onnx: the run's pipeline in evaluation mode as an ONNX model (opset 17)
// with the checkpoint's weights inside (core/export, no LibTorch). docs/evaluation.md, "Export to ONNX".

#include "commands.h"
#include "export_formats.h"
#include "onnx_export.h"
#include "preset_format.h"

#include <QJsonArray>
#include <QJsonObject>

namespace ty::cli {

namespace {

// ["N", 1, 28, 28]: the batch dimension is dynamic.
QJsonArray batchShapeJson(const SampleShape &sampleShape)
{
    QJsonArray shape{QStringLiteral("N")};
    for (int64_t d : sampleShape)
        shape.append(qint64(d));
    return shape;
}

QString batchShapeText(const SampleShape &sampleShape)
{
    QStringList dims{QStringLiteral("N")};
    for (int64_t d : sampleShape)
        dims.append(QString::number(d));
    return QLatin1Char('[') + dims.join(QStringLiteral(", ")) + QLatin1Char(']');
}

} // namespace

int writeOnnxExport(const OnnxExportRequest &request, Io &io)
{
    // The preset as it was run; relative data paths still resolve against the original preset file.
    Result<Preset> preset = presetFromJson(request.run.preset, request.run.provenance.value(QStringLiteral("preset_file")).toString());
    Result<PipelinePlan> plan = preset ? planPresetForExport(preset.value()) : Result<PipelinePlan>(preset.error());
    if (!plan) {
        printError(io, plan.error());
        return BadInput;
    }
    const QMap<QString, QString> metadata{{QStringLiteral("trainyard_run"), QString::number(request.runId)},
                                          {QStringLiteral("trainyard_step"), QString::number(request.checkpoint.step)},
                                          {QStringLiteral("trainyard_preset_hash"), request.run.presetHash},
                                          {QStringLiteral("input"), QStringLiteral("float32 samples as Trainyard's engine sees them: "
                                                                                   "byte images scaled to [0, 1], CSV features standardized")}};
    Result<OnnxExport> exported = exportOnnx(plan.value(), request.checkpointFile, preset.value().name, metadata);
    if (!exported) {
        printError(io, exported.error());
        return BadInput;
    }
    const OnnxExport &model = exported.value();
    if (Status written = writeFileAtomically(request.output, model.model); !written) {
        printError(io, written.error());
        return BadInput;
    }
    if (request.json) {
        printJson(io, QJsonObject{{QStringLiteral("run"), request.runId},
                                  {QStringLiteral("checkpoint_step"), request.checkpoint.step},
                                  {QStringLiteral("format"), QStringLiteral("onnx")},
                                  {QStringLiteral("output"), request.output},
                                  {QStringLiteral("opset"), kOnnxOpset},
                                  {QStringLiteral("input"), QJsonObject{{QStringLiteral("name"), QStringLiteral("input")},
                                                                       {QStringLiteral("shape"), batchShapeJson(model.inputShape)}}},
                                  {QStringLiteral("output_tensor"), QJsonObject{{QStringLiteral("name"), QStringLiteral("logits")},
                                                                               {QStringLiteral("shape"), batchShapeJson(model.outputShape)},
                                                                               {QStringLiteral("node"), model.outputNode}}},
                                  {QStringLiteral("initializers"), QJsonArray::fromStringList(model.initializers)},
                                  {QStringLiteral("values"), model.values},
                                  {QStringLiteral("nodes"), model.nodes},
                                  {QStringLiteral("bytes"), qint64(model.model.size())}});
    } else {
        io.out << "exported run " << request.runId << " at step " << request.checkpoint.step << " to " << request.output
               << " as ONNX (opset " << kOnnxOpset << "): input " << batchShapeText(model.inputShape) << " float32, logits "
               << batchShapeText(model.outputShape) << " from node " << model.outputNode << "; " << model.initializers.size()
               << " weight tensors (" << model.values << " values), " << model.nodes << " nodes\n";
    }
    return Success;
}

} // namespace ty::cli
