#pragma once
// Where a checkpoint says training stands: its metadata (step, epoch, batch, stage, best and early-stopping
// state, reduce-on-plateau, loss scale, clock) and its data order, read without LibTorch. Every value is parsed
// strictly and checked against the run it is to continue; the first problem is the error, naming the file and
// the metadata key or tensor. The engine (core/engine/detail/checkpoint.cpp) turns the result into its
// TrainingPosition; fuzz/fuzz_checkpoint.cpp feeds it crafted files.

#include "error.h"
#include "safetensors_file.h"

#include <cstdint>
#include <vector>

namespace ty {

struct CheckpointStageLength {
    int64_t epochs = 0;
    int64_t stepsPerEpoch = 0;
};

struct CheckpointPlateau {
    double scale = 1.0;
    double best = 0;
    bool hasBest = false;
    int64_t badEpochs = 0;
    int64_t cooldown = 0;
};

struct CheckpointPosition {
    int64_t step = 0, epoch = 0, batchInEpoch = 0;
    int64_t stage = 0, stageStartEpoch = 0, stageStartStep = 0;
    double bestMetric = 0;
    bool hasBest = false;
    double stopBestMetric = 0;
    bool stopHasBest = false;
    int64_t badEpochs = 0;
    double elapsedSeconds = 0;
    CheckpointPlateau plateau;
    double lossScale = 0;  // 0: no mixed precision recorded
    int64_t lossScaleGrowth = 0;
    std::vector<int64_t> permutation;  // the epoch's data order; empty at an epoch boundary
};

// The position in `file` for a run of `stages` (at least one) over `trainSamples` training samples.
Result<CheckpointPosition> readCheckpointPosition(const TensorFile &file, const std::vector<CheckpointStageLength> &stages,
                                                  int64_t trainSamples, const QString &path);

// Only the stage the position belongs to (0 for a format 2 checkpoint, which had none), checked against the count.
Result<int64_t> readCheckpointStage(const TensorFile &file, int64_t stageCount, const QString &path);

} // namespace ty
