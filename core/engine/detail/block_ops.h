#pragma once
// Internal to ty_engine (includes LibTorch). The builders that turn one planned network node (transform or
// layer, already checked and shaped by core/shapes) into a torch operation.

#include "pipeline_plan.h"

#include <torch/torch.h>

#include <functional>
#include <vector>

namespace ty::detail {

using Shape = SampleShape;

struct BuiltOp {
    std::shared_ptr<torch::nn::Module> module;  // holds the parameters, if any
    // inputs: batches [B, ...]; training: whether random transforms and dropout are active.
    std::function<torch::Tensor(const std::vector<torch::Tensor> &inputs, bool training)> forward;
};

// Builds the op of a planned node. Fails only for a block type that has no builder.
Result<BuiltOp> buildOp(const PlannedOp &op);

} // namespace ty::detail
