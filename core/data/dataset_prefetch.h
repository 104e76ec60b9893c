#pragma once
// A data set loaded ahead of need. `trainyard-cli run` decodes its preset's data set on a thread of its own
// while the training module, and LibTorch with it, loads (half a second and more); loadDataset() then hands
// that data set over instead of decoding it again, when asked for exactly the request it was loaded for.
// trainyard-cli and its training module each link a copy of this library, so the module's loadDataset()
// reaches the program's prefetch through the functions the program gives setDatasetPrefetch(), never through
// a variable of its own copy.

#include "dataset_loader.h"

#include <optional>

namespace ty {

struct DatasetPrefetch {
    // The data set loaded for `request`, waiting for its load to end; once. Nothing when another request was
    // loaded ahead, none was, or its load failed: the caller loads the data set itself (and reports the error).
    std::optional<LoadedDataset> (*take)(const DatasetRequest &request) = nullptr;
    // Frees what was loaded ahead (a run waiting in the queue holds no data set meanwhile).
    void (*release)() = nullptr;
};

// Installs the functions loadDataset() and releasePrefetchedDataset() call; an empty DatasetPrefetch removes them.
void setDatasetPrefetch(const DatasetPrefetch &prefetch);
// The installed take(), when there is one and it has the data set of `request`.
std::optional<LoadedDataset> takePrefetchedDataset(const DatasetRequest &request);
void releasePrefetchedDataset();

bool sameRequest(const DatasetRequest &a, const DatasetRequest &b);

} // namespace ty
