#pragma once
// Internal to ty_engine (includes LibTorch). A dataset split as two tensors on the training device:
// decoded once, batched by index_select on a permutation; no per-example collate. A streamed split keeps only
// its targets on the device and reads its samples from a file batch by batch.

#include "dataset_arrays.h"

#include <torch/torch.h>

namespace ty::detail {

struct DeviceSplit {
    torch::Tensor x;  // [N, ...] float32; undefined when streamed
    torch::Tensor y;  // [N] int64 class indices, or [N, width] float32 targets (on the device, streamed or not)
    // Streamed: the samples stay in the store (rows storeFirst..), read batch by batch (batch_stream.h).
    std::shared_ptr<const SampleStore> store;
    int64_t storeFirst = 0, count = 0;
    std::vector<int64_t> sampleShape;
    float scale = 1.0f;
    bool streamed() const { return store != nullptr; }
    int64_t size() const { return x.defined() ? x.size(0) : count; }
};

DeviceSplit toDevice(const DataSplit &split, const torch::Device &device);

} // namespace ty::detail
