#pragma once
// Datasets decoded once into plain contiguous arrays (no torch types here): the engine turns each array into
// one tensor on the training device and batches it by index_select.

#include "image_decoding.h"
#include "sample_store.h"

#include <QMap>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <memory>
#include <vector>

namespace ty {

// Samples: `count` samples of `sampleShape` each, row-major. Bytes (images) are kept as uint8 and scaled by
// `scale` when the engine converts them to float; tables are float already.
struct SampleArray {
    std::vector<int64_t> sampleShape;  // e.g. {1, 28, 28} or {13}
    int64_t count = 0;
    std::vector<uint8_t> bytes;        // used when !isFloat: count * prod(sampleShape) values
    std::vector<float> floats;         // used when isFloat
    bool isFloat = false;
    float scale = 1.0f;                // multiply byte values by this (1/255 maps bytes to [0, 1])
    // Streamed (a run's request with `stream`, image data sets): the bytes stay in a file; sample i is row
    // storeFirst + i of `store`, and `bytes` is empty.
    std::shared_ptr<const SampleStore> store;
    int64_t storeFirst = 0;

    int64_t sampleSize() const;        // prod(sampleShape)
};

// Targets: class indices for classification, or `width` floats per sample for regression.
struct TargetArray {
    bool classification = true;
    std::vector<int64_t> classes;      // classification: count values in [0, numClasses)
    std::vector<float> values;         // regression: count * width values
    int64_t width = 1;                 // regression targets per sample
    int64_t count = 0;
};

struct DataSplit {
    SampleArray x;
    TargetArray y;
    int64_t size() const { return x.count; }
};

// What a dataset looks like, known without reading everything (IDX headers, a CSV's header line).
struct DatasetShape {
    std::vector<int64_t> sampleShape;
    bool classification = true;
    int64_t numClasses = 0;            // classification only
    int64_t targetWidth = 1;           // regression only
    // Classification where the data names its classes itself (a CSV's distinct labels, in class order):
    // keep_classes lists these labels as written. Empty where the classes are numbers (IDX, synthetic).
    QStringList classLabels;
    // Train + validation + test samples after the split parameters' limits, as loaded; -1 when not known.
    int64_t sampleCount = -1;
    // Bytes a sample value takes in host memory: 1 where the samples stay uint8 (images, IDX unsigned bytes,
    // CIFAR, a text corpus of at most 256 characters), 4 where they are floats. On a GPU every value is a float.
    int sampleValueBytes = 4;
};

struct LoadedDataset {
    DatasetShape shape;
    DataSplit train, val, test;        // val and test may be empty (size 0)
    QStringList classNames;            // when known (Fashion-MNIST's, a CSV's distinct labels)
    QString fingerprint;               // sha256 over the source files' bytes (or the generator's parameters)
    QStringList sourceFiles;
    // dataset.csv with standardize: the training statistics applied to every split (x - mean) / std, one
    // value per feature, for applying the same to new data; empty otherwise.
    std::vector<float> featureMean, featureStd;
    // dataset.csv: the feature columns in sample order and the target column, for reading new rows alike.
    QStringList featureNames;
    QString targetName;
    // dataset.csv: the categorical feature columns and their categories in order; one-hot columns appear in
    // featureNames as "column=category", id columns as the column (its value the category's index).
    QMap<QString, QStringList> featureCategories;
    bool categoriesOneHot = true;
    // Image data sets: how an image of another size is fitted to the sample size (new inputs are fitted alike).
    ImageFit imageFit = ImageFit::Stretch;
    // Handed over by loadDataset() from a load made ahead of the request (dataset_prefetch.h).
    bool loadedAhead = false;
};

} // namespace ty
