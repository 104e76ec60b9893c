// The train / validation / test split shared by every dataset block.

#include "test_datasets.h"

#include "dataset_fixtures.h"
#include "dataset_split.h"

#include <QDir>
#include <QTest>

#include <algorithm>

using namespace fixtures;

void TestDatasets::splitSizes_data()
{
    QTest::addColumn<QJsonObject>("params");
    QTest::addColumn<int>("train");
    QTest::addColumn<int>("val");
    QTest::addColumn<int>("test");

    const QString fraction = QStringLiteral("val_fraction"), count = QStringLiteral("val_count"),
                  limit = QStringLiteral("limit"), testLimit = QStringLiteral("test_limit");
    QTest::newRow("default fraction 0.1") << QJsonObject{} << 90 << 10 << 20;
    QTest::newRow("fraction 0.25") << QJsonObject{{fraction, 0.25}} << 75 << 25 << 20;
    QTest::newRow("count overrides fraction") << QJsonObject{{fraction, 0.5}, {count, 10}} << 90 << 10 << 20;
    QTest::newRow("limit, then fraction") << QJsonObject{{limit, 40}, {fraction, 0.25}} << 30 << 10 << 20;
    QTest::newRow("limit, then count") << QJsonObject{{limit, 40}, {count, 5}} << 35 << 5 << 20;
    QTest::newRow("limit above the size") << QJsonObject{{limit, 1000}} << 90 << 10 << 20;
    QTest::newRow("fraction rounds") << QJsonObject{{limit, 20}, {fraction, 0.125}} << 17 << 3 << 20;
    QTest::newRow("no validation") << QJsonObject{{fraction, 0.0}} << 100 << 0 << 20;
    QTest::newRow("test limit") << QJsonObject{{testLimit, 7}} << 90 << 10 << 7;
    QTest::newRow("test limit above the size") << QJsonObject{{testLimit, 70}} << 90 << 10 << 20;
}

void TestDatasets::splitSizes()
{
    QFETCH(QJsonObject, params);
    QFETCH(int, train);
    QFETCH(int, val);
    QFETCH(int, test);
    params[QStringLiteral("samples")] = 100;
    params[QStringLiteral("test_samples")] = 20;
    params[QStringLiteral("features")] = 3;
    const ty::Result<ty::LoadedDataset> d = ty::loadDataset(request(QStringLiteral("dataset.synthetic"), params));
    QVERIFY2(d.ok(), qPrintable(d.error().toString()));
    QCOMPARE(d.value().train.size(), int64_t(train));
    QCOMPARE(d.value().val.size(), int64_t(val));
    QCOMPARE(d.value().test.size(), int64_t(test));
    const ty::Result<ty::DatasetShape> shape = ty::describeDataset(request(QStringLiteral("dataset.synthetic"), params));
    QVERIFY2(shape.ok(), qPrintable(shape.error().toString()));
    QCOMPARE(shape.value().sampleCount, int64_t(train + val + test));  // known before loading
    for (const ty::DataSplit *split : {&d.value().train, &d.value().val, &d.value().test}) {
        QCOMPARE(split->x.sampleShape, std::vector<int64_t>{3});  // even when empty
        QCOMPARE(split->x.floats.size(), size_t(3 * split->size()));
        QCOMPARE(split->y.classes.size(), size_t(split->size()));
        QCOMPARE(split->y.count, split->size());
    }
}

void TestDatasets::splitIsDeterministicAndDisjoint()
{
    // Sample i of this IDX file holds (i % 256, i / 256), label i % 3: every sample says where it came from.
    const QString dir = m_dir.filePath(QStringLiteral("split"));
    QDir().mkpath(dir);
    std::vector<uint8_t> values;
    for (int i = 0; i < 300; ++i)
        values.insert(values.end(), {uint8_t(i % 256), uint8_t(i / 256)});
    QVERIFY(writeFile(dir + QStringLiteral("/x.idx"), ubyteIdx({300, 2}, values)));
    QVERIFY(writeFile(dir + QStringLiteral("/y.idx"), ubyteIdx({300}, labelValues(300, 3))));
    const auto load = [&](int seed) {
        return ty::loadDataset(request(QStringLiteral("dataset.idx"),
                                       {{QStringLiteral("train_images"), QStringLiteral("x.idx")},
                                        {QStringLiteral("train_labels"), QStringLiteral("y.idx")},
                                        {QStringLiteral("limit"), 200},
                                        {QStringLiteral("val_count"), 50},
                                        {QStringLiteral("split_seed"), seed}},
                                       dir));
    };
    const auto ids = [](const ty::DataSplit &split) {
        std::vector<int> out;
        for (int64_t s = 0; s < split.size(); ++s) {
            const int id = split.x.bytes[size_t(2 * s)] + 256 * split.x.bytes[size_t(2 * s + 1)];
            out.push_back(id);
            if (split.y.classes[size_t(s)] != id % 3)
                return std::vector<int>();  // a label got separated from its sample
        }
        return out;
    };

    const ty::Result<ty::LoadedDataset> a = load(5), b = load(5), c = load(6);
    QVERIFY2(a.ok() && b.ok() && c.ok(), qPrintable(a.ok() ? c.error().toString() : a.error().toString()));
    const std::vector<int> train = ids(a.value().train), val = ids(a.value().val);
    QCOMPARE(train.size(), size_t(150));
    QCOMPARE(val.size(), size_t(50));
    QVERIFY(std::is_sorted(train.begin(), train.end()));  // each split keeps the file's order
    QVERIFY(std::is_sorted(val.begin(), val.end()));
    std::vector<int> both;
    std::set_intersection(train.begin(), train.end(), val.begin(), val.end(), std::back_inserter(both));
    QVERIFY(both.empty());
    QVERIFY(train.back() >= 150);  // the limit takes a shuffled subset, not the first 200

    QCOMPARE(ids(b.value().train), train);
    QCOMPARE(ids(b.value().val), val);
    QVERIFY(ids(c.value().val) != val);
    QCOMPARE(ids(c.value().val).size(), size_t(50));
}

void TestDatasets::describeCountsTheLoadedSamples_data()
{
    QTest::addColumn<QString>("block");
    QTest::addColumn<QJsonObject>("params");
    QTest::addColumn<int>("samples");  // train + validation + test, as loaded

    const QString idx = QStringLiteral("dataset.idx"), csv = QStringLiteral("dataset.csv");
    const QJsonObject idxTrain{{QStringLiteral("train_images"), QStringLiteral("count-x.idx")},
                               {QStringLiteral("train_labels"), QStringLiteral("count-y.idx")}};
    QJsonObject idxBoth = idxTrain;
    idxBoth[QStringLiteral("test_images")] = QStringLiteral("count-tx.idx");
    idxBoth[QStringLiteral("test_labels")] = QStringLiteral("count-ty.idx");
    QJsonObject idxLimited = idxBoth;
    idxLimited[QStringLiteral("limit")] = 25;
    idxLimited[QStringLiteral("test_limit")] = 4;
    QTest::newRow("idx, training only") << idx << idxTrain << 40;
    QTest::newRow("idx with test") << idx << idxBoth << 52;
    QTest::newRow("idx, limits") << idx << idxLimited << 29;

    const QJsonObject regression{{QStringLiteral("path"), QStringLiteral("count.csv")}, {QStringLiteral("task"), QStringLiteral("regression")}};
    QJsonObject classification = regression;
    classification[QStringLiteral("task")] = QStringLiteral("classification");
    QJsonObject regressionLimited = regression;
    regressionLimited[QStringLiteral("test_fraction")] = 0.25;
    regressionLimited[QStringLiteral("limit")] = 10;
    regressionLimited[QStringLiteral("test_limit")] = 3;
    QJsonObject headerless = regression;
    headerless[QStringLiteral("path")] = QStringLiteral("count-headerless.csv");
    // count.csv: a header, 30 rows and blank lines; test_fraction 0.2 holds out 6.
    QTest::newRow("csv regression") << csv << regression << 30;
    QTest::newRow("csv classification") << csv << classification << 30;
    QTest::newRow("csv regression, limits") << csv << regressionLimited << 13;
    QTest::newRow("csv without a header") << csv << headerless << 7;
}

void TestDatasets::describeCountsTheLoadedSamples()
{
    QFETCH(QString, block);
    QFETCH(QJsonObject, params);
    QFETCH(int, samples);
    QVERIFY(writeFile(m_dir.filePath(QStringLiteral("count-x.idx")), ubyteIdx({40, 3, 3}, imageValues(40, 3, 3))));
    QVERIFY(writeFile(m_dir.filePath(QStringLiteral("count-y.idx")), ubyteIdx({40}, labelValues(40, 3))));
    QVERIFY(writeFile(m_dir.filePath(QStringLiteral("count-tx.idx")), ubyteIdx({12, 3, 3}, imageValues(12, 3, 3))));
    QVERIFY(writeFile(m_dir.filePath(QStringLiteral("count-ty.idx")), ubyteIdx({12}, labelValues(12, 3))));
    QByteArray table = "a,b,y\n";
    for (int i = 0; i < 30; ++i)
        table += QStringLiteral("%1,%2,%3\n%4").arg(i).arg(i % 7).arg(i % 2).arg(i % 10 == 0 ? QStringLiteral(" \r\n") : QString()).toUtf8();
    QVERIFY(writeFile(m_dir.filePath(QStringLiteral("count.csv")), table));
    QVERIFY(writeFile(m_dir.filePath(QStringLiteral("count-headerless.csv")), "1,2,3\n4,5,6\n7,8,9\n1,1,1\n2,2,2\n3,3,3\n4,4,4\n"));

    const ty::DatasetRequest r = request(block, params, m_dir.path());
    const ty::Result<ty::DatasetShape> shape = ty::describeDataset(r);
    QVERIFY2(shape.ok(), qPrintable(shape.error().toString()));
    const ty::Result<ty::LoadedDataset> loaded = ty::loadDataset(r);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error().toString()));
    const ty::LoadedDataset &d = loaded.value();
    QCOMPARE(d.train.size() + d.val.size() + d.test.size(), int64_t(samples));
    QCOMPARE(d.shape.sampleCount, int64_t(samples));
    QCOMPARE(shape.value().sampleCount, int64_t(samples));
}

void TestDatasets::emptyTrainingSplit_data()
{
    QTest::addColumn<QString>("block");
    QTest::addColumn<QJsonObject>("params");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("message");

    const QString synthetic = QStringLiteral("dataset.synthetic");
    const QJsonObject hundred{{QStringLiteral("samples"), 100}};
    QJsonObject all = hundred, more = hundred, tiny = hundred;
    all[QStringLiteral("val_count")] = 100;
    more[QStringLiteral("val_count")] = 500;
    tiny[QStringLiteral("limit")] = 1;
    tiny[QStringLiteral("val_fraction")] = 0.9;
    QTest::newRow("val_count takes all") << synthetic << all << "val_count"
                                         << "val_count 100 leaves no training examples: it holds out 100 of the 100";
    QTest::newRow("val_count above the size") << synthetic << more << "val_count" << "leaves no training examples";
    QTest::newRow("fraction of a tiny limit") << synthetic << tiny << "val_fraction" << "holds out 1 of the 1 examples";
    QTest::newRow("no samples in the file")
        << QStringLiteral("dataset.idx")
        << QJsonObject{{QStringLiteral("train_images"), QStringLiteral("empty-x.idx")},
                       {QStringLiteral("train_labels"), QStringLiteral("empty-y.idx")}}
        << "train_images" << "no training examples";
    QTest::newRow("test_fraction takes all")
        << QStringLiteral("dataset.csv")
        << QJsonObject{{QStringLiteral("path"), QStringLiteral("one-row.csv")}, {QStringLiteral("test_fraction"), 0.9}}
        << "test_fraction" << "leaves no training rows";
}

void TestDatasets::emptyTrainingSplit()
{
    QFETCH(QString, block);
    QFETCH(QJsonObject, params);
    QFETCH(QString, field);
    QFETCH(QString, message);
    QVERIFY(writeFile(m_dir.filePath(QStringLiteral("empty-x.idx")), ubyteIdx({0, 28, 28}, {})));
    QVERIFY(writeFile(m_dir.filePath(QStringLiteral("empty-y.idx")), ubyteIdx({0}, {})));
    QVERIFY(writeFile(m_dir.filePath(QStringLiteral("one-row.csv")), "a,b\n1,2\n"));

    const ty::Result<ty::LoadedDataset> d =
        ty::loadDataset(request(block, params, m_dir.path(), QStringLiteral("empty")));
    QVERIFY(!d.ok());
    QCOMPARE(d.error().field, field);
    QCOMPARE(d.error().node, QStringLiteral("empty"));
    QVERIFY2(d.error().message.contains(message), qPrintable(d.error().toString()));
}

void TestDatasets::badParameterTypes()
{
    const ty::Result<ty::LoadedDataset> text =
        ty::loadDataset(request(QStringLiteral("dataset.synthetic"), {{QStringLiteral("limit"), QStringLiteral("ten")}}));
    QVERIFY(!text.ok());
    QCOMPARE(text.error().field, QStringLiteral("limit"));
    QVERIFY2(text.error().message.contains(QStringLiteral("expected an integer, got")), qPrintable(text.error().toString()));

    const ty::Result<ty::LoadedDataset> range =
        ty::loadDataset(request(QStringLiteral("dataset.synthetic"), {{QStringLiteral("val_fraction"), 0.95}}));
    QVERIFY(!range.ok());
    QCOMPARE(range.error().field, QStringLiteral("val_fraction"));

    const ty::Result<ty::LoadedDataset> flag = ty::loadDataset(
        request(QStringLiteral("dataset.idx"), {{QStringLiteral("train_images"), QStringLiteral("x")},
                                                {QStringLiteral("train_labels"), QStringLiteral("y")},
                                                {QStringLiteral("scale"), 1}}));
    QVERIFY(!flag.ok());
    QCOMPARE(flag.error().field, QStringLiteral("scale"));
}

void TestDatasets::unknownBlock()
{
    const ty::DatasetRequest r = request(QStringLiteral("dataset.nope"), {}, QString(), QStringLiteral("d"));
    for (const ty::Error &e : {ty::describeDataset(r).error(), ty::loadDataset(r).error()}) {
        QCOMPARE(e.node, QStringLiteral("d"));
        QVERIFY2(e.message.contains(QStringLiteral("dataset.nope")), qPrintable(e.toString()));
    }
}

// keep_classes: only the listed classes, renumbered in the listed order, before the validation split and the
// limits; the class count and names follow; a class the data set lacks is an error naming node and field.
void TestDatasets::keepClasses()
{
    const QString dir = m_dir.filePath(QStringLiteral("keep"));
    QVERIFY(QDir().mkpath(dir));
    // 60 training and 30 test images of 2x2, label i % 4.
    QVERIFY(writeFile(dir + QStringLiteral("/train-images"), ubyteIdx({60, 2, 2}, imageValues(60, 2, 2))));
    QVERIFY(writeFile(dir + QStringLiteral("/train-labels"), ubyteIdx({60}, labelValues(60, 4))));
    QVERIFY(writeFile(dir + QStringLiteral("/test-images"), ubyteIdx({30, 2, 2}, imageValues(30, 2, 2))));
    QVERIFY(writeFile(dir + QStringLiteral("/test-labels"), ubyteIdx({30}, labelValues(30, 4))));
    QJsonObject params{{QStringLiteral("train_images"), QStringLiteral("train-images")}, {QStringLiteral("train_labels"), QStringLiteral("train-labels")},
                       {QStringLiteral("test_images"), QStringLiteral("test-images")}, {QStringLiteral("test_labels"), QStringLiteral("test-labels")},
                       {QStringLiteral("keep_classes"), QStringLiteral("3, 1")}, {QStringLiteral("val_count"), 5}, {QStringLiteral("scale"), false}};
    const ty::Result<ty::LoadedDataset> d = ty::loadDataset(request(QStringLiteral("dataset.idx"), params, dir));
    QVERIFY2(d.ok(), qPrintable(d.error().toString()));
    QCOMPARE(d.value().shape.numClasses, int64_t(2));
    QCOMPARE(d.value().train.size() + d.value().val.size(), int64_t(30));  // classes 1 and 3: half of 60
    QCOMPARE(d.value().val.size(), int64_t(5));
    QCOMPARE(d.value().test.size(), int64_t(15));
    // Image i has label i % 4 and first pixel (i * 7) % 256: a kept sample's new label says which class it was.
    for (const ty::DataSplit *split : {&d.value().train, &d.value().val, &d.value().test})
        for (int64_t k = 0; k < split->size(); ++k) {
            const int first = split->x.bytes[size_t(k * 4)];
            int original = -1;
            for (int i = 0; i < 60; ++i)
                if ((i * 7) % 256 == first)
                    original = i % 4;
            QCOMPARE(split->y.classes[size_t(k)], original == 3 ? int64_t(0) : int64_t(1));
        }
    const ty::Result<ty::DatasetShape> shape = ty::describeDataset(request(QStringLiteral("dataset.idx"), params, dir));
    QVERIFY(shape.ok());
    QCOMPARE(shape.value().numClasses, int64_t(2));

    // A class beyond the data set's, one listed twice, not a number: each names the node and field.
    for (const QString &bad : {QStringLiteral("1,4"), QStringLiteral("1,1"), QStringLiteral("1,x")}) {
        params[QStringLiteral("keep_classes")] = bad;
        for (const ty::Error &e : {ty::loadDataset(request(QStringLiteral("dataset.idx"), params, dir, QStringLiteral("d"))).error(),
                                   ty::describeDataset(request(QStringLiteral("dataset.idx"), params, dir, QStringLiteral("d"))).error()}) {
            QCOMPARE(e.node, QStringLiteral("d"));
            QCOMPARE(e.field, QStringLiteral("keep_classes"));
        }
    }
    const ty::Result<ty::LoadedDataset> regression = ty::loadDataset(
        request(QStringLiteral("dataset.synthetic"), {{QStringLiteral("kind"), QStringLiteral("regression")}, {QStringLiteral("keep_classes"), QStringLiteral("0")}}));
    QVERIFY(!regression.ok());
    QVERIFY2(regression.error().message.contains(QStringLiteral("only a classification data set")), qPrintable(regression.error().toString()));
}

// Keeping rows within a split's own arrays gives what gathering them into new arrays gives, for byte samples
// with classes and for float samples with regression targets.
void TestDatasets::keepRowsInPlaceMatchesGathering()
{
    for (const bool bytes : {true, false}) {
        ty::DataSplit all;
        const int64_t n = 50, size = 6;
        all.x.sampleShape = {2, 3};
        all.x.count = n;
        all.x.isFloat = !bytes;
        all.y.classification = bytes;
        all.y.width = bytes ? 1 : 2;
        all.y.count = n;
        for (int64_t i = 0; i < n * size; ++i) {
            if (bytes)
                all.x.bytes.push_back(uint8_t((i * 37) % 251));
            else
                all.x.floats.push_back(float(i) * 0.5f);
        }
        for (int64_t i = 0; i < n; ++i) {
            if (bytes)
                all.y.classes.push_back(i % 7);
            else
                all.y.values.insert(all.y.values.end(), {float(i), -float(i)});
        }
        const std::vector<int64_t> rows{0, 1, 4, 5, 6, 20, 31, 48, 49};
        const ty::DataSplit gathered = ty::gatherSamples(all, rows);
        ty::keepRowsInPlace(all, rows);
        QCOMPARE(all.size(), int64_t(rows.size()));
        QCOMPARE(all.y.count, int64_t(rows.size()));
        QCOMPARE(all.x.bytes, gathered.x.bytes);
        QCOMPARE(all.x.floats, gathered.x.floats);
        QCOMPARE(all.y.classes, gathered.y.classes);
        QCOMPARE(all.y.values, gathered.y.values);
        if (bytes)
            QCOMPARE(int(all.x.bytes.at(5 * size)), int((20 * size * 37) % 251));  // row 20 moved to position 5
        else
            QCOMPARE(all.y.values.at(2 * 5), 20.0f);
    }
}
