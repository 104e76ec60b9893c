#pragma once
// A trained pipeline as a self-contained ONNX model (opset 17), without LibTorch: what
// `trainyard-cli export --format onnx` writes (docs/evaluation.md, "Export to ONNX").
//
// The model takes `input`, float32 [N, <the data set's sample shape>] holding the samples exactly as the engine
// sees them (byte images scaled to [0, 1], CSV features standardized), and returns `logits`, the input of the
// first optimized loss head (what evaluate and predict score). The graph's own transforms are inside: normalize
// as Sub/Div, random augmentations and dropout as nothing. The weights are initializers under their stable
// names (`fc1.weight`, `bn1.running_mean`); a batch norm's num_batches_tracked counts training steps and is
// left out.

#include "onnx_export_rules.h"
#include "pipeline_plan.h"
#include "preset.h"
#include "safetensors_file.h"

#include <QByteArray>
#include <QMap>

namespace ty {

struct OnnxExport {
    QByteArray model;          // the serialized ModelProto
    QStringList initializers;  // checkpoint tensor names, in graph order
    qint64 values = 0;         // elements over all initializers
    int nodes = 0;             // ONNX nodes
    QString outputNode;        // the pipeline node whose output is `logits`
    SampleShape inputShape, outputShape;  // per sample, without the batch dimension
};

// The plan of `preset` for its data set (reads the data set's headers only). Errors name the node at fault.
Result<PipelinePlan> planPresetForExport(const Preset &preset);

// Exports the ops that `logits` depends on, each through its block's rule in `rules`. An op whose block has no
// rule, or whose tensors the checkpoint lacks, is an Error naming the node; nothing is produced then.
Result<OnnxExport> exportOnnx(const PipelinePlan &plan, const TensorFile &weights, const QString &graphName,
                              const QMap<QString, QString> &metadata, const OnnxExportRules &rules = OnnxExportRules::builtin());

} // namespace ty
