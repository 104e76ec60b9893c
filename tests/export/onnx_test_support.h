#pragma once
// What the ONNX export and import tests share: running another program (ONNX's checker, onnxruntime-node through
// run_onnx_model.js) and the engine's logits of a preset with a checkpoint's model weights.

#include "cli_in_process.h"
#include "program_run.h"
#include "dataset_arrays.h"
#include "detail/checkpoint.h"
#include "detail/compiled_pipeline.h"
#include "preset.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

namespace tytest {

inline QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// The engine's outputs of the first optimized loss's input for `inputs`: `preset`'s model for samples of `shape`,
// with the model weights of the checkpoint `weightsPath`.
inline torch::Tensor engineLogits(const ty::Preset &preset, const ty::DatasetShape &shape, const QString &weightsPath, const torch::Tensor &inputs)
{
    ty::detail::CompiledPipeline pipeline = ty::detail::compilePipeline(preset, shape);
    if (!pipeline.report.ok())
        qFatal("the preset does not compile");
    if (ty::Status loaded = ty::detail::loadModelWeights(weightsPath, *pipeline.model, ty::presetHash(preset)); !loaded)
        qFatal("%s", qPrintable(loaded.error().toString()));
    int slot = -1;
    for (const ty::detail::LossHead &head : pipeline.losses)
        if (head.optimized && slot < 0)
            slot = head.slot;
    pipeline.model->eval();
    torch::NoGradGuard noGrad;
    return pipeline.model->forward(inputs, slot).contiguous();
}

// onnxruntime-node's run of `model` on `inputs` (float32): run_onnx_model.js's exit code and report (the model's
// input and output names, the output's dims) and the output's bytes. `scratch` is the path prefix of the files
// it reads and writes.
struct OnnxRuntimeRun {
    CliOutput process;
    QJsonObject report;
    QByteArray output;
};

inline OnnxRuntimeRun runOnnxRuntime(const QString &model, const torch::Tensor &inputs, const QString &scratch)
{
    const QString inputFile = scratch + QStringLiteral(".input.f32"), outputFile = scratch + QStringLiteral(".logits.f32");
    QFile file(inputFile);
    if (!file.open(QIODevice::WriteOnly) || file.write(static_cast<const char *>(inputs.data_ptr()), qint64(inputs.numel() * 4)) != inputs.numel() * 4)
        qFatal("cannot write %s", qPrintable(inputFile));
    file.close();
    QJsonArray dims;
    for (const int64_t d : inputs.sizes())
        dims.append(qint64(d));
    OnnxRuntimeRun run;
    run.process = runProgram(QStringLiteral("node"), {QStringLiteral(TRAINYARD_SOURCE_DIR "/tests/export/run_onnx_model.js"),
                                                      QStringLiteral(TRAINYARD_ONNXRUNTIME_NODE_DIR), model, inputFile,
                                                      QString::fromUtf8(QJsonDocument(dims).toJson(QJsonDocument::Compact)), outputFile});
    run.report = QJsonDocument::fromJson(run.process.out.toUtf8()).object();
    run.output = readAll(outputFile);
    return run;
}

} // namespace tytest
