// Built only against a CUDA LibTorch (core/engine/CMakeLists.txt).
#include "detail/cuda_memory.h"

#include <c10/cuda/CUDACachingAllocator.h>

#include <exception>

namespace ty::detail {

// The allocator's functions are called as PyTorch's torch.cuda.reset_peak_memory_stats() and max_memory_allocated()
// call them; the statistics' first entry is the sum over its pools.
void resetCudaPeak(int device)
{
    try {
        c10::cuda::CUDACachingAllocator::resetPeakStats(static_cast<c10::DeviceIndex>(device));
    } catch (const std::exception &) {
        // No such device, or another allocator backend without statistics: the peak is then left unknown.
    }
}

qint64 cudaPeakAllocatedBytes(int device)
{
    try {
        const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(device));
        return qint64(stats.allocated_bytes[0].peak);
    } catch (const std::exception &) {
        return -1;
    }
}

} // namespace ty::detail
