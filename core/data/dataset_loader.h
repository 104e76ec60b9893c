#pragma once
// Reading the dataset blocks of core/blocks (dataset.fashion_mnist, dataset.idx, dataset.csv,
// dataset.synthetic) into plain arrays. Thread-safe; no state.

#include "dataset_arrays.h"
#include "error.h"

#include <QJsonObject>

namespace ty {

struct DatasetRequest {
    QString blockType;     // e.g. "dataset.fashion_mnist"
    QString nodeId;        // for error messages
    QJsonObject params;    // effective parameters (every key of the block's specs present)
    QString baseDir;       // relative paths in params are resolved against this (the preset's folder)
};

// Cheap: reads headers only. Errors name the node, the parameter and the file.
Result<DatasetShape> describeDataset(const DatasetRequest &request);

// Reads and decodes everything, applies limits and the train/validation split.
Result<LoadedDataset> loadDataset(const DatasetRequest &request);

} // namespace ty
