#pragma once
// Internal to ty_engine (includes LibTorch). Warm start (training.init_from): a new run's first weights copied from
// a checkpoint, an exported weights file or another tool's safetensors file (with a name map). Which tensor goes
// where is planned without LibTorch (core/shapes/weight_import.h); this copies what the plan says. A node is copied
// whole (every tensor the import covers) or not at all; the file is data only and every tensor is checked (shapes,
// finite values) before the model changes.

#include "error.h"
#include "weight_import.h"

#include <QStringList>
#include <torch/torch.h>

namespace ty::detail {

struct WarmStartReport {
    QStringList copiedNodes;   // in the model's order
    int copiedTensors = 0;
    QStringList skipped;       // "head: head.weight is F32 [5, 128] there, F32 [10, 128] here"
    ImportReport import;       // every tensor copied, skipped, missing or mismatched
};

// The tensors of `model` a warm start may fill, by node (layer) in the model's order. Without a map, every
// parameter and buffer; with one (`foreign`), the parameters and running statistics (weight_import.h).
QList<ModelTensor> warmStartTensors(torch::nn::Module &model, bool foreign, std::vector<torch::Tensor> *tensors);

// Copies into `model` what planWeightImport plans for `request` (its file, map, nodes and strictness). Errors name
// the file, the node and the tensor, and leave the model as it was; floating-point tensors of the file are
// converted to the model's dtype.
Result<WarmStartReport> warmStart(torch::nn::Module &model, const WeightImportRequest &request);

// Trainyard's own file at `path`: the nodes `nodes` (empty: every node whose tensors the file holds with the same
// shapes and dtypes). With `strict`, a listed node that the file lacks or holds with another shape is an error
// naming the node, the tensor and both shapes; without, it is skipped. Nothing copied at all is an error.
inline Result<WarmStartReport> warmStart(const QString &path, torch::nn::Module &model, const QStringList &nodes, bool strict)
{
    return warmStart(model, WeightImportRequest{path, {}, nodes, strict});
}

} // namespace ty::detail
