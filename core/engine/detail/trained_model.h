#pragma once
// Internal to ty_engine (includes LibTorch). A preset's trained model ready to run: its data set loaded, its graph
// compiled and the weights of a checkpoint or exported weights file loaded and moved to the device, in evaluation
// mode. What evaluateWeights() and predictWithWeights() share.

#include "detail/compiled_pipeline.h"
#include "training_settings.h"

#include <memory>

namespace ty::detail {

struct TrainedModel {
    TrainingSettings settings;
    torch::Device device{torch::kCPU};
    QString datasetNode;
    LoadedDataset data;
    CompiledPipeline pipeline;
};

// `device` overrides training.device when not empty. Errors name the node, file and value at fault (no dataset
// node, unreadable data, a shape problem, weights of another preset or shape); may throw on LibTorch errors.
Result<std::unique_ptr<TrainedModel>> loadTrainedModel(const Preset &preset, const QString &weightsPath, const QString &device,
                                                       bool checkPresetHash);

} // namespace ty::detail
