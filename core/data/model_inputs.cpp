#include "model_inputs.h"

#include "csv_reader.h"
#include "idx_reader.h"
#include "image_decoding.h"
#include "regular_file.h"

#include <QFile>
#include <QFileInfo>

namespace ty {

namespace {

QString shapeText(const std::vector<int64_t> &shape)
{
    QStringList parts;
    for (int64_t d : shape)
        parts << QString::number(d);
    return QStringLiteral("[%1]").arg(parts.join(QStringLiteral(", ")));
}

int64_t sampleSize(const std::vector<int64_t> &shape)
{
    int64_t n = 1;
    for (int64_t d : shape)
        n *= d;
    return n;
}

// One image, converted to the format's channels (gray or RGB) and size, as float samples in CHW order.
Status readImage(const QString &path, const SampleFormat &format, ModelInputs *out)
{
    const std::vector<int64_t> &shape = format.sampleShape;
    if (shape.size() != 3 || (shape[0] != 1 && shape[0] != 3))
        return Error::inFile(path, QStringLiteral("this model takes samples of shape %1, not images").arg(shapeText(shape)));
    ImageFormat image;
    image.channels = int(shape[0]);
    image.height = int(shape[1]);
    image.width = int(shape[2]);
    image.fit = format.imageFit;
    std::vector<uint8_t> pixels(size_t(image.sampleSize()));
    if (Status read = readImageFile(path, image, pixels.data()); !read)
        return read;
    std::vector<float> &floats = out->samples.floats;
    floats.reserve(floats.size() + pixels.size());
    for (const uint8_t value : pixels)
        floats.push_back(float(value) * format.scale);
    out->names << QFileInfo(path).fileName();
    out->samples.count += 1;
    return Status::success();
}

Status readIdx(const QString &path, const SampleFormat &format, ModelInputs *out)
{
    Result<IdxArray> read = readIdxFile(path);
    if (!read)
        return read.error();
    IdxArray &array = read.value();
    const std::vector<int64_t> shape = idxSampleShape(array.header.dims);
    if (sampleSize(shape) != sampleSize(format.sampleShape))
        return Error::inFile(path, QStringLiteral("holds samples of shape %1; this model takes %2")
                                       .arg(shapeText(shape), shapeText(format.sampleShape)));
    const bool bytes = array.header.type == IdxType::UByte;
    const size_t values = bytes ? array.bytes.size() : array.floats.size();
    std::vector<float> &floats = out->samples.floats;
    floats.reserve(floats.size() + values);
    for (size_t i = 0; i < values; ++i)
        floats.push_back(bytes ? float(array.bytes[i]) * format.scale : array.floats[i]);
    const QString name = QFileInfo(path).fileName();
    for (int64_t i = 0; i < array.header.count(); ++i)
        out->names << QStringLiteral("%1[%2]").arg(name).arg(i);
    out->samples.count += array.header.count();
    return Status::success();
}

Status readCsv(const QString &path, const SampleFormat &format, int64_t maxRows, ModelInputs *out)
{
    if (format.featureNames.isEmpty() || format.sampleShape.size() != 1)
        return Error::inFile(path, QStringLiteral("this model takes samples of shape %1, not table rows").arg(shapeText(format.sampleShape)));
    if (Status regular = requireRegularFile(path); !regular)
        return regular;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Error::inFile(path, QStringLiteral("cannot open: %1").arg(file.errorString()));
    Result<CsvTable> parsed = parseCsv(file.readAll(), path, maxRows);
    if (!parsed)
        return parsed.error();
    const CsvTable &table = parsed.value();
    // Each feature: a column of the file, and for a one-hot feature ("island=Biscoe") the index of the category
    // it stands for.
    struct FeatureSource {
        int column = -1;
        QString name;                      // the training column
        const QStringList *categories = nullptr;  // categorical: the column's categories
        int category = -1;                 // one-hot: the category this feature stands for
    };
    std::vector<FeatureSource> sources;
    for (const QString &name : format.featureNames) {
        FeatureSource source;
        source.name = name;
        for (auto it = format.featureCategories.constBegin(); it != format.featureCategories.constEnd(); ++it) {
            if (!format.categoriesOneHot && name == it.key()) {
                source.categories = &it.value();
                break;
            }
            if (format.categoriesOneHot && name.startsWith(it.key() + QLatin1Char('='))) {
                const int category = int(it.value().indexOf(name.mid(it.key().size() + 1)));
                if (category >= 0) {
                    source.name = it.key();
                    source.categories = &it.value();
                    source.category = category;
                    break;
                }
            }
        }
        source.column = int(table.columns.indexOf(source.name));
        if (source.column < 0)
            return Error::inFile(path, QStringLiteral("has no column \"%1\"; the model was trained on the columns %2")
                                           .arg(source.name, format.featureNames.join(QStringLiteral(", "))), source.name);
        sources.push_back(source);
    }
    const QString name = QFileInfo(path).fileName();
    std::vector<float> &floats = out->samples.floats;
    std::vector<int> rowCategory(size_t(table.columns.size()));  // per column, its cell's category in this row
    for (const CsvRow &row : table.rows) {
        std::fill(rowCategory.begin(), rowCategory.end(), -2);  // -2: not looked up yet
        for (size_t j = 0; j < sources.size(); ++j) {
            const FeatureSource &source = sources[j];
            const QByteArray cell = source.column < row.cells.size() ? row.cells[source.column] : QByteArray();
            if (source.categories) {
                int &category = rowCategory[size_t(source.column)];
                if (category == -2)
                    category = source.column < row.cells.size() ? int(source.categories->indexOf(QString::fromUtf8(cell))) : -1;
                if (category < 0)
                    return Error::inFile(path, QStringLiteral("line %1: column \"%2\": '%3' is not one of its categories (%4)")
                                                   .arg(row.line).arg(source.name, QString::fromUtf8(cell), source.categories->join(QStringLiteral(", "))),
                                         source.name);
                floats.push_back(source.category < 0 ? float(category) : category == source.category ? 1.0f : 0.0f);
                continue;
            }
            double value = 0;
            if (source.column >= row.cells.size() || !parseCsvNumber(cell, &value))
                return Error::inFile(path,
                                     QStringLiteral("line %1: column \"%2\" %3")
                                         .arg(row.line)
                                         .arg(source.name,
                                              source.column < row.cells.size() ? csvNumberProblem(cell) : QStringLiteral("is missing")),
                                     source.name);
            if (j < format.featureMean.size() && j < format.featureStd.size())
                value = (value - double(format.featureMean[j])) / double(format.featureStd[j]);
            floats.push_back(float(value));
        }
        out->names << QStringLiteral("%1 line %2").arg(name).arg(row.line);
        out->samples.count += 1;
    }
    return Status::success();
}

} // namespace

SampleFormat sampleFormatOf(const LoadedDataset &dataset)
{
    SampleFormat format;
    format.sampleShape = dataset.shape.sampleShape;
    format.scale = dataset.train.x.isFloat ? 1.0f : dataset.train.x.scale;
    format.featureNames = dataset.featureNames;
    format.targetName = dataset.targetName;
    format.featureMean = dataset.featureMean;
    format.featureStd = dataset.featureStd;
    format.imageFit = dataset.imageFit;
    format.featureCategories = dataset.featureCategories;
    format.categoriesOneHot = dataset.categoriesOneHot;
    return format;
}

Result<ModelInputs> readModelInputs(const QStringList &paths, const SampleFormat &format, int64_t maxSamples)
{
    ModelInputs out;
    out.samples.sampleShape = format.sampleShape;
    out.samples.isFloat = true;
    if (paths.isEmpty())
        return Error::inFile(QString(), QStringLiteral("no input files given"));
    for (const QString &path : paths) {
        if (!QFileInfo::exists(path))
            return Error::inFile(path, QStringLiteral("no such file"));
        const QString suffix = QFileInfo(path).suffix().toLower();
        Status read = Status::success();
        if (isImageSuffix(suffix))
            read = readImage(path, format, &out);
        else if (suffix == QStringLiteral("csv"))
            read = readCsv(path, format, maxSamples - out.samples.count, &out);
        else if (suffix == QStringLiteral("idx") || suffix == QStringLiteral("gz") || path.endsWith(QStringLiteral("-ubyte")))
            read = readIdx(path, format, &out);
        else
            read = Error::inFile(path, QStringLiteral("unknown kind of input: use PNG, JPEG or BMP images, IDX files or CSV files"));
        if (!read)
            return read.error();
        if (out.samples.count > maxSamples)
            return Error::inFile(path, QStringLiteral("more than %1 samples in all").arg(maxSamples));
    }
    return out;
}

} // namespace ty
