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

#include <memory>

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

// The files of `paths` (by extension: .png .jpg .jpeg .bmp; .idx, .gz, -ubyte; .csv), in order, read a few samples
// at a time: memory is what one next() asks for (plus a CSV file's bytes), whatever the files hold. Errors name
// the file, and for CSV files the line and column; after an error the stream ends. Not thread-safe.
class ModelInputStream {
public:
    ModelInputStream(QStringList paths, SampleFormat format);
    ~ModelInputStream();
    ModelInputStream(const ModelInputStream &) = delete;
    ModelInputStream &operator=(const ModelInputStream &) = delete;

    // Opens every file once, without reading its samples (images are decoded): a missing or unknown file, a
    // sample shape the model does not take, an image that does not decode, a CSV file without the training
    // columns, a plain IDX file shorter than its header says. What only reading finds (a bad CSV cell, a cut gzip
    // stream) comes from next().
    Status check();
    // The next samples, at most `count`; fewer only at the end of the inputs, none once they are all read.
    Result<ModelInputs> next(int64_t count);
    int fileIndex() const { return m_next - 1; }  // the file being read (or last read)

private:
    struct Source;
    Status openSource(const QString &path, bool headerOnly);  // headerOnly: a CSV file's bytes are not kept
    Result<int64_t> readFromSource(int64_t count, ModelInputs *out);

    QStringList m_paths;
    SampleFormat m_format;
    int m_next = 0;  // the next file to open
    int64_t m_sampleInFile = 0;
    std::unique_ptr<Source> m_source;
};

// Every sample of `paths` at once (ModelInputStream); at most `maxSamples` in all.
Result<ModelInputs> readModelInputs(const QStringList &paths, const SampleFormat &format, int64_t maxSamples = 1000000);

} // namespace ty
