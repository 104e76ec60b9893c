#pragma once
// New inputs for a trained model, read the way its training data was: images (PNG, JPEG, BMP) converted to the
// data set's channels and size, IDX files of samples of the data set's shape, and CSV files with the training
// feature columns (found by name; the target column may be there or not), standardized with the training
// statistics. Everything becomes float samples on the data set's scale. No LibTorch; images are decoded by
// QImage, which needs no display.

#include "dataset_arrays.h"
#include "image_decoding.h"
#include "error.h"

#include <QStringList>

namespace ty {

// What a data set's samples look like.
struct SampleFormat {
    std::vector<int64_t> sampleShape;  // [channels, height, width] for images, [features] for tables
    float scale = 1.0f;                // byte samples are multiplied by this (1/255)
    QStringList featureNames;          // CSV data sets: feature columns in sample order
    QString targetName;                // CSV data sets: the target column
    std::vector<float> featureMean, featureStd;  // standardization, when the data set applied it
    ImageFit imageFit = ImageFit::Stretch;      // image data sets: how an image of another size is fitted
    QMap<QString, QStringList> featureCategories;  // CSV data sets: categorical columns (see LoadedDataset)
    bool categoriesOneHot = true;
};
SampleFormat sampleFormatOf(const LoadedDataset &dataset);

struct ModelInputs {
    SampleArray samples;  // float samples of the format's shape
    QStringList names;    // one per sample: "shoe.png", "images.idx[3]", "rows.csv line 5"
};

// Reads every file of `paths` (by extension: .png .jpg .jpeg .bmp; .idx, .gz, -ubyte; .csv), in order. Errors
// name the file, and for CSV files the line and column. At most `maxSamples` samples in all.
Result<ModelInputs> readModelInputs(const QStringList &paths, const SampleFormat &format, int64_t maxSamples = 1000000);

} // namespace ty
