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

#include <QByteArray>

namespace ty {

// Fixes glibc's mmap and trim thresholds for this process (mallopt), once; later calls return the first
// result: whether they were set. Left alone (false) when GLIBC_TUNABLES already sets a malloc tunable (the user's
// choice wins), when TRAINYARD_HOST_MEMORY=system (for comparisons: glibc's and LibTorch's defaults, as before),
// or with another C library. Thread-safe. Called first thing in trainyard-cli's main (every process that trains,
// evaluates or predicts is a trainyard-cli) and in trainyard-bench's.
bool configureHostAllocatorForTraining();

// Whether TRAINYARD_HOST_MEMORY=system asks for the C library's and LibTorch's own settings.
bool hostMemoryLeftAlone();
// Whether a GLIBC_TUNABLES value sets any of glibc's malloc tunables ("glibc.malloc.").
bool tunablesSetMalloc(const QByteArray &glibcTunables);

} // namespace ty
