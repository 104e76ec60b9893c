#include "dataset_prefetch.h"

#include <atomic>

namespace ty {

namespace {

// Set once, before the training thread starts, and read from any thread after.
std::atomic<std::optional<LoadedDataset> (*)(const DatasetRequest &)> installedTake{nullptr};
std::atomic<void (*)()> installedRelease{nullptr};

} // namespace

void setDatasetPrefetch(const DatasetPrefetch &prefetch)
{
    installedTake = prefetch.take;
    installedRelease = prefetch.release;
}

std::optional<LoadedDataset> takePrefetchedDataset(const DatasetRequest &request)
{
    const auto take = installedTake.load();
    return take ? take(request) : std::nullopt;
}

void releasePrefetchedDataset()
{
    if (const auto release = installedRelease.load())
        release();
}

bool sameRequest(const DatasetRequest &a, const DatasetRequest &b)
{
    return a.blockType == b.blockType && a.nodeId == b.nodeId && a.params == b.params && a.baseDir == b.baseDir
           && a.stream == b.stream;
}

} // namespace ty
