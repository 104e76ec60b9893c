#pragma once
// Predicting with trained weights on new inputs (images, IDX files, CSV rows; model_inputs.h), read the way the
// preset's data set is: what `trainyard-cli predict` runs. No LibTorch types here.

#include "error.h"
#include "preset.h"

#include <QString>
#include <QStringList>

#include <functional>
#include <vector>

namespace ty {

struct PredictOptions {
    QString weightsPath;       // a checkpoint, or weights exported as safetensors
    QStringList inputs;        // files
    int topK = 3;              // classes per sample, clamped to the number of classes
    QString device;            // overrides training.device when not empty
    bool checkPresetHash = true;
};

struct ClassProbability {
    int index = 0;
    QString name;
    double probability = 0;
};

struct Prediction {
    QString input;                    // "shoe.png", "images.idx[3]", "rows.csv line 5"
    std::vector<ClassProbability> top;  // classification: the topK most probable classes, most probable first
    std::vector<double> values;       // regression: the predicted targets
};

struct Predictions {
    bool classification = true;
    QStringList classes;
    std::vector<Prediction> samples;
};

// Loads the preset's data set (for its sample format and class names) and the weights, then reads the inputs a
// batch (training.eval_batch_size) at a time and runs the model on each in evaluation mode (the graph's own
// normalization applies), calling `emit` with every sample's prediction in input order: memory stays that of one
// batch whatever the inputs hold. Returns what the predictions are (classification or not, the classes; no
// samples) or the first error, naming the file and what is wrong; predictions emitted before it stand. Never throws.
using PredictionSink = std::function<void(const Prediction &prediction, bool classification)>;
Result<Predictions> predictEach(const Preset &preset, const PredictOptions &options, const PredictionSink &emit);

// predictEach() with every prediction collected in `samples`.
Result<Predictions> predictWithWeights(const Preset &preset, const PredictOptions &options);

} // namespace ty
