#pragma once
// Predicting with trained weights on new inputs (images, IDX files, CSV rows; model_inputs.h), read the way the
// preset's data set is: what `trainyard-cli predict` runs. No LibTorch types here.

#include "error.h"
#include "preset.h"

#include <QString>
#include <QStringList>

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

// Loads the preset's data set (for its sample format and class names), the weights and the inputs, and runs the
// model in evaluation mode (the graph's own normalization applies). Errors name the file and what is wrong;
// never throws.
Result<Predictions> predictWithWeights(const Preset &preset, const PredictOptions &options);

} // namespace ty
