#include "host_allocator.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace ty {

namespace {

// 32 MiB is the largest mmap threshold glibc accepts on 64-bit systems (DEFAULT_MMAP_THRESHOLD_MAX): blocks up
// to it come from the heap. Larger ones are still mapped: the training module's large block cache keeps LibTorch's
// (core/engine/host_memory.h).
constexpr long kMmapThreshold = 32L * 1024 * 1024;
// Up to 256 MiB of free heap top are kept rather than given back and faulted in again at the next step.
constexpr long kTrimThreshold = 256L * 1024 * 1024;

bool apply()
{
#if defined(__GLIBC__)
    if (hostMemoryLeftAlone() || tunablesSetMalloc(qgetenv("GLIBC_TUNABLES")))
        return false;
    // The trim threshold first: setting the mmap threshold turns off the dynamic adjustment of both.
    return mallopt(M_TRIM_THRESHOLD, int(kTrimThreshold)) == 1 && mallopt(M_MMAP_THRESHOLD, int(kMmapThreshold)) == 1;
#else
    return false;
#endif
}

} // namespace

bool configureHostAllocatorForTraining()
{
    static const bool applied = apply();
    return applied;
}

bool hostMemoryLeftAlone()
{
    return qgetenv("TRAINYARD_HOST_MEMORY") == "system";
}

bool tunablesSetMalloc(const QByteArray &glibcTunables)
{
    return glibcTunables.contains("glibc.malloc.");
}

} // namespace ty
