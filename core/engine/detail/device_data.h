#pragma once
// Internal to ty_engine (includes LibTorch). A dataset split as two tensors on the training device:
// decoded once, batched by index_select on a permutation; no per-example collate.

#include "dataset_arrays.h"

#include <torch/torch.h>

namespace ty::detail {

struct DeviceSplit {
    torch::Tensor x;  // [N, ...] float32
    torch::Tensor y;  // [N] int64 class indices, or [N, width] float32 targets
    int64_t size() const { return x.defined() ? x.size(0) : 0; }
};

DeviceSplit toDevice(const DataSplit &split, const torch::Device &device);

} // namespace ty::detail
