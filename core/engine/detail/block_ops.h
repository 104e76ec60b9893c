#pragma once
// Internal to ty_engine (includes LibTorch). The builders that turn one network node (transform or layer)
// into a torch operation, given the per-sample shapes of its inputs. Shape inference and training use the
// very same builders.

#include "error.h"

#include <QJsonObject>
#include <torch/torch.h>

#include <functional>
#include <vector>

namespace ty::detail {

using Shape = std::vector<int64_t>;  // per sample, without the batch dimension

struct BuiltOp {
    std::shared_ptr<torch::nn::Module> module;  // holds the parameters, if any
    // inputs: batches [B, ...]; training: whether random transforms and dropout are active.
    std::function<torch::Tensor(const std::vector<torch::Tensor> &inputs, bool training)> forward;
    Shape outputShape;
};

// Builds the op of `blockType` (a transform.* or layer.* block). `params` are the effective parameters.
// Errors name the node and, where one is to blame, the parameter or port.
Result<BuiltOp> buildOp(const QString &blockType, const QString &nodeId, const QJsonObject &params,
                        const std::vector<Shape> &inputShapes);

QString shapeText(const Shape &shape);  // "[1, 28, 28]"

} // namespace ty::detail
