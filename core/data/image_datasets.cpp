#include "image_datasets.h"

#include "csv_reader.h"
#include "dataset_params.h"
#include "dataset_split.h"
#include "image_files.h"
#include "printable_text.h"
#include "regular_file.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace ty {

namespace {

const QString kDir = QStringLiteral("dir");
const QString kPath = QStringLiteral("path");
const QString kImageColumn = QStringLiteral("image_column");
const QString kLabelColumn = QStringLiteral("label_column");
const QString kSplitColumn = QStringLiteral("split_column");
constexpr qint64 kMaxListBytes = qint64(256) << 20;
constexpr qsizetype kMaxFiles = qsizetype(1) << 24;  // file indices travel through the splits as exact floats

struct ImageSettings {
    QString source;        // the folder or the CSV file
    QString sourceField;   // dir or path
    ImageFormat format;
    double testFraction = 0.2;
    int threads = 0;
    bool cache = true;
    SplitSettings split;
};

// The files of one split and their labels.
struct FilePart {
    QStringList files;
    std::vector<int64_t> labels;
    void add(const QString &file, int64_t label)
    {
        files << file;
        labels.push_back(label);
    }
};

struct ImageListing {
    QStringList classNames;
    FilePart pool, val, test;   // pool: the training samples (validation and test drawn from it where absent)
    // An empty val/ or test/ (or no rows marked so) is as good as none: the fractions draw those splits then.
    bool hasVal() const { return !val.files.isEmpty(); }
    bool hasTest() const { return !test.files.isEmpty(); }
};

using Lister = Result<ImageListing> (*)(const ImageSettings &, DatasetParams &);

Result<ImageSettings> readSettings(DatasetParams &params, const QString &sourceField)
{
    ImageSettings s;
    s.sourceField = sourceField;
    s.source = params.path(sourceField);
    s.format.channels = params.choice(QStringLiteral("channels"), QStringLiteral("rgb"), {QStringLiteral("gray"), QStringLiteral("rgb")})
                                == QStringLiteral("gray") ? 1 : 3;
    s.format.height = int(params.integer(QStringLiteral("height"), 32, 1, 4096));
    s.format.width = int(params.integer(QStringLiteral("width"), 32, 1, 4096));
    s.format.fit = params.choice(QStringLiteral("fit"), QStringLiteral("stretch"), {QStringLiteral("stretch"), QStringLiteral("crop")})
                           == QStringLiteral("crop") ? ImageFit::Crop : ImageFit::Stretch;
    s.testFraction = params.number(QStringLiteral("test_fraction"), 0.2, 0.0, 0.9);
    s.threads = int(params.integer(QStringLiteral("threads"), 0, 0, 256));
    s.cache = params.boolean(QStringLiteral("cache"), true);
    s.split = readSplitSettings(params);
    if (!params.ok())
        return params.firstError();
    if (s.source.isEmpty())
        return params.error(sourceField, sourceField == kDir ? QStringLiteral("no folder given") : QStringLiteral("no CSV file given"));
    return s;
}

QStringList sortedSubfolders(const QString &dir)
{
    QStringList names = QDir(dir).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    std::sort(names.begin(), names.end());
    return names;
}

// The image files under `dir` (at any depth), sorted by their path.
QStringList imagesUnder(const QString &dir)
{
    QStringList files;
    QDirIterator it(dir, QDir::Files, QDirIterator::Subdirectories | QDirIterator::FollowSymlinks);
    while (it.hasNext()) {
        const QString file = it.next();
        if (isImageSuffix(QFileInfo(file).suffix()))
            files << file;
    }
    std::sort(files.begin(), files.end());
    return files;
}

// The class folders of `dir` into `part`: with `classes` empty, `dir`'s own sub-folders become the classes (each
// must hold an image); otherwise each sub-folder must be one of them.
Status listClassFolders(const QString &dir, QStringList &classes, FilePart &part, const ImageSettings &s,
                        const DatasetParams &params)
{
    const bool defining = classes.isEmpty();
    const QStringList folders = sortedSubfolders(dir);
    if (defining && folders.size() < 2)
        return params.error(kDir, QStringLiteral("needs a sub-folder per class, at least two; it has %1%2")
                                      .arg(folders.size()).arg(folders.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(folders.first())), dir);
    for (const QString &folder : folders) {
        const QString path = dir + QLatin1Char('/') + folder;
        int64_t label = classes.indexOf(folder);
        if (defining) {
            label = classes.size();
            classes << folder;
        } else if (label < 0) {
            return params.error(kDir, QStringLiteral("the class folder '%1' is not among the training classes (%2)")
                                          .arg(folder, classes.join(QStringLiteral(", "))), path);
        }
        const QStringList files = imagesUnder(path);
        if (defining && files.isEmpty())
            return params.error(kDir, QStringLiteral("the class folder '%1' holds no images (PNG, JPEG or BMP)").arg(folder), path);
        for (const QString &file : files)
            part.add(file, label);
        if (part.files.size() > kMaxFiles)
            return params.error(kDir, QStringLiteral("holds more than %1 images").arg(kMaxFiles), dir);
    }
    return Status::success();
}

Result<ImageListing> listFolder(const ImageSettings &s, DatasetParams &params)
{
    const QFileInfo info(s.source);
    if (!info.exists())
        return params.error(kDir, QStringLiteral("no such folder"), s.source);
    if (!info.isDir())
        return params.error(kDir, QStringLiteral("is not a folder"), s.source);
    ImageListing listing;
    const QStringList top = sortedSubfolders(s.source);
    if (!top.contains(QStringLiteral("train"))) {
        if (Status listed = listClassFolders(s.source, listing.classNames, listing.pool, s, params); !listed)
            return listed.error();
        return listing;
    }
    for (const QString &folder : top)
        if (folder != QStringLiteral("train") && folder != QStringLiteral("val") && folder != QStringLiteral("test"))
            return params.error(kDir, QStringLiteral("has a train/ folder, so its sub-folders are train/, val/ and test/; '%1' is none of them").arg(folder),
                                s.source + QLatin1Char('/') + folder);
    const QString root = s.source + QLatin1Char('/');
    if (Status listed = listClassFolders(root + QStringLiteral("train"), listing.classNames, listing.pool, s, params); !listed)
        return listed.error();
    if (top.contains(QStringLiteral("val")))
        if (Status listed = listClassFolders(root + QStringLiteral("val"), listing.classNames, listing.val, s, params); !listed)
            return listed.error();
    if (top.contains(QStringLiteral("test")))
        if (Status listed = listClassFolders(root + QStringLiteral("test"), listing.classNames, listing.test, s, params); !listed)
            return listed.error();
    if (listing.pool.files.size() + listing.val.files.size() + listing.test.files.size() > kMaxFiles)
        return params.error(kDir, QStringLiteral("holds more than %1 images").arg(kMaxFiles), s.source);
    return listing;
}

Error rowError(const DatasetParams &params, const QString &field, const QString &file, int line, const QString &message)
{
    Error e = params.error(field, message, file);
    e.line = line;
    return e;
}

// A named column of the table, or `fallback` when the name is empty; -1 for none.
Result<int> columnOf(const CsvTable &table, const QString &field, const QString &name, int fallback, const ImageSettings &s,
                     const DatasetParams &params)
{
    if (name.isEmpty())
        return fallback;
    const int index = int(table.columns.indexOf(name));
    if (index < 0)
        return rowError(params, field, s.source, 1, QStringLiteral("no column '%1' (%2)")
                                                      .arg(printableExcerpt(name, 40), csvColumnsText(table.columns)));
    return index;
}

Result<ImageListing> listCsv(const ImageSettings &s, DatasetParams &params)
{
    if (Status regular = requireRegularFile(s.source); !regular)
        return params.error(kPath, regular.error().message, s.source);
    QFile file(s.source);
    if (file.size() > kMaxListBytes)
        return params.error(kPath, QStringLiteral("the file is %1 bytes, more than the %2 an image list may have").arg(file.size()).arg(kMaxListBytes), s.source);
    if (!file.open(QIODevice::ReadOnly))
        return params.error(kPath, QStringLiteral("cannot open: %1").arg(file.errorString()), s.source);
    Result<CsvTable> parsed = parseCsv(file.readAll(), s.source);
    if (!parsed)
        return params.withContext(parsed.error(), kPath);
    const CsvTable &table = parsed.value();
    const QString imageName = params.string(kImageColumn), labelName = params.string(kLabelColumn), splitName = params.string(kSplitColumn);
    if (!params.ok())
        return params.firstError();
    const Result<int> image = columnOf(table, kImageColumn, imageName, 0, s, params);
    const Result<int> label = columnOf(table, kLabelColumn, labelName, 1, s, params);
    const Result<int> split = columnOf(table, kSplitColumn, splitName, -1, s, params);
    for (const Result<int> *column : {&image, &label, &split})
        if (!*column)
            return column->error();
    if (table.columns.size() < 2)
        return rowError(params, kPath, s.source, 1, QStringLiteral("needs a column of image paths and one of labels; it has %1 column").arg(table.columns.size()));
    if (image.value() == label.value() || image.value() == split.value() || label.value() == split.value())
        return params.error(kLabelColumn, QStringLiteral("the image, label and split columns must differ"), s.source);
    if (table.rows.empty())
        return params.error(kPath, QStringLiteral("lists no images"), s.source);
    if (qsizetype(table.rows.size()) > kMaxFiles)
        return params.error(kPath, QStringLiteral("lists more than %1 images").arg(kMaxFiles), s.source);

    // The classes first (sorted), then every row.
    QStringList classes;
    QSet<QString> seen;
    for (const CsvRow &row : table.rows) {
        if (row.cells.size() != table.columns.size())
            return rowError(params, kPath, s.source, row.line, QStringLiteral("the row has %1 cells, the %2 has %3")
                                                                 .arg(row.cells.size()).arg(table.hasHeader ? QStringLiteral("header") : QStringLiteral("first row")).arg(table.columns.size()));
        const QString name = QString::fromUtf8(row.cells[label.value()]);
        if (name.isEmpty())
            return rowError(params, kLabelColumn, s.source, row.line, QStringLiteral("column '%1': empty label").arg(table.columns[label.value()]));
        if (!seen.contains(name)) {
            seen.insert(name);
            classes << name;
        }
    }
    sortClassLabels(classes);
    std::map<QString, int64_t> classIndex;
    for (int i = 0; i < classes.size(); ++i)
        classIndex.emplace(classes[i], i);

    ImageListing listing;
    listing.classNames = classes;
    const QDir base = QFileInfo(s.source).absoluteDir();
    for (const CsvRow &row : table.rows) {
        const QString cell = QString::fromUtf8(row.cells[image.value()]);
        if (cell.isEmpty())
            return rowError(params, kImageColumn, s.source, row.line, QStringLiteral("column '%1': empty path").arg(table.columns[image.value()]));
        const QString path = QDir::cleanPath(base.absoluteFilePath(cell));
        if (Status regular = requireRegularFile(path); !regular)
            return rowError(params, kImageColumn, s.source, row.line, QStringLiteral("column '%1': %2: %3").arg(table.columns[image.value()], cell, regular.error().message));
        const int64_t c = classIndex.at(QString::fromUtf8(row.cells[label.value()]));
        FilePart *part = &listing.pool;
        if (split.value() >= 0) {
            const QString where = QString::fromUtf8(row.cells[split.value()]).toLower();
            if (where == QStringLiteral("val") || where == QStringLiteral("validation"))
                part = &listing.val;
            else if (where == QStringLiteral("test"))
                part = &listing.test;
            else if (where != QStringLiteral("train"))
                return rowError(params, kSplitColumn, s.source, row.line,
                                QStringLiteral("column '%1': '%2' is not a split (train, val or test)").arg(table.columns[split.value()], where));
        }
        part->add(path, c);
    }
    if (listing.classNames.size() < 2)
        return params.error(kLabelColumn, QStringLiteral("needs at least two classes; every row is labelled '%1'").arg(classes.value(0)), s.source);
    return listing;
}

int64_t drawnTestCount(const ImageListing &listing, const ImageSettings &s)
{
    return listing.hasTest() ? 0 : int64_t(std::llround(s.testFraction * double(listing.pool.files.size())));
}

DatasetShape shapeOf(const ImageListing &listing, const ImageSettings &s)
{
    DatasetShape shape;
    shape.sampleShape = {s.format.channels, s.format.height, s.format.width};
    shape.classification = true;
    shape.classLabels = listing.classNames;
    shape.numClasses = listing.classNames.size();
    shape.sampleValueBytes = 1;
    return shape;
}

// The settings and the files, what describe and load both begin with.
Result<std::pair<ImageSettings, ImageListing>> settingsAndListing(DatasetParams &params, const QString &sourceField, Lister lister)
{
    Result<ImageSettings> settings = readSettings(params, sourceField);
    if (!settings)
        return settings.error();
    Result<ImageListing> listed = lister(settings.value(), params);
    if (!listed)
        return listed.error();
    return std::pair{std::move(settings).value(), std::move(listed).value()};
}

Result<DatasetShape> describe(const DatasetRequest &request, const QString &sourceField, Lister lister)
{
    DatasetParams params(request);
    const Result<std::pair<ImageSettings, ImageListing>> read = settingsAndListing(params, sourceField, lister);
    if (!read)
        return read.error();
    const auto &[s, listing] = read.value();
    DatasetShape shape = shapeOf(listing, s);
    const int64_t pool = listing.pool.files.size(), drawn = drawnTestCount(listing, s);
    shape.sampleCount = loadedSampleCount(pool - drawn, listing.hasTest() ? listing.test.files.size() : drawn, s.split)
                        + (listing.hasVal() ? listing.val.files.size() : 0);
    return shape;
}

// A split whose samples are file indices (one float each, exact below 2^24), so the common split machinery
// chooses the files before any is decoded.
DataSplit indexSplit(const FilePart &part, int64_t firstIndex)
{
    DataSplit split;
    split.x.sampleShape = {1};
    split.x.isFloat = true;
    split.x.count = part.files.size();
    split.y.classification = true;
    split.y.count = part.files.size();
    split.y.classes = part.labels;
    for (qsizetype i = 0; i < part.files.size(); ++i)
        split.x.floats.push_back(float(firstIndex + i));
    return split;
}

// Turns an index split into image samples: `bytes` holds its decoded images, in its order.
DataSplit imageSplit(const DataSplit &indices, std::vector<uint8_t> &&bytes, const ImageFormat &format)
{
    DataSplit out;
    out.x.sampleShape = {format.channels, format.height, format.width};
    out.x.scale = 1.0f / 255.0f;
    out.x.count = indices.size();
    out.x.bytes = std::move(bytes);
    out.y = indices.y;
    return out;
}

// The same for a streamed split: its images are rows first.. of the store.
DataSplit storedSplit(const DataSplit &indices, const std::shared_ptr<const SampleStore> &store, int64_t first, const ImageFormat &format)
{
    DataSplit out = imageSplit(indices, {}, format);
    out.x.store = store;
    out.x.storeFirst = first;
    return out;
}

Result<LoadedDataset> load(const DatasetRequest &request, const QString &sourceField, Lister lister)
{
    DatasetParams params(request);
    const Result<std::pair<ImageSettings, ImageListing>> read = settingsAndListing(params, sourceField, lister);
    if (!read)
        return read.error();
    const auto &[s, listing] = read.value();
    QStringList files = listing.pool.files + listing.val.files + listing.test.files;

    LoadedDataset dataset;
    dataset.shape = shapeOf(listing, s);
    dataset.classNames = listing.classNames;
    dataset.sourceFiles << s.source;
    dataset.imageFit = s.format.fit;
    SplitSettings split = s.split;
    if (const Status kept = resolveKeptClasses(split, params, dataset.shape); !kept)
        return kept.error();

    DataSplit pool = indexSplit(listing.pool, 0);
    DataSplit test = indexSplit(listing.test, listing.pool.files.size() + listing.val.files.size());
    if (!listing.hasTest()) {
        const int64_t count = drawnTestCount(listing, s);
        if (count >= pool.size())
            return params.error(QStringLiteral("test_fraction"), QStringLiteral("test_fraction %1 leaves no training images: it holds out %2 of the %3")
                                                                 .arg(s.testFraction).arg(count).arg(pool.size()), s.source);
        test = holdOutTest(pool, count, split.splitSeed);
    }
    DataSplit train, val;
    SplitSettings trainSplit = split;
    if (listing.hasVal())
        trainSplit.valFraction = 0, trainSplit.valCount = 0;
    if (const Status done = splitTrainValidation(std::move(pool), trainSplit, params, sourceField, train, val); !done)
        return done.error();
    if (listing.hasVal()) {
        val = indexSplit(listing.val, listing.pool.files.size());
        SplitSettings keepOnly = split;
        keepOnly.testLimit = 0;
        applyTestSettings(val, keepOnly);
        if (val.size() == 0)
            return params.error(QStringLiteral("keep_classes"), QStringLiteral("the validation images (val/ or the rows marked val) hold none of the kept classes"),
                                s.source);
    }
    applyTestSettings(test, split);

    // Decode what the splits hold, in split order.
    QStringList chosen;
    for (const DataSplit *part : {&train, &val, &test})
        for (const float index : part->x.floats)
            chosen << files[qsizetype(index)];
    files.clear();
    if (request.stream) {
        Result<StoredImages> stored = decodeImageFilesToStore(chosen, s.format, s.threads, s.cache);
        if (!stored)
            return params.withContext(stored.error(), sourceField);
        dataset.fingerprint = stored.value().fingerprint;
        const std::shared_ptr<const SampleStore> &store = stored.value().store;
        dataset.train = storedSplit(train, store, 0, s.format);
        dataset.val = storedSplit(val, store, train.size(), s.format);
        dataset.test = storedSplit(test, store, train.size() + val.size(), s.format);
        return dataset;
    }
    Result<DecodedImages> decoded = decodeImageFiles(chosen, s.format, s.threads, s.cache);
    if (!decoded)
        return params.withContext(decoded.error(), sourceField);
    dataset.fingerprint = decoded.value().fingerprint;
    // Validation and test are copied out of the decoded bytes; the training images, first, keep them: the peak is
    // the decoded images plus validation and test, not twice the decoded images.
    std::vector<uint8_t> &bytes = decoded.value().bytes;
    const int64_t size = s.format.sampleSize(), trainEnd = train.size() * size, valEnd = trainEnd + val.size() * size;
    dataset.val = imageSplit(val, std::vector<uint8_t>(bytes.begin() + trainEnd, bytes.begin() + valEnd), s.format);
    dataset.test = imageSplit(test, std::vector<uint8_t>(bytes.begin() + valEnd, bytes.end()), s.format);
    bytes.resize(size_t(trainEnd));  // keeps its capacity: shrinking would copy the training images
    dataset.train = imageSplit(train, std::move(bytes), s.format);
    return dataset;
}

} // namespace

Result<DatasetShape> describeImageFolder(const DatasetRequest &request) { return describe(request, kDir, listFolder); }
Result<LoadedDataset> loadImageFolder(const DatasetRequest &request) { return load(request, kDir, listFolder); }
Result<DatasetShape> describeImageList(const DatasetRequest &request) { return describe(request, kPath, listCsv); }
Result<LoadedDataset> loadImageList(const DatasetRequest &request) { return load(request, kPath, listCsv); }

} // namespace ty
