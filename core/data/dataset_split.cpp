#include "dataset_split.h"

#include "dataset_params.h"
#include "portable_random.h"
#include "printable_text.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ty {

namespace {

const QString kKeepClasses = QStringLiteral("keep_classes");

} // namespace

SplitSettings readSplitSettings(DatasetParams &params)
{
    SplitSettings s;
    s.valFraction = params.number(QStringLiteral("val_fraction"), 0.1, 0.0, 0.9);
    s.valCount = params.integer(QStringLiteral("val_count"), 0, 0, 1000000000);
    s.limit = params.integer(QStringLiteral("limit"), 0, 0, 1000000000);
    s.testLimit = params.integer(QStringLiteral("test_limit"), 0, 0, 1000000000);
    s.splitSeed = uint64_t(params.integer(QStringLiteral("split_seed"), 0, 0, 2147483647));
    const QString keep = params.string(kKeepClasses).trimmed();
    if (keep.isEmpty())
        return s;
    for (const QString &item : keep.split(QLatin1Char(','))) {
        if (item.trimmed().isEmpty()) {
            params.fail(kKeepClasses, QStringLiteral("an empty item in \"%1\": list the classes separated by commas, e.g. 5,6,7")
                                          .arg(printableExcerpt(keep, 60)));
            return s;
        }
        s.keepClassItems << item.trimmed();
    }
    return s;
}

Status resolveKeptClasses(SplitSettings &settings, const DatasetParams &params, const DatasetShape &shape)
{
    settings.keepClasses.clear();
    if (settings.keepClassItems.isEmpty())
        return Status::success();
    if (!shape.classification)
        return params.error(kKeepClasses, QStringLiteral("only a classification data set has classes to keep"));
    const bool byLabel = !shape.classLabels.isEmpty();
    for (const QString &item : settings.keepClassItems) {
        int64_t c = -1;
        if (byLabel) {
            c = shape.classLabels.indexOf(item);
            if (c < 0)
                return params.error(kKeepClasses, QStringLiteral("no class \"%1\" in this data set (its classes are: %2)")
                                                      .arg(printableExcerpt(item, 40), printableList(shape.classLabels, 12)));
        } else {
            bool ok = false;
            const qlonglong index = item.toLongLong(&ok);
            if (!ok || index < 0)
                return params.error(kKeepClasses, QStringLiteral("expected class indices separated by commas, e.g. 5,6,7; \"%1\" is not one")
                                                      .arg(printableExcerpt(item, 20)));
            if (index >= shape.numClasses)
                return params.error(kKeepClasses, QStringLiteral("class %1 is not a class of this data set (it has %2: 0 to %3)")
                                                      .arg(index).arg(shape.numClasses).arg(shape.numClasses - 1));
            c = index;
        }
        if (std::find(settings.keepClasses.begin(), settings.keepClasses.end(), c) != settings.keepClasses.end())
            return params.error(kKeepClasses, QStringLiteral("class %1 is listed twice")
                                                  .arg(byLabel ? QStringLiteral("\"%1\"").arg(printableExcerpt(item, 40)) : QString::number(c)));
        settings.keepClasses.push_back(c);
    }
    return Status::success();
}

namespace {

// The samples of the kept classes, in their order, relabelled by their place in the list.
void keepClasses(DataSplit &split, const std::vector<int64_t> &classes)
{
    if (classes.empty() || !split.y.classification)
        return;
    std::vector<int64_t> newLabel(size_t(*std::max_element(classes.begin(), classes.end())) + 1, -1);
    for (size_t i = 0; i < classes.size(); ++i)
        newLabel[size_t(classes[i])] = int64_t(i);
    std::vector<int64_t> kept;
    for (int64_t i = 0; i < split.size(); ++i) {
        const int64_t label = split.y.classes[size_t(i)];
        if (label >= 0 && label < int64_t(newLabel.size()) && newLabel[size_t(label)] >= 0)
            kept.push_back(i);
    }
    DataSplit out = gatherSamples(split, kept);
    for (int64_t &label : out.y.classes)
        label = newLabel[size_t(label)];
    split = std::move(out);
}

void applyTestLimit(DataSplit &test, int64_t limit);

} // namespace

QStringList keptClassNames(const SplitSettings &settings, const QStringList &classNames)
{
    if (settings.keepClasses.empty())
        return classNames;
    QStringList out;
    for (const int64_t c : settings.keepClasses)
        out << classNames.value(int(c), QString::number(c));
    return out;
}

DataSplit holdOutTest(DataSplit &all, int64_t testCount, uint64_t seed, bool keepDrawnOrder)
{
    const std::vector<int64_t> order = shuffledIndices(all.size(), seed, 1);
    std::vector<int64_t> testRows(order.begin(), order.begin() + testCount);
    std::vector<int64_t> trainRows(order.begin() + testCount, order.end());
    if (!keepDrawnOrder)
        std::sort(testRows.begin(), testRows.end());
    std::sort(trainRows.begin(), trainRows.end());
    DataSplit test = gatherSamples(all, testRows);
    keepRowsInPlace(all, trainRows);
    return test;
}

void keepRowsInPlace(DataSplit &split, const std::vector<int64_t> &rows)
{
    const size_t n = rows.size();
    // Row rows[i] >= i is read before anything is written over it: the rows before i are the only ones written.
    const auto keep = [&rows, n](auto &values, size_t width) {
        for (size_t i = 0; i < n; ++i)
            if (const size_t from = size_t(rows[i]); from != i)
                std::memmove(values.data() + i * width, values.data() + from * width, width * sizeof(values[0]));
        values.resize(n * width);
    };
    if (split.x.isFloat)
        keep(split.x.floats, size_t(split.x.sampleSize()));
    else
        keep(split.x.bytes, size_t(split.x.sampleSize()));
    if (split.y.classification)
        keep(split.y.classes, 1);
    else
        keep(split.y.values, size_t(split.y.width));
    split.x.count = int64_t(n);
    split.y.count = int64_t(n);
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
    keepClasses(all, settings.keepClasses);
    const int64_t available = all.size();
    if (available == 0)
        return params.error(settings.keepClasses.empty() ? sourceField : kKeepClasses,
                            QStringLiteral("the dataset has no training examples%1")
                                .arg(settings.keepClasses.empty() ? QString() : QStringLiteral(" of the kept classes")));

    if (Status split = checkTrainingSplit(available, settings, params); !split)
        return split;
    const int64_t n = settings.limit > 0 ? std::min(settings.limit, available) : available;
    const int64_t valCount = settings.valCount > 0 ? settings.valCount
                                                   : int64_t(std::llround(settings.valFraction * double(n)));

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
    keepRowsInPlace(all, trainIndices);
    train = std::move(all);
    all = DataSplit();
    return Status::success();
}

void applyTestSettings(DataSplit &test, const SplitSettings &settings)
{
    keepClasses(test, settings.keepClasses);
    applyTestLimit(test, settings.testLimit);
}

namespace {

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

} // namespace

Status checkTrainingSplit(int64_t trainAvailable, const SplitSettings &settings, const DatasetParams &params)
{
    const int64_t n = settings.limit > 0 ? std::min(settings.limit, trainAvailable) : trainAvailable;
    const int64_t valCount = settings.valCount > 0 ? settings.valCount
                                                   : int64_t(std::llround(settings.valFraction * double(n)));
    if (n <= 0 || valCount < n)
        return Status::success();
    const QString field = settings.valCount > 0 ? QStringLiteral("val_count") : QStringLiteral("val_fraction");
    const QString what = settings.valCount > 0 ? QStringLiteral("val_count %1").arg(settings.valCount)
                                               : QStringLiteral("val_fraction %1").arg(settings.valFraction);
    return params.error(field, QStringLiteral("%1 leaves no training examples: it holds out %2 of the %3 examples")
                                   .arg(what).arg(valCount).arg(n));
}

int64_t loadedSampleCount(int64_t trainAvailable, int64_t testAvailable, const SplitSettings &settings)
{
    const int64_t train = settings.limit > 0 ? std::min(settings.limit, trainAvailable) : trainAvailable;
    const int64_t test = settings.testLimit > 0 ? std::min(settings.testLimit, testAvailable) : testAvailable;
    return train + test;
}

} // namespace ty
