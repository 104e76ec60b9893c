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

// Each feature of a CSV sample: a column of the file, and for a one-hot feature ("island=Biscoe") the index of
// the category it stands for.
struct FeatureSource {
    int column = -1;
    QString name;                             // the training column
    const QStringList *categories = nullptr;  // categorical: the column's categories
    int category = -1;                        // one-hot: the category this feature stands for
};

Result<std::vector<FeatureSource>> featureSources(const CsvTable &table, const SampleFormat &format, const QString &path)
{
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
    return sources;
}

// Appends the samples of `table`'s rows (standardized, categories encoded) to `out`.
Status appendCsvRows(const CsvTable &table, const std::vector<FeatureSource> &sources, const SampleFormat &format,
                     const QString &path, ModelInputs *out)
{
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

// One input file being read: an image (one sample), an IDX file (read a few samples at a time) or a CSV file
// (its bytes held, its lines parsed a few at a time; a quoted cell never spans lines).
struct ModelInputStream::Source {
    QString path;
    enum class Kind { Image, Idx, Csv } kind = Kind::Image;
    bool imageDone = false;
    IdxSampleReader idx;
    QByteArray csvText;
    QByteArray csvFirstLine;  // prepended to every piece, so that each parses as the file does
    qsizetype csvAt = 0;      // where the next piece begins
    int csvLine = 0;          // the line of the file before csvAt
    bool csvHeader = true;
    std::vector<FeatureSource> csvSources;
};

ModelInputStream::ModelInputStream(QStringList paths, SampleFormat format) : m_paths(std::move(paths)), m_format(std::move(format)) {}
ModelInputStream::~ModelInputStream() = default;

Status ModelInputStream::openSource(const QString &path, bool headerOnly)
{
    m_source = std::make_unique<Source>();
    Source &source = *m_source;
    source.path = path;
    if (!QFileInfo::exists(path))
        return Error::inFile(path, QStringLiteral("no such file"));
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (isImageSuffix(suffix)) {
        source.kind = Source::Kind::Image;
        return Status::success();
    }
    if (suffix == QStringLiteral("idx") || suffix == QStringLiteral("gz") || path.endsWith(QStringLiteral("-ubyte"))) {
        source.kind = Source::Kind::Idx;
        if (Status opened = source.idx.open(path); !opened)
            return opened;
        const std::vector<int64_t> shape = idxSampleShape(source.idx.header().dims);
        if (sampleSize(shape) != sampleSize(m_format.sampleShape))
            return Error::inFile(path, QStringLiteral("holds samples of shape %1; this model takes %2")
                                           .arg(shapeText(shape), shapeText(m_format.sampleShape)));
        return Status::success();
    }
    if (suffix != QStringLiteral("csv"))
        return Error::inFile(path, QStringLiteral("unknown kind of input: use PNG, JPEG or BMP images, IDX files or CSV files"));
    source.kind = Source::Kind::Csv;
    if (m_format.featureNames.isEmpty() || m_format.sampleShape.size() != 1)
        return Error::inFile(path, QStringLiteral("this model takes samples of shape %1, not table rows").arg(shapeText(m_format.sampleShape)));
    if (Status regular = requireRegularFile(path); !regular)
        return regular;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Error::inFile(path, QStringLiteral("cannot open: %1").arg(file.errorString()));
    // The header (or, in a file without one, the first row) is the first line that is not blank.
    qsizetype at = 0;  // where the line after it begins
    while (!file.atEnd()) {
        QByteArray line = file.readLine();
        at += line.size();
        if (source.csvLine++ == 0 && line.startsWith("\xEF\xBB\xBF"))
            line.remove(0, 3);
        if (line.endsWith('\n'))
            line.chop(1);
        if (!line.trimmed().isEmpty()) {
            source.csvFirstLine = line;
            break;
        }
    }
    if (!headerOnly) {  // check() reads no further than the header
        file.seek(0);
        source.csvText = file.readAll();
    }
    Result<CsvTable> first = parseCsv(source.csvFirstLine + '\n', path);
    if (!first) {
        Error e = first.error();
        e.line = source.csvLine;
        return e;
    }
    if (first.value().columns.isEmpty() && first.value().rows.empty())
        return Error::inFile(path, QStringLiteral("the file is empty"));
    source.csvHeader = first.value().hasHeader;
    Result<std::vector<FeatureSource>> sources = featureSources(first.value(), m_format, path);
    if (!sources)
        return sources.error();
    source.csvSources = std::move(sources).value();
    if (!source.csvHeader) {  // the first line is data: parsed again with the rest
        at -= source.csvFirstLine.size() + 1;
        --source.csvLine;
    }
    source.csvAt = std::max<qsizetype>(at, 0);
    return Status::success();
}

Result<int64_t> ModelInputStream::readFromSource(int64_t count, ModelInputs *out)
{
    Source &source = *m_source;
    switch (source.kind) {
    case Source::Kind::Image: {
        if (source.imageDone)
            return int64_t(0);
        source.imageDone = true;
        if (Status read = readImage(source.path, m_format, out); !read)
            return read.error();
        return int64_t(1);
    }
    case Source::Kind::Idx: {
        const size_t before = out->samples.floats.size();
        const Result<int64_t> read = source.idx.read(count, out->samples.floats);
        if (!read)
            return read.error();
        if (source.idx.header().type == IdxType::UByte)
            for (size_t i = before; i < out->samples.floats.size(); ++i)
                out->samples.floats[i] *= m_format.scale;
        const QString name = QFileInfo(source.path).fileName();
        const int64_t first = m_sampleInFile;
        for (int64_t i = 0; i < read.value(); ++i)
            out->names << QStringLiteral("%1[%2]").arg(name).arg(first + i);
        out->samples.count += read.value();
        return read.value();
    }
    case Source::Kind::Csv: {
        // The next `count` lines that are not blank, parsed after the first line so that they parse as in the file.
        const qsizetype begin = source.csvAt;
        const int firstLine = source.csvLine + 1;
        int64_t rows = 0;
        qsizetype at = begin;
        while (at < source.csvText.size() && rows < count) {
            qsizetype end = source.csvText.indexOf('\n', at);
            if (end < 0)
                end = source.csvText.size();
            if (!QByteArray::fromRawData(source.csvText.constData() + at, end - at).trimmed().isEmpty())
                ++rows;
            ++source.csvLine;
            at = end + 1;
        }
        source.csvAt = at;
        if (rows == 0)
            return int64_t(0);
        const QByteArray piece = source.csvFirstLine + '\n' + source.csvText.mid(begin, std::min(at, source.csvText.size()) - begin);
        Result<CsvTable> parsed = parseCsv(piece, source.path);
        const auto fileLine = [&](int pieceLine) { return pieceLine <= 1 ? pieceLine : firstLine + pieceLine - 2; };
        if (!parsed) {
            Error e = parsed.error();
            e.line = fileLine(e.line);
            return e;
        }
        CsvTable &table = parsed.value();
        if (!source.csvHeader && !table.rows.empty())
            table.rows.erase(table.rows.begin());  // the first line, prepended again
        for (CsvRow &row : table.rows)
            row.line = fileLine(row.line);
        const int64_t before = out->samples.count;
        if (Status appended = appendCsvRows(table, source.csvSources, m_format, source.path, out); !appended)
            return appended.error();
        return out->samples.count - before;
    }
    }
    return int64_t(0);
}

Status ModelInputStream::check()
{
    if (m_paths.isEmpty())
        return Error::inFile(QString(), QStringLiteral("no input files given"));
    for (const QString &path : m_paths) {
        if (Status opened = openSource(path, true); !opened)
            return opened;
        if (m_source->kind == Source::Kind::Image) {
            ModelInputs scratch;
            if (Status read = readImage(path, m_format, &scratch); !read)
                return read;
        }
    }
    m_source.reset();
    return Status::success();
}

Result<ModelInputs> ModelInputStream::next(int64_t count)
{
    ModelInputs out;
    out.samples.sampleShape = m_format.sampleShape;
    out.samples.isFloat = true;
    if (m_paths.isEmpty())
        return Error::inFile(QString(), QStringLiteral("no input files given"));
    while (out.samples.count < count && m_next <= m_paths.size()) {
        if (!m_source) {
            if (m_next == m_paths.size())
                break;
            if (Status opened = openSource(m_paths.at(m_next++), false); !opened) {
                m_next = int(m_paths.size()) + 1;  // nothing more after an error
                return opened.error();
            }
            m_sampleInFile = 0;
        }
        const Result<int64_t> read = readFromSource(count - out.samples.count, &out);
        if (!read) {
            m_next = int(m_paths.size()) + 1;
            return read.error();
        }
        m_sampleInFile += read.value();
        if (read.value() == 0)
            m_source.reset();
    }
    return out;
}

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
    ModelInputStream stream(paths, format);
    Result<ModelInputs> all = stream.next(maxSamples);
    if (!all)
        return all;
    const Result<ModelInputs> more = stream.next(1);
    if (!more)
        return more.error();
    if (more.value().samples.count > 0)
        return Error::inFile(more.value().names.isEmpty() ? QString() : paths.value(std::min<qsizetype>(stream.fileIndex(), paths.size() - 1)),
                             QStringLiteral("more than %1 samples in all").arg(maxSamples));
    return all;
}

} // namespace ty
