#pragma once
// Running a character-level model (one trained on dataset.text) on text: the most probable next characters after a
// prompt, and a continuation of the prompt sampled one character at a time. What `trainyard-cli predict RUN --text`
// runs. No LibTorch types here.

#include "error.h"
#include "predictor.h"
#include "preset.h"

#include <QString>

#include <cstdint>
#include <vector>

namespace ty {

struct TextGenerationOptions {
    QString weightsPath;          // a checkpoint, or weights exported as safetensors
    QString prompt;               // read as the data set reads its file (lower-cased when it is)
    int length = 0;               // characters to generate after the prompt (0: none)
    double temperature = 1.0;     // logits are divided by it before sampling; 0: always the most probable
    uint64_t seed = 0;            // of the sampling
    int topK = 3;                 // next characters listed for the prompt
    QString device;               // overrides training.device when not empty
    bool checkPresetHash = true;
};

struct TextGeneration {
    QString prompt;                    // as the model read it (lower-cased when the data set is)
    std::vector<ClassProbability> next;  // the topK most probable characters after the prompt, most probable first
    QString continuation;              // the `length` characters generated after the prompt
    int window = 0;                    // characters the model reads at once; a shorter prompt is padded in front
};

// Errors name what is wrong: a model whose data set is not dataset.text, a character outside the vocabulary, a
// prompt too short to pad (a vocabulary without a line break or space). Never throws.
Result<TextGeneration> generateText(const Preset &preset, const TextGenerationOptions &options);

} // namespace ty
