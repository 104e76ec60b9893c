#pragma once
// Validation plus shape inference of a whole preset, without LibTorch: what `trainyard-cli validate` prints
// and what the editor shows on every node.

#include "preset.h"
#include "shape_types.h"

namespace ty {

// Structural issues, training-setting issues, dataset problems (missing files) and shape issues, each pinned
// to its node; with each node's output shape and parameter count, and the total. Reads dataset headers only.
ShapeReport inspectPresetShapes(const Preset &preset);

// Whether the preset asks for training.device "cuda", and the warning to add when no CUDA device can be used.
bool presetWantsCuda(const Preset &preset);
Issue cudaUnavailableIssue();

} // namespace ty
