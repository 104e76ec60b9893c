#include "csv_dataset.h"

#include "csv_reader.h"
#include "dataset_params.h"
#include "dataset_split.h"
#include "printable_text.h"
#include "regular_file.h"
#include "sha256.h"

#include <QFile>
#include <QFileInfo>
#include <QMap>

#include <algorithm>
#include <cmath>

namespace ty {

namespace {

constexpr qint64 kMaxCsvBytes = qint64(1) << 30;  // tables are read whole into memory
const QString kPath = QStringLiteral("path");
const QString kTarget = QStringLiteral("target");
const QString kFeatures = QStringLiteral("features");

struct CsvSettings {
    QString path;
    QString target;
    QStringList features;
    QStringList categorical;     // columns read as categories; "auto": every feature column with a text cell
    bool oneHot = true;          // categories as one-hot features, or as one integer id
    bool dropMissing = false;
    bool classification = true;
    bool standardize = true;
    double testFraction = 0.2;
    SplitSettings split;
};

struct CsvColumns {
    int target = -1;
    std::vector<int> features;
    std::vector<QStringList> categories;  // per feature: its categories (sorted) when categorical, else empty
    bool oneHot = true;

    // Values per sample: a one-hot column takes one per category.
    int64_t width() const
    {
        int64_t w = 0;
        for (const QStringList &c : categories)
            w += c.isEmpty() || !oneHot ? 1 : c.size();
        return w;
    }
};

const QString kCategorical = QStringLiteral("categorical");

// What a missing value looks like in a CSV file.
bool isMissing(const QByteArray &cell)
{
    const QByteArray c = cell.trimmed().toLower();
    return c.isEmpty() || c == "na" || c == "n/a" || c == "nan" || c == "null" || c == "?";
}

Result<CsvSettings> readSettings(DatasetParams &params)
{
    CsvSettings s;
    s.path = params.path(kPath);
    s.target = params.string(kTarget).trimmed();
    for (const QString &name : params.string(kFeatures).split(QLatin1Char(','))) {
        if (!name.trimmed().isEmpty())
            s.features << name.trimmed();
    }
    s.classification = params.choice(QStringLiteral("task"), QStringLiteral("classification"),
                                     {QStringLiteral("classification"), QStringLiteral("regression")})
                       == QStringLiteral("classification");
    s.standardize = params.boolean(QStringLiteral("standardize"), true);
    for (const QString &name : params.string(kCategorical).split(QLatin1Char(',')))
        if (!name.trimmed().isEmpty())
            s.categorical << name.trimmed();
    s.oneHot = params.choice(QStringLiteral("encoding"), QStringLiteral("one_hot"), {QStringLiteral("one_hot"), QStringLiteral("ids")})
               == QStringLiteral("one_hot");
    s.dropMissing = params.boolean(QStringLiteral("drop_missing"), false);
    s.testFraction = params.number(QStringLiteral("test_fraction"), 0.2, 0.0, 0.9);
    s.split = readSplitSettings(params);
    if (!params.ok())
        return params.firstError();
    if (s.path.isEmpty())
        return params.error(kPath, QStringLiteral("no CSV file given"));
    return s;
}

Result<QByteArray> readFile(const QString &path, const DatasetParams &params, Sha256 *hash)
{
    QFile file(path);
    if (Status regular = requireRegularFile(path); !regular)
        return params.error(kPath, regular.error().message, path);
    if (file.size() > kMaxCsvBytes)
        return params.error(kPath, QStringLiteral("the file is %1 bytes, more than the %2 a CSV table may have")
                                       .arg(file.size()).arg(kMaxCsvBytes), path);
    if (!file.open(QIODevice::ReadOnly))
        return params.error(kPath, QStringLiteral("cannot open file: %1").arg(file.errorString()), path);
    QByteArray bytes = file.readAll();
    if (hash)
        hash->addData(bytes);
    if (bytes.trimmed().isEmpty())
        return params.error(kPath, QStringLiteral("the file is empty"), path);
    return bytes;
}

Error lineError(const DatasetParams &params, const QString &field, const QString &file, int line, const QString &message)
{
    Error e = params.error(field, message, file);
    e.line = line;
    return e;
}

Result<CsvColumns> resolveColumns(const CsvTable &table, const CsvSettings &s, const DatasetParams &params)
{
    const auto unknown = [&](const QString &field, const QString &name) {
        return lineError(params, field, s.path, 1, QStringLiteral("no column '%1' (%2)")
                                                       .arg(printableExcerpt(name, 40), csvColumnsText(table.columns)));
    };
    CsvColumns columns;
    columns.target = s.target.isEmpty() ? int(table.columns.size()) - 1 : int(table.columns.indexOf(s.target));
    if (columns.target < 0)
        return unknown(kTarget, s.target);
    if (s.features.isEmpty()) {
        for (int i = 0; i < table.columns.size(); ++i) {
            if (i != columns.target)
                columns.features.push_back(i);
        }
    } else {
        for (const QString &name : s.features) {
            const int index = int(table.columns.indexOf(name));
            if (index < 0)
                return unknown(kFeatures, name);
            if (index == columns.target)
                return params.error(kFeatures, QStringLiteral("the target column '%1' is also listed as a feature").arg(name),
                                    s.path);
            columns.features.push_back(index);
        }
    }
    if (columns.features.empty())
        return params.error(kFeatures, QStringLiteral("no feature columns: the table has only the target column '%1'")
                                           .arg(table.columns.value(columns.target)), s.path);
    return columns;
}

// Drops the rows with a missing value in a column used (drop_missing), before anything else reads them.
void dropMissingRows(CsvTable &table, const CsvColumns &columns)
{
    std::vector<int> used = columns.features;
    used.push_back(columns.target);
    table.rows.erase(std::remove_if(table.rows.begin(), table.rows.end(),
                                    [&](const CsvRow &row) {
                                        return std::any_of(used.begin(), used.end(), [&](int c) {
                                            return c < row.cells.size() && isMissing(row.cells[c]);
                                        });
                                    }),
                     table.rows.end());
    table.dataRows = int64_t(table.rows.size());
}

// The categories of the categorical feature columns: their distinct values, sorted as labels are.
Status resolveCategories(const CsvTable &table, CsvColumns &columns, const CsvSettings &s, const DatasetParams &params)
{
    columns.oneHot = s.oneHot;
    columns.categories.assign(columns.features.size(), QStringList());
    const bool automatic = s.categorical == QStringList{QStringLiteral("auto")};
    if (!automatic)
        for (const QString &name : s.categorical) {
            const int index = int(table.columns.indexOf(name));
            if (index < 0)
                return lineError(params, kCategorical, s.path, 1, QStringLiteral("no column '%1' (%2)")
                                                                     .arg(printableExcerpt(name, 40), csvColumnsText(table.columns)));
            if (std::find(columns.features.begin(), columns.features.end(), index) == columns.features.end())
                return params.error(kCategorical, QStringLiteral("'%1' is not a feature column").arg(name), s.path);
        }
    for (size_t j = 0; j < columns.features.size(); ++j) {
        const int column = columns.features[j];
        bool categorical = !automatic && s.categorical.contains(table.columns[column]);
        if (automatic)
            for (const CsvRow &row : table.rows) {
                double ignored = 0;
                if (column < row.cells.size() && !isMissing(row.cells[column]) && !parseCsvNumber(row.cells[column], &ignored)) {
                    categorical = true;
                    break;
                }
            }
        if (!categorical)
            continue;
        QSet<QString> seen;
        QStringList values;
        for (const CsvRow &row : table.rows) {
            if (column >= row.cells.size())
                continue;  // readRow names the short row
            if (isMissing(row.cells[column]))  // only without drop_missing
                return lineError(params, kCategorical, s.path, row.line,
                                 QStringLiteral("column '%1': '%2' is a missing value (drop_missing drops such rows)")
                                     .arg(table.columns[column], QString::fromUtf8(row.cells[column])));
            const QString value = QString::fromUtf8(row.cells[column]);
            if (!seen.contains(value)) {
                seen.insert(value);
                values << value;
            }
        }
        sortClassLabels(values);
        if (values.size() > 10000)
            return params.error(kCategorical, QStringLiteral("column '%1' has %2 distinct values, more than the 10000 a categorical column may have")
                                                 .arg(table.columns[column]).arg(values.size()), s.path);
        columns.categories[j] = values;
    }
    return Status::success();
}

// The feature names in sample order: a one-hot column gives "column=category" for each of its categories.
QStringList featureNames(const CsvTable &table, const CsvColumns &columns)
{
    QStringList names;
    for (size_t j = 0; j < columns.features.size(); ++j) {
        const QString column = table.columns.value(columns.features[j]);
        if (columns.categories[j].isEmpty() || !columns.oneHot)
            names << column;
        else
            for (const QString &category : columns.categories[j])
                names << column + QLatin1Char('=') + category;
    }
    return names;
}

// The distinct labels of the target column, sorted: numerically when every label is a number.
Result<QStringList> classLabels(const CsvTable &table, int target, const CsvSettings &s, const DatasetParams &params)
{
    QStringList labels;
    QSet<QString> seen;
    for (const CsvRow &row : table.rows) {
        if (target >= row.cells.size())
            return lineError(params, kPath, s.path, row.line, QStringLiteral("the row has %1 cells, the header has %2")
                                                                  .arg(row.cells.size()).arg(table.columns.size()));
        const QByteArray &cell = row.cells[target];
        if (cell.isEmpty())
            return lineError(params, kTarget, s.path, row.line,
                             QStringLiteral("column '%1': empty label (drop_missing drops such rows)").arg(table.columns[target]));
        if (isMissing(cell))
            return lineError(params, kTarget, s.path, row.line,
                             QStringLiteral("column '%1': '%2' is a missing label (drop_missing drops such rows)")
                                 .arg(table.columns[target], QString::fromUtf8(cell)));
        const QString label = QString::fromUtf8(cell);
        if (!seen.contains(label)) {
            seen.insert(label);
            labels << label;
        }
    }
    sortClassLabels(labels);
    return labels;
}

// Checks one row as training reads it: as many cells as the header, every feature a number (and the target, for
// regression). Writes the features to `features` and the regression target to `target` when given.
Status readRow(const CsvTable &table, const CsvRow &row, const CsvColumns &columns, const CsvSettings &s,
               const DatasetParams &params, float *features, float *target)
{
    if (row.cells.size() != table.columns.size())
        return lineError(params, kPath, s.path, row.line,
                         QStringLiteral("the row has %1 cells, the %2 has %3")
                             .arg(row.cells.size())
                             .arg(table.hasHeader ? QStringLiteral("header") : QStringLiteral("first row"))
                             .arg(table.columns.size()));
    int64_t at = 0;
    for (size_t j = 0; j < columns.features.size(); ++j) {
        const int column = columns.features[j];
        const QStringList &categories = columns.categories[j];
        if (!categories.isEmpty()) {
            const int64_t id = categories.indexOf(QString::fromUtf8(row.cells[column]));
            if (columns.oneHot) {
                for (int64_t k = 0; k < categories.size(); ++k)
                    features[at + k] = k == id ? 1.0f : 0.0f;
                at += categories.size();
            } else {
                features[at++] = float(id);
            }
            continue;
        }
        double value = 0;
        if (!parseCsvNumber(row.cells[column], &value))
            return lineError(params, kFeatures, s.path, row.line,
                             QStringLiteral("column '%1': '%2' %3%4")
                                 .arg(table.columns[column], printableExcerpt(QString::fromUtf8(row.cells[column]), 40),
                                      csvNumberProblem(row.cells[column]),
                                      isMissing(row.cells[column]) ? QStringLiteral(" (a missing value: drop_missing drops such rows)")
                                                                   : QStringLiteral(" (categorical lists the columns read as categories)")));
        features[at++] = float(value);
    }
    if (!s.classification) {
        const QByteArray &cell = row.cells[columns.target];
        double value = 0;
        if (!parseCsvNumber(cell, &value))
            return lineError(params, kTarget, s.path, row.line,
                             QStringLiteral("column '%1': '%2' %3 (task is regression%4)")
                                 .arg(table.columns[columns.target], printableExcerpt(QString::fromUtf8(cell), 40),
                                      csvNumberProblem(cell),
                                      isMissing(cell) ? QStringLiteral("; drop_missing drops rows with missing values") : QString()));
        if (target)
            *target = float(value);
    }
    return Status::success();
}

Result<CsvTable> readTable(const CsvSettings &s, const DatasetParams &params, Sha256 *hash, int64_t maxRows)
{
    Result<QByteArray> bytes = readFile(s.path, params, hash);
    if (!bytes)
        return bytes.error();
    Result<CsvTable> table = parseCsv(bytes.value(), s.path, maxRows);
    if (!table)
        return params.withContext(table.error(), kPath);
    if (table.value().rows.empty() && maxRows != 0)
        return params.error(kPath, QStringLiteral("the file has a header but no data rows"), s.path);
    return table;
}

// Standardizes every split's features with the training split's statistics, kept in the dataset.
void standardize(LoadedDataset &dataset, const std::vector<bool> &numeric)
{
    const int64_t width = dataset.train.x.sampleSize();
    std::vector<double> mean(size_t(width), 0.0), var(size_t(width), 0.0);
    const std::vector<float> &train = dataset.train.x.floats;
    const int64_t n = dataset.train.size();
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < width; ++j)
            mean[size_t(j)] += train[size_t(i * width + j)];
    for (double &m : mean)
        m /= double(n);
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < width; ++j) {
            const double d = train[size_t(i * width + j)] - mean[size_t(j)];
            var[size_t(j)] += d * d;
        }
    dataset.featureMean.resize(size_t(width));
    dataset.featureStd.resize(size_t(width));
    for (int64_t j = 0; j < width; ++j) {
        const double sd = std::sqrt(var[size_t(j)] / double(n));
        dataset.featureMean[size_t(j)] = numeric[size_t(j)] ? float(mean[size_t(j)]) : 0.0f;
        dataset.featureStd[size_t(j)] = numeric[size_t(j)] && sd > 1e-12 ? float(sd) : 1.0f;  // a constant feature is only centred
        mean[size_t(j)] = dataset.featureMean[size_t(j)];
    }
    for (DataSplit *split : {&dataset.train, &dataset.val, &dataset.test}) {
        std::vector<float> &values = split->x.floats;
        for (int64_t i = 0; i < split->size(); ++i)
            for (int64_t j = 0; j < width; ++j) {
                float &v = values[size_t(i * width + j)];
                v = float((double(v) - mean[size_t(j)]) / double(dataset.featureStd[size_t(j)]));
            }
    }
}

} // namespace

Result<DatasetShape> describeCsvDataset(const DatasetRequest &request)
{
    DatasetParams params(request);
    Result<CsvSettings> settings = readSettings(params);
    if (!settings)
        return settings.error();
    const CsvSettings &s = settings.value();
    // Every row is read and checked as training will read it, so that a cell that is not a number fails here,
    // naming its line and column, and not only when the run loads the data.
    Result<CsvTable> table = readTable(s, params, nullptr, -1);
    if (!table)
        return table.error();
    Result<CsvColumns> columns = resolveColumns(table.value(), s, params);
    if (!columns)
        return columns.error();
    if (s.dropMissing)
        dropMissingRows(table.value(), columns.value());
    if (table.value().rows.empty())
        return params.error(kPath, QStringLiteral("no rows left: every row has a missing value"), s.path);
    if (const Status categories = resolveCategories(table.value(), columns.value(), s, params); !categories)
        return categories.error();
    std::vector<float> scratch(size_t(columns.value().width()));
    for (const CsvRow &row : table.value().rows)
        if (const Status read = readRow(table.value(), row, columns.value(), s, params, scratch.data(), nullptr); !read)
            return read.error();
    DatasetShape shape;
    shape.sampleShape = {columns.value().width()};
    shape.classification = s.classification;
    if (s.classification) {
        Result<QStringList> labels = classLabels(table.value(), columns.value().target, s, params);
        if (!labels)
            return labels.error();
        shape.numClasses = labels.value().size();
        shape.classLabels = labels.value();
    }
    shape.targetWidth = 1;
    const int64_t rows = table.value().dataRows;
    const int64_t testRows = int64_t(std::llround(s.testFraction * double(rows)));
    if (Status splitOk = checkTrainingSplit(rows - testRows, s.split, params); !splitOk)  // as the load will check
        return splitOk.error();
    shape.sampleCount = loadedSampleCount(rows - testRows, testRows, s.split);
    return shape;
}

Result<LoadedDataset> loadCsvDataset(const DatasetRequest &request)
{
    DatasetParams params(request);
    Result<CsvSettings> settings = readSettings(params);
    if (!settings)
        return settings.error();
    const CsvSettings &s = settings.value();
    Sha256 hash;
    Result<CsvTable> parsed = readTable(s, params, &hash, -1);
    if (!parsed)
        return parsed.error();
    CsvTable &table = parsed.value();
    Result<CsvColumns> resolved = resolveColumns(table, s, params);
    if (!resolved)
        return resolved.error();
    CsvColumns &columns = resolved.value();
    if (s.dropMissing)
        dropMissingRows(table, columns);
    if (table.rows.empty())
        return params.error(kPath, QStringLiteral("no rows left: every row has a missing value"), s.path);
    if (const Status categories = resolveCategories(table, columns, s, params); !categories)
        return categories.error();

    LoadedDataset dataset;
    dataset.sourceFiles << s.path;
    dataset.featureNames = featureNames(table, columns);
    dataset.categoriesOneHot = columns.oneHot;
    for (size_t j = 0; j < columns.features.size(); ++j)
        if (!columns.categories[j].isEmpty())
            dataset.featureCategories.insert(table.columns.value(columns.features[j]), columns.categories[j]);
    dataset.targetName = table.columns.value(columns.target);
    dataset.fingerprint = QString::fromLatin1(hash.result().toHex());
    QMap<QString, int64_t> classIndex;
    if (s.classification) {
        Result<QStringList> labels = classLabels(table, columns.target, s, params);
        if (!labels)
            return labels.error();
        dataset.classNames = labels.value();
        for (int i = 0; i < dataset.classNames.size(); ++i)
            classIndex.insert(dataset.classNames[i], i);
    }

    // Every row into one split-sized array, checking each cell.
    const int64_t n = int64_t(table.rows.size());
    const int64_t width = columns.width();
    DataSplit all;
    all.x.sampleShape = {width};
    all.x.isFloat = true;
    all.x.count = n;
    all.x.floats.resize(size_t(n * width));
    all.y.classification = s.classification;
    all.y.count = n;
    if (s.classification)
        all.y.classes.resize(size_t(n));
    else
        all.y.values.resize(size_t(n));
    for (int64_t i = 0; i < n; ++i) {
        const CsvRow &row = table.rows[size_t(i)];
        float *target = s.classification ? nullptr : &all.y.values[size_t(i)];
        if (const Status read = readRow(table, row, columns, s, params, &all.x.floats[size_t(i * width)], target); !read)
            return read.error();
        if (s.classification)
            all.y.classes[size_t(i)] = classIndex.value(QString::fromUtf8(row.cells[columns.target]));
    }

    // The test rows: a seeded choice, kept in file order.
    const int64_t testCount = int64_t(std::llround(s.testFraction * double(n)));
    if (testCount >= n)
        return params.error(QStringLiteral("test_fraction"),
                            QStringLiteral("test_fraction %1 leaves no training rows: it holds out %2 of the %3 rows")
                                .arg(s.testFraction).arg(testCount).arg(n),
                            s.path);
    DataSplit test = holdOutTest(all, testCount, s.split.splitSeed);
    DataSplit pool = std::move(all);

    dataset.shape.sampleShape = {width};
    dataset.shape.classification = s.classification;
    dataset.shape.numClasses = s.classification ? dataset.classNames.size() : 0;
    dataset.shape.classLabels = dataset.classNames;
    dataset.shape.targetWidth = 1;
    SplitSettings split = s.split;
    if (const Status kept = resolveKeptClasses(split, params, dataset.shape); !kept)
        return kept.error();
    if (const Status done = splitTrainValidation(std::move(pool), split, params, kPath, dataset.train, dataset.val); !done)
        return done.error();
    applyTestSettings(test, split);
    dataset.test = std::move(test);
    if (s.standardize) {
        std::vector<bool> numeric;  // categories stay 0/1 (or ids): only numeric features are scaled
        for (size_t j = 0; j < columns.features.size(); ++j) {
            const QStringList &categories = columns.categories[j];
            const int64_t n = categories.isEmpty() || !columns.oneHot ? 1 : categories.size();
            for (int64_t k = 0; k < n; ++k)
                numeric.push_back(categories.isEmpty());
        }
        standardize(dataset, numeric);
    }
    return dataset;
}

} // namespace ty
