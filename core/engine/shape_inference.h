#pragma once
// Validation plus shape inference of a whole preset, through the same builders that train. No torch types.

#include "engine_types.h"
#include "preset.h"

namespace ty {

// Structural issues, training-setting issues, dataset problems (missing files) and shape issues, each pinned
// to its node; with each node's output shape and parameter count, and the total.
ShapeReport inspectPreset(const Preset &preset);

// LibTorch's version ("1.13.1") and whether CUDA can be used.
QString torchVersion();
bool cudaAvailable();

} // namespace ty
