#pragma once
// Validation plus shape inference of a whole preset (core/shapes), with what only LibTorch can tell: whether
// the device it asks for exists here. No torch types.

#include "engine_types.h"
#include "preset.h"

namespace ty {

// inspectPresetShapes(), plus a warning when the preset asks for CUDA and this LibTorch has no CUDA device.
ShapeReport inspectPreset(const Preset &preset);

// LibTorch's version ("1.13.1") and whether CUDA can be used.
QString torchVersion();
bool cudaAvailable();

} // namespace ty
