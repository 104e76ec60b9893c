#pragma once
// Reading the dataset blocks of core/blocks (dataset.fashion_mnist, dataset.idx, dataset.csv,
// dataset.synthetic) into plain arrays. Thread-safe; no state.

#include "dataset_arrays.h"
#include "error.h"
#include "kind_table.h"

#include <QJsonObject>

namespace ty {

struct DatasetRequest {
    QString blockType;     // e.g. "dataset.fashion_mnist"
    QString nodeId;        // for error messages
    QJsonObject params;    // effective parameters (every key of the block's specs present)
    QString baseDir;       // relative paths in params are resolved against this (the preset's folder)
    // Keep the decoded samples in a file and read them by index (SampleArray::store) where the kind can (image
    // folders and lists); other kinds load into memory as ever.
    bool stream = false;
};

// Cheap: reads headers only. Errors name the node, the parameter and the file.
Result<DatasetShape> describeDataset(const DatasetRequest &request);

// Reads and decodes everything, applies limits and the train/validation split.
Result<LoadedDataset> loadDataset(const DatasetRequest &request);

// One dataset kind's readers (both required).
struct DatasetReader {
    Result<DatasetShape> (*describe)(const DatasetRequest &request) = nullptr;
    Result<LoadedDataset> (*load)(const DatasetRequest &request) = nullptr;
    bool canStream = false;  // honours DatasetRequest::stream
};

// The readers of every dataset kind, one registration per type id. describeDataset and loadDataset look the
// request's kind up here; tests check that every dataset block has one.
const KindTable<DatasetReader> &datasetReaders();

} // namespace ty
