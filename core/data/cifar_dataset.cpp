#include "cifar_dataset.h"

#include "dataset_params.h"
#include "dataset_split.h"
#include "file_fingerprint.h"
#include "regular_file.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace ty {

namespace {

const QString kDir = QStringLiteral("dir");
constexpr int64_t kPixels = 3 * 32 * 32;

struct CifarLayout {
    bool hundred = false;     // CIFAR-100
    bool coarse = false;      // CIFAR-100: the 20 super-classes
    QStringList trainFiles;
    QString testFile;         // empty: no test split
    QString namesFile;        // empty: classes named by number
    int64_t classes = 10;

    int64_t recordSize() const { return (hundred ? 2 : 1) + kPixels; }
};

Result<CifarLayout> findLayout(DatasetParams &params)
{
    const QString dir = params.path(kDir);
    const QString variant = params.choice(QStringLiteral("variant"), QStringLiteral("auto"),
                                          {QStringLiteral("auto"), QStringLiteral("cifar10"), QStringLiteral("cifar100")});
    const QString labels = params.choice(QStringLiteral("labels"), QStringLiteral("fine"), {QStringLiteral("fine"), QStringLiteral("coarse")});
    if (!params.ok())
        return params.firstError();
    if (dir.isEmpty())
        return params.error(kDir, QStringLiteral("no folder given for the CIFAR files"));
    if (!QFileInfo(dir).isDir())
        return params.error(kDir, QStringLiteral("folder not found"), dir);
    const QDir folder(dir);
    CifarLayout layout;
    layout.hundred = variant == QStringLiteral("cifar100")
                     || (variant == QStringLiteral("auto") && !folder.exists(QStringLiteral("data_batch_1.bin"))
                         && folder.exists(QStringLiteral("train.bin")));
    if (layout.hundred) {
        layout.coarse = labels == QStringLiteral("coarse");
        layout.classes = layout.coarse ? 20 : 100;
        layout.trainFiles << folder.filePath(QStringLiteral("train.bin"));
        layout.namesFile = folder.filePath(layout.coarse ? QStringLiteral("coarse_label_names.txt") : QStringLiteral("fine_label_names.txt"));
    } else {
        for (int i = 1; i <= 5; ++i)
            layout.trainFiles << folder.filePath(QStringLiteral("data_batch_%1.bin").arg(i));
        layout.namesFile = folder.filePath(QStringLiteral("batches.meta.txt"));
    }
    for (const QString &file : layout.trainFiles)
        if (Status regular = requireRegularFile(file); !regular)
            return params.error(kDir, QStringLiteral("%1 (a %2 folder holds %3)")
                                          .arg(regular.error().message, layout.hundred ? QStringLiteral("CIFAR-100") : QStringLiteral("CIFAR-10"),
                                               layout.hundred ? QStringLiteral("train.bin and test.bin")
                                                              : QStringLiteral("data_batch_1.bin to data_batch_5.bin and test_batch.bin")),
                                file);
    const QString test = folder.filePath(layout.hundred ? QStringLiteral("test.bin") : QStringLiteral("test_batch.bin"));
    if (QFileInfo::exists(test)) {
        if (Status regular = requireRegularFile(test); !regular)
            return params.error(kDir, regular.error().message, test);
        layout.testFile = test;
    }
    if (!QFileInfo(layout.namesFile).isFile())
        layout.namesFile.clear();
    return layout;
}

// Records in `file`: its size must be a whole number of them.
Result<int64_t> recordCount(const QString &file, const CifarLayout &layout, const DatasetParams &params)
{
    const qint64 size = QFileInfo(file).size();
    if (size == 0 || size % layout.recordSize() != 0)
        return params.error(kDir, QStringLiteral("is %1 bytes, not a whole number of %2-byte %3 records (a damaged or different file)")
                                      .arg(size).arg(layout.recordSize()).arg(layout.hundred ? QStringLiteral("CIFAR-100") : QStringLiteral("CIFAR-10")),
                            file);
    return int64_t(size / layout.recordSize());
}

Result<int64_t> totalRecords(const QStringList &files, const CifarLayout &layout, const DatasetParams &params)
{
    int64_t total = 0;
    for (const QString &file : files) {
        const Result<int64_t> n = recordCount(file, layout, params);
        if (!n)
            return n;
        total += n.value();
    }
    return total;
}

// The class names: one per non-empty line of the names file, or the class numbers.
Result<QStringList> classNames(const CifarLayout &layout, const DatasetParams &params)
{
    QStringList names;
    if (!layout.namesFile.isEmpty()) {
        QFile file(layout.namesFile);
        if (file.size() > (1 << 20) || !file.open(QIODevice::ReadOnly))
            return params.error(kDir, QStringLiteral("cannot read the class names"), layout.namesFile);
        for (const QByteArray &line : file.readAll().split('\n'))
            if (!line.trimmed().isEmpty())
                names << QString::fromUtf8(line.trimmed());
        if (names.size() != layout.classes)
            return params.error(kDir, QStringLiteral("names %1 classes; the data has %2").arg(names.size()).arg(layout.classes), layout.namesFile);
        return names;
    }
    for (int64_t c = 0; c < layout.classes; ++c)
        names << QString::number(c);
    return names;
}

// Every record of `files` into one split; labels checked against the class count.
Result<DataSplit> readRecords(const QStringList &files, const CifarLayout &layout, const DatasetParams &params)
{
    const Result<int64_t> total = totalRecords(files, layout, params);
    if (!total)
        return total.error();
    DataSplit split;
    split.x.sampleShape = {3, 32, 32};
    split.x.scale = 1.0f / 255.0f;
    split.x.count = total.value();
    split.x.bytes.resize(size_t(total.value() * kPixels));
    split.y.classification = true;
    split.y.count = total.value();
    split.y.classes.resize(size_t(total.value()));
    int64_t at = 0;
    const int64_t labelOffset = layout.hundred && !layout.coarse ? 1 : 0;
    for (const QString &path : files) {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return params.error(kDir, QStringLiteral("cannot open: %1").arg(file.errorString()), path);
        const QByteArray bytes = file.readAll();
        const int64_t records = int64_t(bytes.size()) / layout.recordSize();
        if (records * layout.recordSize() != bytes.size() || at + records > total.value())
            return params.error(kDir, QStringLiteral("changed while it was read"), path);
        for (int64_t r = 0; r < records; ++r, ++at) {
            const uchar *record = reinterpret_cast<const uchar *>(bytes.constData()) + r * layout.recordSize();
            const int64_t label = record[labelOffset];
            if (label >= layout.classes)
                return params.error(kDir, QStringLiteral("record %1 has label %2; %3 classes are 0 to %4")
                                              .arg(r).arg(label).arg(layout.classes).arg(layout.classes - 1), path);
            split.y.classes[size_t(at)] = label;
            std::copy(record + layout.recordSize() - kPixels, record + layout.recordSize(), split.x.bytes.begin() + at * kPixels);
        }
    }
    if (at != total.value())
        return params.error(kDir, QStringLiteral("changed while it was read"), files.value(0));
    return split;
}

} // namespace

Result<DatasetShape> describeCifarDataset(const DatasetRequest &request)
{
    DatasetParams params(request);
    const SplitSettings split = readSplitSettings(params);
    Result<CifarLayout> layout = findLayout(params);
    if (!layout)
        return layout.error();
    const Result<int64_t> train = totalRecords(layout.value().trainFiles, layout.value(), params);
    if (!train)
        return train.error();
    int64_t test = 0;
    if (!layout.value().testFile.isEmpty()) {
        const Result<int64_t> n = recordCount(layout.value().testFile, layout.value(), params);
        if (!n)
            return n.error();
        test = n.value();
    }
    const Result<QStringList> names = classNames(layout.value(), params);
    if (!names)
        return names.error();
    DatasetShape shape;
    shape.sampleShape = {3, 32, 32};
    shape.classification = true;
    shape.numClasses = layout.value().classes;
    shape.sampleValueBytes = 1;
    if (!layout.value().namesFile.isEmpty())
        shape.classLabels = names.value();
    if (Status splitOk = checkTrainingSplit(train.value(), split, params); !splitOk)  // as the load will check
        return splitOk.error();
    shape.sampleCount = loadedSampleCount(train.value(), test, split);
    return shape;
}

Result<LoadedDataset> loadCifarDataset(const DatasetRequest &request)
{
    DatasetParams params(request);
    SplitSettings split = readSplitSettings(params);
    Result<CifarLayout> found = findLayout(params);
    if (!found)
        return found.error();
    const CifarLayout &layout = found.value();
    QStringList sources = layout.trainFiles;
    if (!layout.testFile.isEmpty())
        sources << layout.testFile;
    BackgroundFingerprint fingerprint(sources);
    Result<DataSplit> train = readRecords(layout.trainFiles, layout, params);
    if (!train)
        return train.error();
    DataSplit test;
    if (!layout.testFile.isEmpty()) {
        Result<DataSplit> read = readRecords({layout.testFile}, layout, params);
        if (!read)
            return read.error();
        test = std::move(read).value();
    } else {
        test.x.sampleShape = {3, 32, 32};
        test.x.scale = 1.0f / 255.0f;
    }
    const Result<QStringList> names = classNames(layout, params);
    if (!names)
        return names.error();
    LoadedDataset dataset;
    dataset.sourceFiles = sources;
    dataset.classNames = names.value();
    dataset.shape.sampleShape = {3, 32, 32};
    dataset.shape.classification = true;
    dataset.shape.numClasses = layout.classes;
    if (!layout.namesFile.isEmpty())
        dataset.shape.classLabels = names.value();
    if (const Status kept = resolveKeptClasses(split, params, dataset.shape); !kept)
        return kept.error();
    Result<QString> hash = fingerprint.result();
    if (!hash)
        return params.withContext(hash.error(), kDir);
    dataset.fingerprint = hash.value();
    if (const Status done = splitTrainValidation(std::move(train).value(), split, params, kDir, dataset.train, dataset.val); !done)
        return done.error();
    applyTestSettings(test, split);
    dataset.test = std::move(test);
    return dataset;
}

} // namespace ty
