// Built against a LibTorch without CUDA (Debian's): there is no GPU allocator to ask.
#include "detail/cuda_memory.h"

namespace ty::detail {

void resetCudaPeak(int) {}

qint64 cudaPeakAllocatedBytes(int)
{
    return -1;
}

} // namespace ty::detail
