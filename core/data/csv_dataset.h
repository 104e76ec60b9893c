#pragma once
// dataset.csv: numeric feature columns and one label (classification) or number (regression) column of a
// CSV file. `test_fraction` of the rows, chosen by a shuffle seeded with split_seed, become the test split;
// the rest are the training samples that the common split divides (dataset_split.h). With `standardize`
// every feature is shifted and scaled by the training split's mean and standard deviation, in all splits.
// Classification labels are the distinct label strings sorted (numerically when all are numbers).

#include "dataset_loader.h"

namespace ty {

Result<DatasetShape> describeCsvDataset(const DatasetRequest &request);
Result<LoadedDataset> loadCsvDataset(const DatasetRequest &request);

} // namespace ty
