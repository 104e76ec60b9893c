#pragma once
// Internal to ty_engine (includes LibTorch). Synchronised batch norm (training.sync_batch_norm), as PyTorch's
// SyncBatchNorm: in a distributed run's training steps, a batch norm layer normalises with the statistics of the
// whole batch (every rank's shard), summed over the ranks in the forward pass; the backward pass sums the two
// per-channel sums the input's gradient needs the same way. So a run on N processes computes what one process
// computes with the whole batch (with accumulate_steps 1). Evaluation, and frozen nodes, use the running
// statistics as before; they stay the same on every rank, since every rank updates them from the same statistics.

#include <torch/torch.h>

#include <functional>
#include <memory>

namespace ty::detail {

class Collectives;

// What the batch norm layers of one training run share.
struct BatchNormSync {
    Collectives *group = nullptr;
    // This rank has no sample in the current batch and runs a stand-in at weight 0: it takes part in every sum,
    // adding nothing to the statistics.
    bool idle = false;
    // The samples of the current part of the batch over every rank (the idle ranks' stand-ins not counted), as
    // the training loop knows them: the statistics' count without reading it back from the device.
    int64_t samples = 0;
};

// The training forward pass of `module` over x [B, C, ...] with the statistics of every rank's x, when `module` is
// a batch norm layer this file can synchronise (BatchNorm1d or BatchNorm2d); else an empty function. It updates
// the running statistics as one process would, and throws, as LibTorch does, when the whole batch holds one value
// per channel.
std::function<torch::Tensor(const torch::Tensor &x)> synchronisedBatchNorm(torch::nn::Module &module,
                                                                           std::shared_ptr<const BatchNormSync> sync);

} // namespace ty::detail
