#pragma once
// The split parameters shared by every dataset block (val_fraction, val_count, limit, test_limit,
// split_seed) and the train/validation split itself:
//   shuffle the training samples' indices with split_seed; keep the first `limit` (0: all); of those,
//   `val_count` (if above 0) or round(val_fraction * n) go to validation, the rest to training.
// Each split keeps its samples in their original order. `test_limit` keeps the first N test samples.

#include "dataset_arrays.h"
#include "error.h"

#include <cstdint>
#include <vector>

namespace ty {

class DatasetParams;

struct SplitSettings {
    double valFraction = 0.1;
    int64_t valCount = 0;
    int64_t limit = 0;
    int64_t testLimit = 0;
    uint64_t splitSeed = 0;
};

// Reads the split parameters (defaults as in the block specs); problems are kept in `params`.
SplitSettings readSplitSettings(DatasetParams &params);

// The samples at `indices` (in that order) of `from`.
DataSplit gatherSamples(const DataSplit &from, const std::vector<int64_t> &indices);

// Splits `all` (the training samples) into train and validation. An empty training split is an Error
// naming the node and the field responsible: `sourceField` when there are no samples at all.
Status splitTrainValidation(DataSplit &&all, const SplitSettings &settings, const DatasetParams &params,
                            const QString &sourceField, DataSplit &train, DataSplit &validation);

// Keeps the first `limit` samples (0: all).
void applyTestLimit(DataSplit &test, int64_t limit);

// How many samples a loaded dataset holds (train + validation + test), from the samples its files offer:
// the training pool cut to `limit`, the test samples to `test_limit`. What describe functions report as
// DatasetShape::sampleCount, without reading the samples.
int64_t loadedSampleCount(int64_t trainAvailable, int64_t testAvailable, const SplitSettings &settings);

} // namespace ty
