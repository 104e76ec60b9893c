#pragma once
// Internal to ty_engine (includes LibTorch). Checkpoints hold everything needed to continue a run as if it
// had never stopped: weights and buffers, optimizer state, the CPU RNG state, the epoch's data order and
// position, early-stopping state and the step. They are safetensors files, data only (loading parses and
// checks, it never runs code): the model's tensors under their stable names (`fc1.weight`), the optimizer's
// under `optimizer/<parameter>/<field>`, the permutation and RNG state under `trainyard/...`, and every
// other value as a string in the header's metadata. Written atomically (temporary file, then rename).

#include "detail/optimization.h"
#include "error.h"

#include <QString>
#include <torch/torch.h>

namespace ty::detail {

struct TrainingPosition {
    int64_t step = 0;          // optimizer steps taken
    int64_t epoch = 0;         // 0-based epoch the next step belongs to
    int64_t batchInEpoch = 0;  // next batch within that epoch
    torch::Tensor permutation; // the epoch's data order (empty at an epoch boundary)
    int64_t stage = 0;         // the training stage the next step belongs to
    int64_t stageStartEpoch = 0, stageStartStep = 0;  // where that stage began
    double bestMetric = 0;     // the best checkpoint's metric (training.best_metric), over the whole run
    bool hasBest = false;
    double stopBestMetric = 0; // early stopping, within the stage
    bool stopHasBest = false;
    int64_t badEpochs = 0;
    double elapsedSeconds = 0; // training time before this point, so resumed runs keep one time axis
    PlateauState plateau;      // reduce on plateau, within the stage
    // Mixed precision (training.mixed_precision on CUDA): the loss scale and the finite steps in a row since it
    // last changed; 0 when the run does not use it (then the metadata holds neither).
    double lossScale = 0;
    int64_t lossScaleGrowth = 0;
};

// 1 was a LibTorch archive, refused since loading one can run code; 2 had no stages and one best metric for
// both early stopping and the best checkpoint (still read: one stage, both the same).
constexpr int64_t kCheckpointFormat = 3;
inline const char kWeightsFormatName[] = "trainyard-weights";  // `trainyard-cli export --format safetensors`

// The length of one training stage.
struct StageLength {
    int64_t epochs = 0;
    int64_t stepsPerEpoch = 0;
};

// What a checkpoint must agree with to be loaded into a run.
struct CheckpointExpectations {
    QString presetHash;        // checked unless empty
    int64_t trainSamples = 0;  // the permutation must be a permutation of 0..trainSamples-1
    std::vector<StageLength> stages;  // the run's stages (one for a preset without stages)
    int64_t runId = -1;        // checked unless -1: the checkpoint must name this run
};

// The stage a checkpoint's position belongs to (0 for format 2), so that the run can build that stage's model
// and optimizer before loading it; checked again by loadCheckpoint.
Result<int64_t> checkpointStage(const QString &path, int64_t stageCount);

// Writes the checkpoint; returns the sha256 (hex) of the file written.
Result<QString> saveCheckpoint(const QString &path, torch::nn::Module &model, torch::optim::Optimizer &optimizer,
                               const TrainingPosition &position, const QString &presetHash, int64_t runId = -1);

// Checks everything against the model, the optimizer and `expected` before changing anything: a refused
// checkpoint leaves model, optimizer and RNG as they were. Errors name the file and the value at fault;
// never throws.
Result<TrainingPosition> loadCheckpoint(const QString &path, torch::nn::Module &model, torch::optim::Optimizer &optimizer,
                                        const CheckpointExpectations &expected);

// Only the model's weights and buffers, from a checkpoint or an exported weights file (training state in it is
// ignored): every tensor of the model must be there with its shape and dtype and finite, nothing else of the
// model's kind may be. Checks everything before changing the model; `presetHash` is checked unless empty.
Status loadModelWeights(const QString &path, torch::nn::Module &model, const QString &presetHash);

} // namespace ty::detail
