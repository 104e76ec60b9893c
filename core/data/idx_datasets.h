#pragma once
// The IDX-backed dataset blocks: dataset.fashion_mnist (the four standard files in `dir`) and dataset.idx
// (any pair of samples and labels files, with an optional test pair).

#include "dataset_loader.h"

#include <QStringList>

namespace ty {

// The ten Fashion-MNIST class names, in label order.
QStringList fashionMnistClassNames();

Result<DatasetShape> describeFashionMnist(const DatasetRequest &request);
Result<LoadedDataset> loadFashionMnist(const DatasetRequest &request);

Result<DatasetShape> describeIdxDataset(const DatasetRequest &request);
Result<LoadedDataset> loadIdxDataset(const DatasetRequest &request);

} // namespace ty
