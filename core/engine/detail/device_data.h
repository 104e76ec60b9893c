#pragma once
// Internal to ty_engine (includes LibTorch). A dataset split as two tensors on the training device:
// decoded once, batched by index_select on a permutation; no per-example collate. A streamed split keeps only
// its targets on the device and reads its samples from a file batch by batch. Byte samples (images) kept in
// host memory stay bytes, a quarter of the floats' size, and become floats batch by batch: a fresh run then
// writes no float copy of its data set (on a virtual machine each fresh page costs, docs/benchmarks.md).

#include "dataset_arrays.h"

#include <torch/torch.h>

namespace ty::detail {

struct DeviceSplit {
    torch::Tensor x;  // [N, ...] float32, or uint8 in host memory (scaled by `scale` as batched); undefined when streamed
    torch::Tensor y;  // [N] int64 class indices, or [N, width] float32 targets (on the device, streamed or not)
    // Streamed: the samples stay in the store (rows storeFirst..), read batch by batch (batch_stream.h).
    std::shared_ptr<const SampleStore> store;
    int64_t storeFirst = 0, count = 0;
    std::vector<int64_t> sampleShape;
    float scale = 1.0f;
    bool streamed() const { return store != nullptr; }
    int64_t size() const { return x.defined() ? x.size(0) : count; }
    // The samples of `index` (a batch drawn by index_select) and of rows [begin, begin + n), as float32.
    // Not for a streamed split (batch_stream.h reads those).
    torch::Tensor rows(const torch::Tensor &index) const { return asFloat(x.index_select(0, index)); }
    torch::Tensor range(int64_t begin, int64_t n) const { return asFloat(x.narrow(0, begin, n)); }

private:
    torch::Tensor asFloat(const torch::Tensor &samples) const
    {
        return samples.scalar_type() == torch::kByte ? samples.to(torch::kFloat).mul_(scale) : samples;
    }
};

// Takes the split's arrays: host bytes become the tensor without a copy.
DeviceSplit toDevice(DataSplit split, const torch::Device &device);

} // namespace ty::detail
