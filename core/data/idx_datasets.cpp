#include "idx_datasets.h"

#include "dataset_params.h"
#include "dataset_split.h"
#include "file_fingerprint.h"
#include "idx_reader.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>

namespace ty {

namespace {

constexpr int64_t kFashionClasses = 10;

// One pair of IDX files and the parameters that name them (for errors).
struct IdxPair {
    QString images, labels;
    QString imagesField, labelsField;
    bool present() const { return !images.isEmpty(); }
};

struct IdxSources {
    IdxPair train, test;
};

// Checks the two headers of a pair agree; returns the images header.
Result<IdxHeader> describePair(const IdxPair &pair, const DatasetParams &params)
{
    Result<IdxHeader> images = readIdxHeader(pair.images);
    if (!images)
        return params.withContext(images.error(), pair.imagesField);
    Result<IdxHeader> labels = readIdxHeader(pair.labels);
    if (!labels)
        return params.withContext(labels.error(), pair.labelsField);
    const std::vector<int64_t> &labelDims = labels.value().dims;
    if (!(labelDims.size() == 1 || (labelDims.size() == 2 && labelDims[1] == 1)))
        return params.error(pair.labelsField, QStringLiteral("a labels file must have one dimension, this one has %1")
                                                  .arg(labelDims.size()), pair.labels);
    if (labels.value().count() != images.value().count())
        return params.error(pair.labelsField, QStringLiteral("%1 labels, but %2 has %3 samples")
                                                  .arg(labels.value().count()).arg(pair.images).arg(images.value().count()),
                            pair.labels);
    return images;
}

Result<DataSplit> loadPair(const IdxPair &pair, bool scaleBytes, const DatasetParams &params)
{
    Result<IdxArray> images = readIdxFile(pair.images);
    if (!images)
        return params.withContext(images.error(), pair.imagesField);
    Result<IdxArray> labelFile = readIdxFile(pair.labels);
    if (!labelFile)
        return params.withContext(labelFile.error(), pair.labelsField);
    Result<std::vector<int64_t>> labels = idxToLabels(labelFile.value(), pair.labels);
    if (!labels)
        return params.withContext(labels.error(), pair.labelsField);
    const int64_t sampleCount = images.value().header.count();
    if (int64_t(labels.value().size()) != sampleCount)
        return params.error(pair.labelsField, QStringLiteral("%1 labels, but %2 has %3 samples")
                                                  .arg(labels.value().size()).arg(pair.images).arg(sampleCount),
                            pair.labels);
    DataSplit split;
    split.x = idxToSamples(std::move(images).value(), scaleBytes);
    split.y.classification = true;
    split.y.classes = std::move(labels).value();
    split.y.count = sampleCount;
    return split;
}

Status checkLabelRange(const DataSplit &split, int64_t numClasses, const IdxPair &pair, const DatasetParams &params)
{
    for (size_t i = 0; i < split.y.classes.size(); ++i) {
        if (split.y.classes[i] >= numClasses)
            return params.error(pair.labelsField, QStringLiteral("label %1 at index %2 is outside the %3 classes")
                                                      .arg(split.y.classes[i]).arg(i).arg(numClasses), pair.labels);
    }
    return Status::success();
}

int64_t maxLabel(const DataSplit &split)
{
    int64_t best = -1;
    for (const int64_t label : split.y.classes)
        best = std::max(best, label);
    return best;
}

// Loads train (and test, when present), checks shapes agree, splits, fingerprints.
Result<LoadedDataset> loadSources(const IdxSources &sources, bool scaleBytes, int64_t fixedClasses,
                                  DatasetParams &params)
{
    SplitSettings split = readSplitSettings(params);
    if (!params.ok())
        return params.firstError();

    LoadedDataset dataset;
    dataset.sourceFiles << sources.train.images << sources.train.labels;
    if (sources.test.present())
        dataset.sourceFiles << sources.test.images << sources.test.labels;
    BackgroundFingerprint fingerprint(dataset.sourceFiles);  // hashes while the files are decoded

    Result<DataSplit> train = loadPair(sources.train, scaleBytes, params);
    if (!train)
        return train.error();

    DataSplit test;
    if (sources.test.present()) {
        Result<DataSplit> loaded = loadPair(sources.test, scaleBytes, params);
        if (!loaded)
            return loaded.error();
        test = std::move(loaded).value();
        if (test.x.sampleShape != train.value().x.sampleShape || test.x.isFloat != train.value().x.isFloat)
            return params.error(sources.test.imagesField,
                                QStringLiteral("the test samples differ in shape or type from the training samples in %1")
                                    .arg(sources.train.images),
                                sources.test.images);
    } else {
        test.x.sampleShape = train.value().x.sampleShape;
        test.x.isFloat = train.value().x.isFloat;
        test.x.scale = train.value().x.scale;
    }

    int64_t numClasses = fixedClasses;
    if (numClasses > 0) {
        if (const Status s = checkLabelRange(train.value(), numClasses, sources.train, params); !s)
            return s.error();
        if (const Status s = checkLabelRange(test, numClasses, sources.test, params); !s)
            return s.error();
    } else {
        numClasses = std::max(maxLabel(train.value()), maxLabel(test)) + 1;
    }

    dataset.shape.sampleShape = train.value().x.sampleShape;
    dataset.shape.classification = true;
    dataset.shape.numClasses = numClasses;
    if (const Status s = resolveKeptClasses(split, params, dataset.shape); !s)
        return s.error();
    Result<QString> hash = fingerprint.result();
    if (!hash)
        return params.withContext(hash.error(), sources.train.imagesField);
    dataset.fingerprint = hash.value();

    if (const Status s = splitTrainValidation(std::move(train).value(), split, params, sources.train.imagesField,
                                              dataset.train, dataset.val); !s)
        return s.error();
    applyTestSettings(test, split);
    dataset.test = std::move(test);
    return dataset;
}

// dataset.fashion_mnist: the four files in `dir`, each plain or gzipped.
Result<IdxSources> fashionSources(DatasetParams &params)
{
    const QString field = QStringLiteral("dir");
    const QString dir = params.path(field, QStringLiteral("/usr/share/datasets/fashion-mnist"));
    if (!params.ok())
        return params.firstError();
    if (dir.isEmpty())
        return params.error(field, QStringLiteral("no folder given for the Fashion-MNIST files"));
    if (!QFileInfo(dir).isDir())
        return params.error(field, QStringLiteral("folder not found"), dir);

    const char *names[4] = {"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                            "t10k-labels-idx1-ubyte"};
    QString found[4];
    for (int i = 0; i < 4; ++i) {
        const QString plain = QDir(dir).filePath(QString::fromLatin1(names[i]));
        const QString gz = plain + QStringLiteral(".gz");
        if (QFileInfo(plain).isFile())
            found[i] = plain;
        else if (QFileInfo(gz).isFile())
            found[i] = gz;
        else
            return params.error(field, QStringLiteral("Fashion-MNIST file not found (looked for %1 and %2)")
                                           .arg(plain, gz), plain);
    }
    IdxSources sources;
    sources.train = {found[0], found[1], field, field};
    sources.test = {found[2], found[3], field, field};
    return sources;
}

// dataset.idx: train_images and train_labels required; test_images and test_labels both or neither.
Result<IdxSources> idxSources(DatasetParams &params)
{
    IdxSources sources;
    sources.train = {params.path(QStringLiteral("train_images")), params.path(QStringLiteral("train_labels")),
                     QStringLiteral("train_images"), QStringLiteral("train_labels")};
    sources.test = {params.path(QStringLiteral("test_images")), params.path(QStringLiteral("test_labels")),
                    QStringLiteral("test_images"), QStringLiteral("test_labels")};
    if (!params.ok())
        return params.firstError();
    if (sources.train.images.isEmpty())
        return params.error(sources.train.imagesField, QStringLiteral("no training samples file given"));
    if (sources.train.labels.isEmpty())
        return params.error(sources.train.labelsField, QStringLiteral("no training labels file given"));
    if (sources.test.images.isEmpty() != sources.test.labels.isEmpty()) {
        const bool missingImages = sources.test.images.isEmpty();
        return params.error(missingImages ? sources.test.imagesField : sources.test.labelsField,
                            missingImages ? QStringLiteral("test_labels is set, so test_images is needed too")
                                          : QStringLiteral("test_images is set, so test_labels is needed too"));
    }
    return sources;
}

} // namespace

QStringList fashionMnistClassNames()
{
    return {QStringLiteral("T-shirt/top"), QStringLiteral("Trouser"), QStringLiteral("Pullover"),
            QStringLiteral("Dress"),       QStringLiteral("Coat"),    QStringLiteral("Sandal"),
            QStringLiteral("Shirt"),       QStringLiteral("Sneaker"), QStringLiteral("Bag"),
            QStringLiteral("Ankle boot")};
}

Result<DatasetShape> describeFashionMnist(const DatasetRequest &request)
{
    DatasetParams params(request);
    Result<IdxSources> sources = fashionSources(params);
    if (!sources)
        return sources.error();
    Result<IdxHeader> train = describePair(sources.value().train, params);
    if (!train)
        return train.error();
    Result<IdxHeader> test = describePair(sources.value().test, params);
    if (!test)
        return test.error();
    const SplitSettings split = readSplitSettings(params);
    if (!params.ok())
        return params.firstError();
    DatasetShape shape;
    shape.sampleShape = idxSampleShape(train.value().dims);
    shape.classification = true;
    shape.numClasses = kFashionClasses;
    shape.sampleValueBytes = train.value().type == IdxType::UByte ? 1 : 4;
    if (Status splitOk = checkTrainingSplit(train.value().count(), split, params); !splitOk)  // as the load will check
        return splitOk.error();
    shape.sampleCount = loadedSampleCount(train.value().count(), test.value().count(), split);
    return shape;
}

Result<LoadedDataset> loadFashionMnist(const DatasetRequest &request)
{
    DatasetParams params(request);
    Result<IdxSources> sources = fashionSources(params);
    if (!sources)
        return sources.error();
    Result<LoadedDataset> dataset = loadSources(sources.value(), true, kFashionClasses, params);
    if (dataset)
        dataset.value().classNames = fashionMnistClassNames();
    return dataset;
}

Result<DatasetShape> describeIdxDataset(const DatasetRequest &request)
{
    DatasetParams params(request);
    Result<IdxSources> sources = idxSources(params);
    if (!sources)
        return sources.error();
    Result<IdxHeader> train = describePair(sources.value().train, params);
    if (!train)
        return train.error();

    const SplitSettings split = readSplitSettings(params);
    if (!params.ok())
        return params.firstError();
    // The number of classes is the largest label plus one: the labels files are read (they are small).
    int64_t largest = -1, testCount = 0;
    for (const IdxPair *pair : {&sources.value().train, &sources.value().test}) {
        if (!pair->present())
            continue;
        if (pair == &sources.value().test) {
            Result<IdxHeader> test = describePair(*pair, params);
            if (!test)
                return test.error();
            if (idxSampleShape(test.value().dims) != idxSampleShape(train.value().dims))
                return params.error(pair->imagesField,
                                    QStringLiteral("the test samples differ in shape from the training samples in %1")
                                        .arg(sources.value().train.images), pair->images);
            testCount = test.value().count();
        }
        Result<IdxArray> labelFile = readIdxFile(pair->labels);
        if (!labelFile)
            return params.withContext(labelFile.error(), pair->labelsField);
        Result<std::vector<int64_t>> labels = idxToLabels(labelFile.value(), pair->labels);
        if (!labels)
            return params.withContext(labels.error(), pair->labelsField);
        for (const int64_t label : labels.value())
            largest = std::max(largest, label);
    }
    DatasetShape shape;
    shape.sampleShape = idxSampleShape(train.value().dims);
    shape.classification = true;
    shape.numClasses = largest + 1;
    shape.sampleValueBytes = train.value().type == IdxType::UByte ? 1 : 4;
    if (Status splitOk = checkTrainingSplit(train.value().count(), split, params); !splitOk)  // as the load will check
        return splitOk.error();
    shape.sampleCount = loadedSampleCount(train.value().count(), testCount, split);
    return shape;
}

Result<LoadedDataset> loadIdxDataset(const DatasetRequest &request)
{
    DatasetParams params(request);
    Result<IdxSources> sources = idxSources(params);
    if (!sources)
        return sources.error();
    const bool scale = params.boolean(QStringLiteral("scale"), true);
    if (!params.ok())
        return params.firstError();
    return loadSources(sources.value(), scale, 0, params);
}

} // namespace ty
