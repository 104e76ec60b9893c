#include "dataset_split.h"

#include "dataset_params.h"
#include "portable_random.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ty {

SplitSettings readSplitSettings(DatasetParams &params)
{
    SplitSettings s;
    s.valFraction = params.number(QStringLiteral("val_fraction"), 0.1, 0.0, 0.9);
    s.valCount = params.integer(QStringLiteral("val_count"), 0, 0, 1000000000);
    s.limit = params.integer(QStringLiteral("limit"), 0, 0, 1000000000);
    s.testLimit = params.integer(QStringLiteral("test_limit"), 0, 0, 1000000000);
    s.splitSeed = uint64_t(params.integer(QStringLiteral("split_seed"), 0, 0, 2147483647));
    return s;
}

DataSplit gatherSamples(const DataSplit &from, const std::vector<int64_t> &indices)
{
    DataSplit out;
    const int64_t n = int64_t(indices.size());
    const size_t sampleSize = size_t(from.x.sampleSize());

    out.x.sampleShape = from.x.sampleShape;
    out.x.isFloat = from.x.isFloat;
    out.x.scale = from.x.scale;
    out.x.count = n;
    if (from.x.isFloat) {
        out.x.floats.resize(size_t(n) * sampleSize);
        for (int64_t i = 0; i < n; ++i)
            std::memcpy(out.x.floats.data() + size_t(i) * sampleSize,
                        from.x.floats.data() + size_t(indices[size_t(i)]) * sampleSize, sampleSize * sizeof(float));
    } else {
        out.x.bytes.resize(size_t(n) * sampleSize);
        for (int64_t i = 0; i < n; ++i)
            std::memcpy(out.x.bytes.data() + size_t(i) * sampleSize,
                        from.x.bytes.data() + size_t(indices[size_t(i)]) * sampleSize, sampleSize);
    }

    out.y.classification = from.y.classification;
    out.y.width = from.y.width;
    out.y.count = n;
    if (from.y.classification) {
        out.y.classes.resize(size_t(n));
        for (int64_t i = 0; i < n; ++i)
            out.y.classes[size_t(i)] = from.y.classes[size_t(indices[size_t(i)])];
    } else {
        const size_t width = size_t(from.y.width);
        out.y.values.resize(size_t(n) * width);
        for (int64_t i = 0; i < n; ++i)
            std::memcpy(out.y.values.data() + size_t(i) * width,
                        from.y.values.data() + size_t(indices[size_t(i)]) * width, width * sizeof(float));
    }
    return out;
}

Status splitTrainValidation(DataSplit &&all, const SplitSettings &settings, const DatasetParams &params,
                            const QString &sourceField, DataSplit &train, DataSplit &validation)
{
    const int64_t available = all.size();
    if (available == 0)
        return params.error(sourceField, QStringLiteral("the dataset has no training examples"));

    const int64_t n = settings.limit > 0 ? std::min(settings.limit, available) : available;
    const int64_t valCount = settings.valCount > 0 ? settings.valCount
                                                   : int64_t(std::llround(settings.valFraction * double(n)));
    if (valCount >= n) {
        const QString field = settings.valCount > 0 ? QStringLiteral("val_count") : QStringLiteral("val_fraction");
        const QString what = settings.valCount > 0 ? QStringLiteral("val_count %1").arg(settings.valCount)
                                                   : QStringLiteral("val_fraction %1").arg(settings.valFraction);
        return params.error(field, QStringLiteral("%1 leaves no training examples: it holds out %2 of the %3 examples")
                                       .arg(what).arg(valCount).arg(n));
    }

    // Nothing to select: hand the data over without copying.
    if (n == available && valCount == 0) {
        train = std::move(all);
        validation = DataSplit();
        validation.x.sampleShape = train.x.sampleShape;
        validation.x.isFloat = train.x.isFloat;
        validation.x.scale = train.x.scale;
        validation.y.classification = train.y.classification;
        validation.y.width = train.y.width;
        return Status::success();
    }

    const std::vector<int64_t> order = shuffledIndices(available, settings.splitSeed);
    std::vector<int64_t> valIndices(order.begin(), order.begin() + valCount);
    std::vector<int64_t> trainIndices(order.begin() + valCount, order.begin() + n);
    std::sort(valIndices.begin(), valIndices.end());
    std::sort(trainIndices.begin(), trainIndices.end());
    validation = gatherSamples(all, valIndices);
    train = gatherSamples(all, trainIndices);
    all = DataSplit();
    return Status::success();
}

void applyTestLimit(DataSplit &test, int64_t limit)
{
    if (limit <= 0 || limit >= test.size())
        return;
    const size_t sampleSize = size_t(test.x.sampleSize());
    test.x.count = limit;
    if (test.x.isFloat) {
        test.x.floats.resize(size_t(limit) * sampleSize);
        test.x.floats.shrink_to_fit();
    } else {
        test.x.bytes.resize(size_t(limit) * sampleSize);
        test.x.bytes.shrink_to_fit();
    }
    test.y.count = limit;
    if (test.y.classification)
        test.y.classes.resize(size_t(limit));
    else
        test.y.values.resize(size_t(limit) * size_t(test.y.width));
}

int64_t loadedSampleCount(int64_t trainAvailable, int64_t testAvailable, const SplitSettings &settings)
{
    const int64_t train = settings.limit > 0 ? std::min(settings.limit, trainAvailable) : trainAvailable;
    const int64_t test = settings.testLimit > 0 ? std::min(settings.testLimit, testAvailable) : testAvailable;
    return train + test;
}

} // namespace ty
