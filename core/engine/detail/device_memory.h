#pragma once
// Internal to ty_engine (includes LibTorch). Whether a run's memory estimate (core/shapes/memory_estimate.h)
// fits its training device, checked before the data or the model is allocated (docs/reliability.md).

#include "error.h"
#include "shape_types.h"

#include <torch/torch.h>

namespace ty::detail {

// The memory a run may use on `device`, in bytes: TRAINYARD_MEMORY_LIMIT_BYTES when set, else on the CPU the
// machine's available memory; -1 when unknown (a GPU: see the definition).
qint64 availableDeviceMemory(const torch::Device &device);

// An Error naming the node that holds the most when the estimate exceeds what `device` has available;
// success when it fits, or when the estimate or the available memory is unknown.
Status checkDeviceMemory(const ShapeReport &report, const torch::Device &device);

} // namespace ty::detail
