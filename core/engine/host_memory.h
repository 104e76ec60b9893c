#pragma once
// LibTorch's memory on the CPU, set up for training (docs/benchmarks.md, "The first epoch").
//
// Below 32 MiB the C library's heap serves a step's tensors (core/common/host_allocator.h fixes its thresholds).
// Blocks of 32 MiB and more are always mapped anew and unmapped when freed: an evaluation batch of 1,000 images
// through the CNN preset allocates about 480 MB of them, every page of which faulted in again for each batch
// (1.2 million page faults, 4 of the 7 seconds of a 3,000-sample run, for the 10 batches of the test split).
// The large block cache keeps such blocks when LibTorch frees them and hands them out again for a request of
// the same size (rounded up to 2 MiB), up to a bound on what it holds; smaller requests go to the allocator
// it replaced. Reusing memory changes no value: LibTorch writes a new tensor before reading it.

#include <QtGlobal>

namespace ty {

struct LargeBlockCacheStats {
    qint64 hits = 0;          // requests served from the cache
    qint64 misses = 0;        // large requests that needed a new block
    qint64 cachedBytes = 0;   // held now, not in use
};

// Makes the cache LibTorch's CPU allocator, once per process (later calls do nothing; nothing either with
// TRAINYARD_HOST_MEMORY=system). Called where a process starts to train, evaluate or predict: the training
// module's entry point, and trainyard-bench. Thread-safe.
void installLargeBlockCache();
bool largeBlockCacheInstalled();
LargeBlockCacheStats largeBlockCacheStats();

} // namespace ty
