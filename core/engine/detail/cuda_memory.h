#pragma once
// Internal to ty_engine. The CUDA caching allocator's own figures, for the speed report (speed/peak_cuda_mb):
// cuda_memory.cpp in builds against a CUDA LibTorch, cuda_memory_absent.cpp (which has none) otherwise.

#include <QtGlobal>

namespace ty::detail {

// Starts counting the largest allocation of GPU `device` afresh (a run's own peak, not the process's).
void resetCudaPeak(int device);
// The most bytes that tensors held at once on GPU `device` since resetCudaPeak, or -1 when unknown.
qint64 cudaPeakAllocatedBytes(int device);

} // namespace ty::detail
