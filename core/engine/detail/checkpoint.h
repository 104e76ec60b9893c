#pragma once
// Internal to ty_engine (includes LibTorch). Checkpoints hold everything needed to continue a run as if it
// had never stopped: weights and buffers, optimizer state, RNG states, the epoch's data order and position,
// early-stopping state and the step. Written atomically (temporary file, then rename).

#include "error.h"

#include <QString>
#include <torch/torch.h>

namespace ty::detail {

struct TrainingPosition {
    int64_t step = 0;          // optimizer steps taken
    int64_t epoch = 0;         // 0-based epoch the next step belongs to
    int64_t batchInEpoch = 0;  // next batch within that epoch
    torch::Tensor permutation; // the epoch's data order (empty at an epoch boundary)
    double bestMetric = 0;     // early stopping
    int64_t badEpochs = 0;
    bool hasBest = false;
    double elapsedSeconds = 0; // training time before this point, so resumed runs keep one time axis
};

constexpr int64_t kCheckpointFormat = 1;

Status saveCheckpoint(const QString &path, torch::nn::Module &model, torch::optim::Optimizer &optimizer,
                      const TrainingPosition &position, const QString &presetHash);

// Refuses truncated or foreign files with a clear message; never throws.
Result<TrainingPosition> loadCheckpoint(const QString &path, torch::nn::Module &model,
                                        torch::optim::Optimizer &optimizer, const QString &presetHash);

} // namespace ty::detail
