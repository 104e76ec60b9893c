#pragma once
// An ONNX model imported into files: what `trainyard-cli import MODEL.onnx --output NAME.trainyard.json` and the app's
// File ▸ Import ONNX Model… both do. Reads the model (readOnnxModelFile), imports it (importOnnx) and writes the
// weights as NAME.weights.safetensors beside the preset, then the preset, which names them in training.init_from.
// Nothing is written unless the whole model imports; a failed write removes the weights written before it.

#include "onnx_import.h"

namespace ty {

// NAME.trainyard.json (or NAME.json) -> NAME.weights.safetensors in the same folder.
QString onnxImportWeightsPath(const QString &presetPath);
// The preset offered for MODEL.onnx: MODEL.trainyard.json beside it.
QString onnxImportSuggestedPreset(const QString &modelPath);

struct OnnxImportFiles {
    OnnxImport import;
    QString presetPath, weightsPath;
    double seconds = 0;  // reading, importing and writing
};

// Imports `modelPath` and writes the preset to `presetPath` and the weights beside it, replacing existing files
// (callers ask first: the command line's --force, the app's file dialog). Errors name the file, node and field.
Result<OnnxImportFiles> importOnnxToFiles(const QString &modelPath, const QString &presetPath);

} // namespace ty
