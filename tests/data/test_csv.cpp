// dataset.csv: classification and regression tables, column choice, standardization with training
// statistics, headerless and quoted files, and errors that name the file, line and column.

#include "test_datasets.h"

#include "dataset_fixtures.h"
#include "model_inputs.h"

#include <QDir>
#include <QSet>
#include <QTest>

#include <cmath>

using namespace fixtures;

namespace {

const QStringList kSpecies{QStringLiteral("virginica"), QStringLiteral("setosa"), QStringLiteral("versicolor")};

// Rows i = 0..n-1: sepal_length = i / 2, sepal_width = 1, petal_length = i, petal_width = i * i, species.
QByteArray irisLike(int n)
{
    QByteArray text = "sepal_length,sepal_width,petal_length,petal_width,species\r\n";
    for (int i = 0; i < n; ++i)
        text += QStringLiteral("%1,1,%2,%3,%4\r\n").arg(i * 0.5).arg(i).arg(i * i).arg(kSpecies[i % 3]).toUtf8();
    return text;
}

const std::vector<float> &features(const ty::DataSplit &split) { return split.x.floats; }

// Mean and population standard deviation of feature `j` of `split`.
std::pair<double, double> moments(const ty::DataSplit &split, int j)
{
    const int64_t width = split.x.sampleSize();
    double sum = 0, sumSq = 0;
    for (int64_t i = 0; i < split.size(); ++i) {
        const double v = split.x.floats[size_t(i * width + j)];
        sum += v;
        sumSq += v * v;
    }
    const double mean = sum / double(split.size());
    return {mean, std::sqrt(std::max(0.0, sumSq / double(split.size()) - mean * mean))};
}

} // namespace

void TestDatasets::csvClassification()
{
    QVERIFY(writeFile(m_dir.filePath(QStringLiteral("iris.csv")), irisLike(30)));
    const ty::DatasetRequest r = request(QStringLiteral("dataset.csv"),
                                         {{QStringLiteral("path"), QStringLiteral("iris.csv")},
                                          {QStringLiteral("target"), QStringLiteral("species")},
                                          {QStringLiteral("features"), QStringLiteral("petal_length, sepal_length")},
                                          {QStringLiteral("task"), QStringLiteral("classification")},
                                          {QStringLiteral("standardize"), false},
                                          {QStringLiteral("test_fraction"), 0.2},
                                          {QStringLiteral("val_fraction"), 0.25}},
                                         m_dir.path());
    const ty::Result<ty::DatasetShape> shape = ty::describeDataset(r);
    QVERIFY2(shape.ok(), qPrintable(shape.error().toString()));
    QCOMPARE(shape.value().sampleShape, std::vector<int64_t>{2});
    QCOMPARE(shape.value().numClasses, int64_t(3));

    const ty::Result<ty::LoadedDataset> loaded = ty::loadDataset(r);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error().toString()));
    const ty::LoadedDataset &d = loaded.value();
    QCOMPARE(d.classNames, (QStringList{QStringLiteral("setosa"), QStringLiteral("versicolor"), QStringLiteral("virginica")}));
    QCOMPARE(d.shape.numClasses, int64_t(3));
    QCOMPARE(d.test.size(), int64_t(6));   // 0.2 of 30
    QCOMPARE(d.val.size(), int64_t(6));    // 0.25 of the other 24
    QCOMPARE(d.train.size(), int64_t(18));
    QVERIFY(d.featureMean.empty());
    QCOMPARE(d.fingerprint.toLatin1(), sha256Hex({readFile(m_dir.filePath(QStringLiteral("iris.csv")))}));

    // Each sample is (petal_length, sepal_length) = (i, i / 2) with the class of row i; all rows appear once.
    QSet<int> rows;
    for (const ty::DataSplit *split : {&d.train, &d.val, &d.test}) {
        for (int64_t s = 0; s < split->size(); ++s) {
            const int i = int(features(*split)[size_t(2 * s)]);
            QCOMPARE(features(*split)[size_t(2 * s + 1)], float(i * 0.5));
            QCOMPARE(d.classNames[int(split->y.classes[size_t(s)])], kSpecies[i % 3]);
            rows.insert(i);
        }
    }
    QCOMPARE(rows.size(), 30);
}

void TestDatasets::csvNumericLabelsSortNumerically()
{
    QVERIFY(writeFile(m_dir.filePath(QStringLiteral("numeric-labels.csv")), "x,label\n1,10\n2,9\n3,2\n4,9\n"));
    const ty::Result<ty::LoadedDataset> loaded = ty::loadDataset(
        request(QStringLiteral("dataset.csv"),
                {{QStringLiteral("path"), m_dir.filePath(QStringLiteral("numeric-labels.csv"))},
                 {QStringLiteral("test_fraction"), 0.0}, {QStringLiteral("val_fraction"), 0.0},
                 {QStringLiteral("standardize"), false}}));
    QVERIFY2(loaded.ok(), qPrintable(loaded.error().toString()));
    QCOMPARE(loaded.value().classNames, (QStringList{QStringLiteral("2"), QStringLiteral("9"), QStringLiteral("10")}));
    QCOMPARE(loaded.value().train.y.classes, (std::vector<int64_t>{2, 1, 0, 1}));
}

void TestDatasets::csvRegression()
{
    QByteArray text = "a,b,y\n";
    for (int i = 0; i < 12; ++i)
        text += QStringLiteral("%1,%2,%3\n").arg(i).arg(-i * 0.25).arg(2 * i + i * 0.25).toUtf8();
    QVERIFY(writeFile(m_dir.filePath(QStringLiteral("regression.csv")), text));
    const ty::DatasetRequest r = request(QStringLiteral("dataset.csv"),
                                         {{QStringLiteral("path"), QStringLiteral("regression.csv")},
                                          {QStringLiteral("target"), QStringLiteral("y")},
                                          {QStringLiteral("task"), QStringLiteral("regression")},
                                          {QStringLiteral("standardize"), false},
                                          {QStringLiteral("test_fraction"), 0.0},
                                          {QStringLiteral("val_fraction"), 0.0}},
                                         m_dir.path());
    const ty::Result<ty::DatasetShape> shape = ty::describeDataset(r);
    QVERIFY2(shape.ok(), qPrintable(shape.error().toString()));
    QVERIFY(!shape.value().classification);
    QCOMPARE(shape.value().targetWidth, int64_t(1));
    QCOMPARE(shape.value().sampleShape, std::vector<int64_t>{2});

    const ty::Result<ty::LoadedDataset> loaded = ty::loadDataset(r);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error().toString()));
    const ty::DataSplit &train = loaded.value().train;
    QVERIFY(!train.y.classification);
    QCOMPARE(train.y.width, int64_t(1));
    QCOMPARE(train.size(), int64_t(12));
    QCOMPARE(train.y.values.size(), size_t(12));
    QVERIFY(loaded.value().classNames.isEmpty());
    for (int i = 0; i < 12; ++i) {
        QCOMPARE(train.x.floats[size_t(2 * i)], float(i));
        QCOMPARE(train.x.floats[size_t(2 * i + 1)], float(-i * 0.25));
        QCOMPARE(train.y.values[size_t(i)], float(2 * i + i * 0.25));
    }
}

void TestDatasets::csvStandardizeUsesTrainStatistics()
{
    QVERIFY(writeFile(m_dir.filePath(QStringLiteral("standardize.csv")), irisLike(40)));
    QJsonObject params{{QStringLiteral("path"), QStringLiteral("standardize.csv")},
                       {QStringLiteral("features"), QStringLiteral("sepal_width,petal_width")},
                       {QStringLiteral("test_fraction"), 0.25},
                       {QStringLiteral("val_fraction"), 0.2},
                       {QStringLiteral("split_seed"), 11},
                       {QStringLiteral("standardize"), false}};
    const ty::Result<ty::LoadedDataset> raw = ty::loadDataset(request(QStringLiteral("dataset.csv"), params, m_dir.path()));
    params[QStringLiteral("standardize")] = true;
    const ty::Result<ty::LoadedDataset> scaled = ty::loadDataset(request(QStringLiteral("dataset.csv"), params, m_dir.path()));
    QVERIFY2(raw.ok(), qPrintable(raw.error().toString()));
    QVERIFY2(scaled.ok(), qPrintable(scaled.error().toString()));

    // The training split becomes zero-mean, unit-variance (sepal_width is constant: centred only).
    const auto [trainMean, trainStd] = moments(raw.value().train, 1);
    QCOMPARE(scaled.value().featureMean.size(), size_t(2));
    QCOMPARE(scaled.value().featureMean[0], 1.0f);
    QCOMPARE(scaled.value().featureStd[0], 1.0f);
    QVERIFY(qAbs(scaled.value().featureMean[1] - trainMean) < 1e-3 * trainMean);
    QVERIFY(qAbs(scaled.value().featureStd[1] - trainStd) < 1e-3 * trainStd);
    QVERIFY(qAbs(moments(scaled.value().train, 1).first) < 1e-5);
    QVERIFY(qAbs(moments(scaled.value().train, 1).second - 1.0) < 1e-5);
    QCOMPARE(moments(scaled.value().train, 0).first, 0.0);

    // The statistics are the training split's, not the whole table's...
    double allMean = 0;
    for (int i = 0; i < 40; ++i)
        allMean += double(i * i) / 40.0;
    QVERIFY(qAbs(trainMean - allMean) > 1.0);
    // ...and the validation and test splits are shifted and scaled by the very same numbers.
    for (const auto &[rawSplit, scaledSplit] : {std::pair{&raw.value().val, &scaled.value().val},
                                                std::pair{&raw.value().test, &scaled.value().test}}) {
        QVERIFY(rawSplit->size() > 0);
        QCOMPARE(scaledSplit->size(), rawSplit->size());
        for (int64_t s = 0; s < rawSplit->size(); ++s) {
            const double expected = (rawSplit->x.floats[size_t(2 * s + 1)] - trainMean) / trainStd;
            QVERIFY(qAbs(scaledSplit->x.floats[size_t(2 * s + 1)] - expected) < 1e-4);
        }
    }
}

void TestDatasets::csvHeaderlessAndQuoted()
{
    QVERIFY(writeFile(m_dir.filePath(QStringLiteral("headerless.csv")), "1,2,0\n3,4,1\n5,6,0\n7,8,1\n"));
    const ty::Result<ty::LoadedDataset> headerless = ty::loadDataset(
        request(QStringLiteral("dataset.csv"),
                {{QStringLiteral("path"), QStringLiteral("headerless.csv")}, {QStringLiteral("test_fraction"), 0.0},
                 {QStringLiteral("val_fraction"), 0.0}, {QStringLiteral("standardize"), false}},
                m_dir.path()));
    QVERIFY2(headerless.ok(), qPrintable(headerless.error().toString()));
    QCOMPARE(headerless.value().train.size(), int64_t(4));  // the first row is data
    QCOMPARE(headerless.value().train.x.floats, (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));
    QCOMPARE(headerless.value().train.y.classes, (std::vector<int64_t>{0, 1, 0, 1}));

    const ty::Result<ty::LoadedDataset> named = ty::loadDataset(
        request(QStringLiteral("dataset.csv"),
                {{QStringLiteral("path"), QStringLiteral("headerless.csv")}, {QStringLiteral("target"), QStringLiteral("column1")},
                 {QStringLiteral("test_fraction"), 0.0}, {QStringLiteral("val_fraction"), 0.0}},
                m_dir.path()));
    QVERIFY2(named.ok(), qPrintable(named.error().toString()));
    QCOMPARE(named.value().classNames.size(), 4);

    QVERIFY(writeFile(m_dir.filePath(QStringLiteral("quoted.csv")),
                      "\xEF\xBB\xBF\"x\", y ,kind\n1, 2 ,\"a, b\"\n\n 3,4,\"say \"\"hi\"\"\"\n5,6,plain\n"));
    const ty::Result<ty::LoadedDataset> quoted = ty::loadDataset(
        request(QStringLiteral("dataset.csv"),
                {{QStringLiteral("path"), QStringLiteral("quoted.csv")}, {QStringLiteral("features"), QStringLiteral("y,x")},
                 {QStringLiteral("test_fraction"), 0.0}, {QStringLiteral("val_fraction"), 0.0},
                 {QStringLiteral("standardize"), false}},
                m_dir.path()));
    QVERIFY2(quoted.ok(), qPrintable(quoted.error().toString()));
    QCOMPARE(quoted.value().classNames,
             (QStringList{QStringLiteral("a, b"), QStringLiteral("plain"), QStringLiteral("say \"hi\"")}));
    QCOMPARE(quoted.value().train.x.floats, (std::vector<float>{2, 1, 4, 3, 6, 5}));
}

void TestDatasets::csvErrors_data()
{
    QTest::addColumn<QByteArray>("text");  // null: the file is not written
    QTest::addColumn<QJsonObject>("params");
    QTest::addColumn<QString>("field");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("message");

    const QJsonObject none;
    const QJsonObject regression{{QStringLiteral("task"), QStringLiteral("regression")}};
    QTest::newRow("non-numeric cell") << QByteArray("a,b,y\n1,2,0\n3,x7,1\n") << none << "features" << 3
                                      << "column 'b': 'x7' is not a number";
    QTest::newRow("blank lines keep line numbers") << QByteArray("a,b,y\n\n1,2,0\n\n3,bad,1\n") << none << "features"
                                                   << 5 << "column 'b': 'bad' is not a number";
    QTest::newRow("empty cell") << QByteArray("a,b,y\n1,,0\n") << none << "features" << 2 << "column 'b': '' is not a number";
    QTest::newRow("ragged row") << QByteArray("a,b,y\n1,2,0\n3,1\n") << none << "path" << 3
                                << "the row has 2 cells, the header has 3";
    QTest::newRow("too many cells") << QByteArray("a,b,y\n1,2,0,9\n") << none << "path" << 2
                                    << "the row has 4 cells, the header has 3";
    QTest::newRow("unknown target") << QByteArray("a,b,y\n1,2,0\n") << QJsonObject{{QStringLiteral("target"), QStringLiteral("zz")}}
                                    << "target" << 1 << "no column 'zz' (the columns are: a, b, y)";
    QTest::newRow("unknown feature") << QByteArray("a,b,y\n1,2,0\n")
                                     << QJsonObject{{QStringLiteral("features"), QStringLiteral("a, q")}} << "features" << 1
                                     << "no column 'q'";
    QTest::newRow("target is a feature") << QByteArray("a,b,y\n1,2,0\n")
                                         << QJsonObject{{QStringLiteral("features"), QStringLiteral("a,y")}} << "features"
                                         << 0 << "also listed as a feature";
    QTest::newRow("empty file") << QByteArray("") << none << "path" << 0 << "the file is empty";
    QTest::newRow("only blank lines") << QByteArray("\n \n\r\n") << none << "path" << 0 << "the file is empty";
    QTest::newRow("header only") << QByteArray("a,b,y\n") << none << "path" << 0 << "no data rows";
    QTest::newRow("unclosed quote") << QByteArray("a,b,y\n1,2,\"x\n3,4,y\n") << none << "path" << 2
                                    << "quoted cell is not closed";
    QTest::newRow("duplicate column") << QByteArray("a,a,y\n1,2,0\n") << none << "path" << 1 << "names the column 'a' twice";
    QTest::newRow("non-numeric target") << QByteArray("a,y\n1,2\n2,oops\n") << regression << "target" << 3
                                        << "column 'y': 'oops' is not a number";
    QTest::newRow("beyond a float") << QByteArray("a,b,y\n1,2,0\n3,1e39,1\n") << none << "features" << 3
                                    << "column 'b': '1e39' is beyond the range of a 32-bit float";
    QTest::newRow("text feature in regression") << QByteArray("a,b,y\n1,2,0.5\n3,red,1.5\n") << regression << "features" << 3
                                                << "column 'b': 'red' is not a number";
    QTest::newRow("empty label") << QByteArray("a,y\n1,\n") << none << "target" << 2 << "empty label";
    QTest::newRow("missing file") << QByteArray() << none << "path" << 0 << "file not found";
    // A file that is no CSV (a password file, an image) is never quoted in the message.
    QTest::newRow("not a csv") << QByteArray("root:secret-hash:20228:0:99999:7:::\nuser:x:1000\n")
                               << QJsonObject{{QStringLiteral("target"), QStringLiteral("y")}} << "target" << 1
                               << "no column 'y' (its first line is not a header of comma-separated column names: is it a CSV file?)";
}

void TestDatasets::csvErrors()
{
    QFETCH(QByteArray, text);
    QFETCH(QJsonObject, params);
    QFETCH(QString, field);
    QFETCH(int, line);
    QFETCH(QString, message);

    const QString path = m_dir.filePath(QStringLiteral("bad-%1.csv").arg(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('-')));
    if (!text.isNull())
        QVERIFY(writeFile(path, text));
    params[QStringLiteral("path")] = path;
    params[QStringLiteral("test_fraction")] = 0.0;
    const ty::Result<ty::LoadedDataset> loaded = ty::loadDataset(request(QStringLiteral("dataset.csv"), params, QString(),
                                                                         QStringLiteral("table")));
    QVERIFY(!loaded.ok());
    const ty::Error &e = loaded.error();
    QVERIFY2(e.message.contains(message), qPrintable(e.toString()));
    QVERIFY2(!e.toString().contains(QStringLiteral("secret")), qPrintable(e.toString()));
    QCOMPARE(e.field, field);
    QCOMPARE(e.line, line);
    QCOMPARE(e.file, path);
    QCOMPARE(e.node, QStringLiteral("table"));
    if (line > 0)
        QVERIFY2(e.toString().startsWith(QStringLiteral("%1:%2: ").arg(path).arg(line)), qPrintable(e.toString()));

    // validate (the description of the data set) finds the same problem, so that a run never fails on it later.
    const ty::Result<ty::DatasetShape> described =
        ty::describeDataset(request(QStringLiteral("dataset.csv"), params, QString(), QStringLiteral("table")));
    QVERIFY2(!described.ok(), "describeDataset accepted a table that loadDataset refuses");
    QCOMPARE(described.error().toString(), e.toString());
}

// Text feature columns as categories: one-hot (features "colour=red", ...) or ids, only numeric features
// standardized; rows with missing values dropped on request; a text column not listed names `categorical`; new
// rows for a trained model encoded the same way, an unknown category refused with its line.
void TestDatasets::csvCategoricalColumnsAndMissingValues()
{
    QVERIFY(writeFile(m_dir.filePath(QStringLiteral("fruit.csv")),
                      "colour,weight,size,kind\n"
                      "red,1,S,apple\ngreen,2,M,pear\nred,3,NA,apple\nyellow,4,L,banana\n,5,S,pear\ngreen,6,M,pear\nred,7,L,apple\n"
                      "yellow,8,M,banana\n"));
    auto load = [&](const QJsonObject &extra) {
        QJsonObject params{{QStringLiteral("path"), QStringLiteral("fruit.csv")}, {QStringLiteral("test_fraction"), 0.0},
                           {QStringLiteral("val_fraction"), 0.0}, {QStringLiteral("drop_missing"), true},
                           {QStringLiteral("categorical"), QStringLiteral("colour,size")}};
        for (auto it = extra.begin(); it != extra.end(); ++it)
            params.insert(it.key(), it.value());
        return ty::loadDataset(request(QStringLiteral("dataset.csv"), params, m_dir.path()));
    };
    const ty::Result<ty::LoadedDataset> oneHot = load({});
    QVERIFY2(oneHot.ok(), qPrintable(oneHot.error().toString()));
    const ty::LoadedDataset &d = oneHot.value();
    QCOMPARE(d.featureNames, (QStringList{QStringLiteral("colour=green"), QStringLiteral("colour=red"), QStringLiteral("colour=yellow"),
                                          QStringLiteral("weight"), QStringLiteral("size=L"), QStringLiteral("size=M"), QStringLiteral("size=S")}));
    QCOMPARE(d.train.size(), int64_t(6));  // rows 3 (size NA) and 5 (colour empty) dropped
    QCOMPARE(d.shape.sampleShape, (std::vector<int64_t>{7}));
    // Row "yellow,4,L": one-hot colour and size stay 0/1; the weight is standardized (weights 1 2 4 6 7 8: mean 4.667).
    const float *yellow = &d.train.x.floats[size_t(2 * 7)];
    QCOMPARE(std::vector<float>(yellow, yellow + 3), (std::vector<float>{0, 0, 1}));
    QCOMPARE(std::vector<float>(yellow + 4, yellow + 7), (std::vector<float>{1, 0, 0}));
    QVERIFY(std::abs(yellow[3] - (4 - 28.0 / 6) / std::sqrt(236.0 / 36)) < 1e-3);  // variance 170 / 6 - (28 / 6)²
    QCOMPARE(d.featureMean[0], 0.0f);
    QCOMPARE(d.featureStd[0], 1.0f);
    const ty::Result<ty::DatasetShape> shape = ty::describeDataset(
        request(QStringLiteral("dataset.csv"), {{QStringLiteral("path"), QStringLiteral("fruit.csv")}, {QStringLiteral("drop_missing"), true},
                                                {QStringLiteral("categorical"), QStringLiteral("colour,size")}, {QStringLiteral("test_fraction"), 0.0}},
                m_dir.path()));
    QVERIFY2(shape.ok(), qPrintable(shape.error().toString()));
    QCOMPARE(shape.value().sampleShape, (std::vector<int64_t>{7}));
    QCOMPARE(shape.value().sampleCount, int64_t(6));

    // ids: one value per categorical column, its category's index
    const ty::Result<ty::LoadedDataset> ids = load({{QStringLiteral("encoding"), QStringLiteral("ids")}, {QStringLiteral("standardize"), false}});
    QVERIFY2(ids.ok(), qPrintable(ids.error().toString()));
    QCOMPARE(ids.value().featureNames, (QStringList{QStringLiteral("colour"), QStringLiteral("weight"), QStringLiteral("size")}));
    QCOMPARE(std::vector<float>(ids.value().train.x.floats.begin() + 6, ids.value().train.x.floats.begin() + 9), (std::vector<float>{2, 4, 0}));

    // "auto" finds the text columns itself
    const ty::Result<ty::LoadedDataset> automatic = load({{QStringLiteral("categorical"), QStringLiteral("auto")}});
    QVERIFY2(automatic.ok(), qPrintable(automatic.error().toString()));
    QCOMPARE(automatic.value().featureNames, d.featureNames);

    // Without categorical, the text cell is an error that says what to do; without drop_missing, the NA too.
    const ty::Result<ty::DatasetShape> text = ty::describeDataset(
        request(QStringLiteral("dataset.csv"), {{QStringLiteral("path"), QStringLiteral("fruit.csv")}}, m_dir.path()));
    QVERIFY(!text.ok());
    QCOMPARE(text.error().line, 2);
    QVERIFY2(text.error().message.contains(QStringLiteral("column 'colour': 'red' is not a number (categorical lists the columns")),
             qPrintable(text.error().toString()));
    const ty::Result<ty::DatasetShape> missing = ty::describeDataset(
        request(QStringLiteral("dataset.csv"), {{QStringLiteral("path"), QStringLiteral("fruit.csv")}, {QStringLiteral("categorical"), QStringLiteral("colour")}},
                m_dir.path()));
    QVERIFY(!missing.ok());  // the empty colour of line 6, a missing category
    QCOMPARE(missing.error().line, 6);
    QCOMPARE(missing.error().field, QStringLiteral("categorical"));
    QVERIFY2(missing.error().message.contains(QStringLiteral("column 'colour': '' is a missing value (drop_missing drops such rows)")),
             qPrintable(missing.error().toString()));
    // auto does not take a missing cell for text: a numeric column with NA stays numeric, and the NA says what to do.
    QVERIFY(writeFile(m_dir.filePath(QStringLiteral("gaps.csv")), "a,b,label\n1,x,p\nNA,y,q\n3,x,p\n"));
    const ty::Result<ty::DatasetShape> autoMissing = ty::describeDataset(
        request(QStringLiteral("dataset.csv"), {{QStringLiteral("path"), QStringLiteral("gaps.csv")}, {QStringLiteral("categorical"), QStringLiteral("auto")}},
                m_dir.path()));
    QVERIFY(!autoMissing.ok());
    QCOMPARE(autoMissing.error().line, 3);
    QVERIFY2(autoMissing.error().message.contains(QStringLiteral("column 'a': 'NA' is not a number (a missing value: drop_missing drops such rows)")),
             qPrintable(autoMissing.error().toString()));
    const ty::Result<ty::DatasetShape> unknownColumn = ty::describeDataset(
        request(QStringLiteral("dataset.csv"), {{QStringLiteral("path"), QStringLiteral("fruit.csv")}, {QStringLiteral("categorical"), QStringLiteral("taste")}},
                m_dir.path()));
    QVERIFY(!unknownColumn.ok());
    QCOMPARE(unknownColumn.error().field, QStringLiteral("categorical"));

    // New rows for the trained model: encoded as in training, columns found by name in any order.
    QVERIFY(writeFile(m_dir.filePath(QStringLiteral("new-fruit.csv")), "size,weight,colour\nM,2,green\nS,9,purple\n"));
    const ty::Result<ty::ModelInputs> inputs = ty::readModelInputs({m_dir.filePath(QStringLiteral("new-fruit.csv"))}, ty::sampleFormatOf(d));
    QVERIFY(!inputs.ok());
    QCOMPARE(inputs.error().line == 0 ? inputs.error().message.contains(QStringLiteral("line 3")) : inputs.error().line == 3, true);
    QVERIFY2(inputs.error().message.contains(QStringLiteral("'purple' is not one of its categories (green, red, yellow)")),
             qPrintable(inputs.error().toString()));
    QVERIFY(writeFile(m_dir.filePath(QStringLiteral("new-fruit.csv")), "size,weight,colour\nM,2,green\n"));
    const ty::Result<ty::ModelInputs> good = ty::readModelInputs({m_dir.filePath(QStringLiteral("new-fruit.csv"))}, ty::sampleFormatOf(d));
    QVERIFY2(good.ok(), qPrintable(good.error().toString()));
    const std::vector<float> &row = good.value().samples.floats;
    QCOMPARE(row.size(), size_t(7));
    QCOMPARE(std::vector<float>(row.begin(), row.begin() + 3), (std::vector<float>{1, 0, 0}));
    QCOMPARE(std::vector<float>(row.begin() + 4, row.end()), (std::vector<float>{0, 1, 0}));
    QVERIFY(std::abs(row[3] - (2 - d.featureMean[3]) / d.featureStd[3]) < 1e-5);
}
