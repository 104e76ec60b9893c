#pragma once
// The C library's allocator, set up for training (docs/benchmarks.md, "The first epoch").
//
// glibc's malloc serves a block of 128 KiB or more with a fresh mmap and unmaps it when it is freed, and gives
// the top of its heap back to the kernel once 128 KiB of it are free. Both thresholds rise by themselves only when
// a mapped block larger than the current threshold is freed. A training step allocates and frees its tensors
// (hundreds of kB to tens of MB) every step, so until some larger block happened to raise the thresholds, every
// step's tensors were new pages: a fault per 4 KiB page written, on a virtual machine most of the step (the
// MLP's first epoch of 55,000 samples ran six times slower than its second). Fixing both thresholds at start-up
// keeps the step's memory in the heap from the first step on.

#include <QString>

namespace ty {

struct HostAllocatorSettings {
    bool applied = false;       // false: glibc's defaults stay (another C library, or the user's GLIBC_TUNABLES)
    QString reason;             // why not, when not applied
    long mmapThreshold = 0;     // bytes: blocks at least this large are mapped on their own
    long trimThreshold = 0;     // bytes: free memory at the heap's top kept before it is given back
};

// Fixes glibc's mmap and trim thresholds for this process (mallopt), once; later calls return the first
// result. Left alone when GLIBC_TUNABLES already sets a malloc tunable (the user's choice wins), or when
// TRAINYARD_HOST_MEMORY=system (for comparisons: glibc's and LibTorch's defaults, as before). Thread-safe.
// Called by every process that trains, evaluates or predicts (the training module's entry point) and by
// trainyard-bench.
const HostAllocatorSettings &configureHostAllocatorForTraining();

// Whether TRAINYARD_HOST_MEMORY=system asks for the C library's and LibTorch's own settings.
bool hostMemoryLeftAlone();
// Whether a GLIBC_TUNABLES value sets any of glibc's malloc tunables ("glibc.malloc.").
bool tunablesSetMalloc(const QByteArray &glibcTunables);

} // namespace ty
