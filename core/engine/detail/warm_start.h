#pragma once
// Internal to ty_engine (includes LibTorch). Warm start (training.init_from): a new run's first weights copied,
// node by node, from a checkpoint or an exported weights file. A node is copied whole (every parameter and
// buffer) or not at all; the file is data only and every tensor is checked before the model changes.

#include "error.h"

#include <QStringList>
#include <torch/torch.h>

namespace ty::detail {

struct WarmStartReport {
    QStringList copiedNodes;   // in the model's order
    int copiedTensors = 0;
    QStringList skipped;       // "head: head.weight is [5, 128] there, [10, 128] here" (only without a node list)
};

// Copies from `path` the tensors of `nodes` (empty: every node of the model whose tensors the file holds with
// the same shapes and dtypes). With `strict`, a listed node that the file lacks or holds with another shape is
// an error naming the node, the tensor and both shapes; without, it is skipped. Nothing copied at all is an
// error. Errors leave the model as it was.
Result<WarmStartReport> warmStart(const QString &path, torch::nn::Module &model, const QStringList &nodes, bool strict);

} // namespace ty::detail
