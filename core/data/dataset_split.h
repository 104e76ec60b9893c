#pragma once
// The split parameters shared by every dataset block (val_fraction, val_count, limit, test_limit,
// split_seed, keep_classes) and the train/validation split itself:
//   keep only the samples of `keep_classes` (renumbered in the order listed), from the training and the test
//   samples alike (a CSV's test rows are chosen from all rows first, so a row's split never depends on the
//   classes kept); shuffle the training samples' indices with split_seed; keep the first `limit` (0: all); of those,
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
    // keep_classes: its items as listed (trimmed); the class indices they name, in that order, once
    // resolveKeptClasses has seen the data set's classes. Both empty: every class.
    QStringList keepClassItems;
    std::vector<int64_t> keepClasses;
};

// Reads the split parameters (defaults as in the block specs); problems are kept in `params`.
SplitSettings readSplitSettings(DatasetParams &params);

// Resolves keep_classes against the data set's classes: an item is a class index (0 to numClasses - 1) or,
// where the data names its classes (shape.classLabels, a CSV's labels), a label as written. Every reader
// calls it before splitting. An Error naming the node and field for an unknown class, one listed twice, or a
// regression data set.
Status resolveKeptClasses(SplitSettings &settings, const DatasetParams &params, const DatasetShape &shape);

// Holds `testCount` of `all`'s samples out as the test split, drawn by a shuffle seeded with `seed` (its stream 1,
// apart from the train/validation shuffle): in file order, or with `keepDrawnOrder` in the order drawn. `all`
// keeps the rest, in file order (the training pool). What the readers with a test_fraction share.
DataSplit holdOutTest(DataSplit &all, int64_t testCount, uint64_t seed, bool keepDrawnOrder = false);

// The samples at `indices` (in that order) of `from`.
DataSplit gatherSamples(const DataSplit &from, const std::vector<int64_t> &indices);
// Keeps only the samples at `rows` (ascending, each once) of `split`, moved forward within its own arrays: a large
// data set is not copied a second time.
void keepRowsInPlace(DataSplit &split, const std::vector<int64_t> &rows);

// Splits `all` (the training samples) into train and validation. An empty training split is an Error
// naming the node and the field responsible: `sourceField` when there are no samples at all.
Status splitTrainValidation(DataSplit &&all, const SplitSettings &settings, const DatasetParams &params,
                            const QString &sourceField, DataSplit &train, DataSplit &validation);

// Keeps the test samples of settings.keepClasses (renumbered), then the first settings.testLimit (0: all).
void applyTestSettings(DataSplit &test, const SplitSettings &settings);

// The names of the kept classes, in the order listed (resolved settings). A data set without names (IDX)
// gets its kept labels' numbers, so reports on the renumbered classes still say which class each one was.
QStringList keptClassNames(const SplitSettings &settings, const QStringList &classNames);

// How many samples a loaded dataset holds (train + validation + test), from the samples its files offer:
// the training pool cut to `limit`, the test samples to `test_limit`. What describe functions report as
// DatasetShape::sampleCount, without reading the samples.
int64_t loadedSampleCount(int64_t trainAvailable, int64_t testAvailable, const SplitSettings &settings);

// The error splitTrainValidation() gives when the validation split would leave no training examples (val_count or
// val_fraction against `trainAvailable`, after limit), or success. The data sets' descriptions (validate, the
// editor's issues) run it too, so that a preset `run` refuses is never said to have no issues.
Status checkTrainingSplit(int64_t trainAvailable, const SplitSettings &settings, const DatasetParams &params);

} // namespace ty
