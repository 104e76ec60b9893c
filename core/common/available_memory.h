#pragma once
// How much memory a run may count on, for the check of its memory estimate (docs/reliability.md). No torch:
// the engine adds what only LibTorch knows about a GPU.

#include <QByteArray>
#include <QtGlobal>

namespace ty {

// The machine's memory available to a new process now: MemAvailable of /proc/meminfo, in bytes; -1 when
// unknown (no /proc/meminfo, or no such line).
qint64 availableHostMemory();
// MemAvailable of a /proc/meminfo text ("MemAvailable:   3221225 kB"), in bytes; -1 when it has none.
qint64 memAvailableFromMeminfo(const QByteArray &meminfo);
// The largest resident set of this process so far (VmHWM of /proc/self/status), in bytes; -1 when unknown.
qint64 peakResidentBytes();
// A "Name:   123 kB" field of a /proc text, in bytes; -1 when it has none.
qint64 procFieldBytes(const QByteArray &text, const QByteArray &field);

// TRAINYARD_MEMORY_LIMIT_BYTES when it holds a positive integer, else -1. When set, it stands for the
// training device's available memory (CPU or GPU), so a test can simulate a small device.
qint64 memoryLimitOverride();

} // namespace ty
