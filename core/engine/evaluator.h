#pragma once
// Evaluating trained weights on a split of the preset's data: what `trainyard-cli evaluate` runs. No LibTorch
// types here; the engine does the work.

#include "error.h"
#include "evaluation_report.h"
#include "preset.h"

#include <QString>

namespace ty {

struct EvaluateOptions {
    QString split = QStringLiteral("test");  // test, val or train
    QString weightsPath;      // a checkpoint, or weights exported as safetensors
    qint64 checkpointStep = -1;  // recorded in the report
    QString device;           // overrides training.device when not empty: auto, cpu, cuda
    int topK = 5;             // clamped to the number of classes
    bool checkPresetHash = true;  // the weights must have been trained with exactly this preset
};

// Loads the data and the weights, checks that they fit the model, runs the split in evaluation mode and scores
// it. Errors name the file and the value at fault (an empty split, weights of another preset or shape); never
// throws.
Result<EvaluationReport> evaluateWeights(const Preset &preset, const EvaluateOptions &options);

} // namespace ty
