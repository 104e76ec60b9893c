#include "host_allocator.h"

#include <QByteArray>

#include <cstdlib>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace ty {

namespace {

// 32 MiB is the largest mmap threshold glibc accepts on 64-bit systems (DEFAULT_MMAP_THRESHOLD_MAX): blocks up
// to it come from the heap. Larger ones (a whole evaluation batch of a big CNN) are still mapped; they are few.
constexpr long kMmapThreshold = 32L * 1024 * 1024;
// Up to 256 MiB of free heap top are kept rather than given back and faulted in again at the next step.
constexpr long kTrimThreshold = 256L * 1024 * 1024;

HostAllocatorSettings apply()
{
    HostAllocatorSettings settings;
#if defined(__GLIBC__)
    if (hostMemoryLeftAlone()) {
        settings.reason = QStringLiteral("TRAINYARD_HOST_MEMORY=system");
        return settings;
    }
    if (tunablesSetMalloc(qgetenv("GLIBC_TUNABLES"))) {
        settings.reason = QStringLiteral("GLIBC_TUNABLES sets the allocator");
        return settings;
    }
    // The trim threshold first: setting the mmap threshold turns off the dynamic adjustment of both.
    if (mallopt(M_TRIM_THRESHOLD, int(kTrimThreshold)) != 1 || mallopt(M_MMAP_THRESHOLD, int(kMmapThreshold)) != 1) {
        settings.reason = QStringLiteral("mallopt refused the thresholds");
        return settings;
    }
    settings.applied = true;
    settings.mmapThreshold = kMmapThreshold;
    settings.trimThreshold = kTrimThreshold;
#else
    settings.reason = QStringLiteral("not glibc");
#endif
    return settings;
}

} // namespace

const HostAllocatorSettings &configureHostAllocatorForTraining()
{
    static const HostAllocatorSettings settings = apply();
    return settings;
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
