// keep_classes on every kind of data set: exactly the listed classes, renumbered in the listed order before the
// validation split and the limits; the class count (describe and load) and the class names follow; a CSV
// names its classes by label; every bad list is an Error naming the node and the field.

#include "required_data.h"
#include "test_datasets.h"

#include "dataset_fixtures.h"

#include <QDir>
#include <QFileInfo>
#include <QTest>

#include <algorithm>
#include <cstddef>

using namespace fixtures;

namespace {

const QString kKeep = QStringLiteral("keep_classes");

// The four Fashion-MNIST files in `dir`: `train` and `test` 2x2 images, image i labelled i % 10 and with first
// pixel (i * 7) % 256, so a sample's first pixel tells its original label (for at most 40 images).
bool writeFashionFiles(const QString &dir, int train, int test)
{
    QDir().mkpath(dir);
    return writeFile(dir + QStringLiteral("/train-images-idx3-ubyte"), ubyteIdx({uint32_t(train), 2, 2}, imageValues(train, 2, 2)))
           && writeFile(dir + QStringLiteral("/train-labels-idx1-ubyte"), ubyteIdx({uint32_t(train)}, labelValues(train, 10)))
           && writeFile(dir + QStringLiteral("/t10k-images-idx3-ubyte"), ubyteIdx({uint32_t(test), 2, 2}, imageValues(test, 2, 2)))
           && writeFile(dir + QStringLiteral("/t10k-labels-idx1-ubyte"), ubyteIdx({uint32_t(test)}, labelValues(test, 10)));
}

// The original label of a fixture sample, from its first pixel.
int64_t originalLabel(const ty::DataSplit &split, int64_t k)
{
    const int first = split.x.bytes[size_t(k * split.x.sampleSize())];
    for (int i = 0; i < 40; ++i)
        if ((i * 7) % 256 == first)
            return i % 10;
    return -1;
}

} // namespace

void TestDatasets::keepClassesFashionNamesAndSizes()
{
    const QString dir = m_dir.filePath(QStringLiteral("keep-fashion"));
    QVERIFY(writeFashionFiles(dir, 40, 30));  // training: labels 2 and 7 four times each; test: three times each
    QJsonObject params{{QStringLiteral("dir"), dir}, {kKeep, QStringLiteral("7, 2")}, {QStringLiteral("val_count"), 2}};
    const ty::Result<ty::DatasetShape> shape = ty::describeDataset(request(QStringLiteral("dataset.fashion_mnist"), params));
    QVERIFY2(shape.ok(), qPrintable(shape.error().toString()));
    QCOMPARE(shape.value().numClasses, int64_t(2));

    const ty::Result<ty::LoadedDataset> loaded = ty::loadDataset(request(QStringLiteral("dataset.fashion_mnist"), params));
    QVERIFY2(loaded.ok(), qPrintable(loaded.error().toString()));
    const ty::LoadedDataset &d = loaded.value();
    QCOMPARE(d.shape.numClasses, int64_t(2));
    QCOMPARE(d.classNames, (QStringList{QStringLiteral("Sneaker"), QStringLiteral("Pullover")}));
    QCOMPARE(d.train.size(), int64_t(6));  // the 8 kept, 2 of them held out: the split comes after the filter
    QCOMPARE(d.val.size(), int64_t(2));
    QCOMPARE(d.test.size(), int64_t(6));
    for (const ty::DataSplit *split : {&d.train, &d.val, &d.test})
        for (int64_t k = 0; k < split->size(); ++k)
            QCOMPARE(split->y.classes[size_t(k)], originalLabel(*split, k) == 7 ? int64_t(0) : int64_t(1));

    // limit and test_limit count kept samples only.
    params[QStringLiteral("limit")] = 5;
    params[QStringLiteral("test_limit")] = 4;
    const ty::Result<ty::LoadedDataset> limited = ty::loadDataset(request(QStringLiteral("dataset.fashion_mnist"), params));
    QVERIFY2(limited.ok(), qPrintable(limited.error().toString()));
    QCOMPARE(limited.value().train.size(), int64_t(3));
    QCOMPARE(limited.value().val.size(), int64_t(2));
    QCOMPARE(limited.value().test.size(), int64_t(4));
    QCOMPARE(originalLabel(limited.value().test, 0), int64_t(2));  // test images 2, 7, 12, 17: file order kept
    QCOMPARE(originalLabel(limited.value().test, 1), int64_t(7));
}

// The samples kept are exactly those of the listed classes, in their order, with their features: the same
// generator unfiltered, filtered by hand, gives the same arrays.
void TestDatasets::keepClassesSyntheticMatchesFilteringByHand()
{
    QJsonObject params{{QStringLiteral("kind"), QStringLiteral("blobs")}, {QStringLiteral("samples"), 200},
                       {QStringLiteral("test_samples"), 60}, {QStringLiteral("features"), 3},
                       {QStringLiteral("classes"), 5}, {QStringLiteral("val_fraction"), 0.0}};
    const ty::Result<ty::LoadedDataset> all = ty::loadDataset(request(QStringLiteral("dataset.synthetic"), params));
    params[kKeep] = QStringLiteral("4,0,2");
    const ty::Result<ty::LoadedDataset> kept = ty::loadDataset(request(QStringLiteral("dataset.synthetic"), params));
    QVERIFY2(all.ok() && kept.ok(), qPrintable(all.ok() ? kept.error().toString() : all.error().toString()));
    QCOMPARE(kept.value().shape.numClasses, int64_t(3));
    QCOMPARE(kept.value().classNames, (QStringList{QStringLiteral("4"), QStringLiteral("0"), QStringLiteral("2")}));

    const std::vector<int64_t> newLabel{1, -1, 2, -1, 0};
    for (const auto &[from, to] : {std::pair{&all.value().train, &kept.value().train}, std::pair{&all.value().test, &kept.value().test}}) {
        std::vector<float> features;
        std::vector<int64_t> labels;
        for (int64_t i = 0; i < from->size(); ++i) {
            if (newLabel[size_t(from->y.classes[size_t(i)])] < 0)
                continue;
            labels.push_back(newLabel[size_t(from->y.classes[size_t(i)])]);
            features.insert(features.end(), from->x.floats.begin() + i * 3, from->x.floats.begin() + i * 3 + 3);
        }
        QVERIFY(!labels.empty() && int64_t(labels.size()) < from->size());
        QCOMPARE(to->y.classes, labels);
        QCOMPARE(to->x.floats, features);
        QCOMPARE(to->size(), int64_t(labels.size()));
    }

    // With a limit and a validation fraction, the sizes count kept samples.
    params[QStringLiteral("limit")] = 50;
    params[QStringLiteral("val_fraction")] = 0.2;
    const ty::Result<ty::LoadedDataset> limited = ty::loadDataset(request(QStringLiteral("dataset.synthetic"), params));
    QVERIFY2(limited.ok(), qPrintable(limited.error().toString()));
    QCOMPARE(limited.value().train.size(), int64_t(40));
    QCOMPARE(limited.value().val.size(), int64_t(10));
}

// A CSV's classes are its labels: keep_classes lists them as written (numbers too), never by position.
void TestDatasets::keepClassesCsvByLabel()
{
    QByteArray text = "x,kind\n";
    const QStringList kinds{QStringLiteral("rose"), QStringLiteral("iris"), QStringLiteral("tulip")};
    for (int i = 0; i < 30; ++i)
        text += QStringLiteral("%1,%2\n").arg(i).arg(kinds[i % 3]).toUtf8();
    QVERIFY(writeFile(m_dir.filePath(QStringLiteral("flowers.csv")), text));
    QJsonObject params{{QStringLiteral("path"), QStringLiteral("flowers.csv")}, {QStringLiteral("standardize"), false},
                       {QStringLiteral("test_fraction"), 0.0}, {QStringLiteral("val_fraction"), 0.0}, {kKeep, QStringLiteral("tulip,iris")}};
    const ty::Result<ty::DatasetShape> shape = ty::describeDataset(request(QStringLiteral("dataset.csv"), params, m_dir.path()));
    QVERIFY2(shape.ok(), qPrintable(shape.error().toString()));
    QCOMPARE(shape.value().numClasses, int64_t(2));
    const ty::Result<ty::LoadedDataset> loaded = ty::loadDataset(request(QStringLiteral("dataset.csv"), params, m_dir.path()));
    QVERIFY2(loaded.ok(), qPrintable(loaded.error().toString()));
    const ty::LoadedDataset &d = loaded.value();
    QCOMPARE(d.classNames, (QStringList{QStringLiteral("tulip"), QStringLiteral("iris")}));
    QCOMPARE(d.shape.numClasses, int64_t(2));
    QCOMPARE(d.train.size(), int64_t(20));
    for (int64_t k = 0; k < d.train.size(); ++k) {
        const int row = int(d.train.x.floats[size_t(k)]);
        QCOMPARE(d.train.y.classes[size_t(k)], row % 3 == 2 ? int64_t(0) : int64_t(1));  // tulip, then iris
    }

    // Numeric labels: "7" is the label 7, not the class at position 7; "1" is no label of this file.
    QVERIFY(writeFile(m_dir.filePath(QStringLiteral("numbers.csv")), "x,y\n0,3\n1,5\n2,7\n3,3\n4,5\n5,7\n"));
    params[QStringLiteral("path")] = QStringLiteral("numbers.csv");
    params[kKeep] = QStringLiteral("7,3");
    const ty::Result<ty::LoadedDataset> numbers = ty::loadDataset(request(QStringLiteral("dataset.csv"), params, m_dir.path()));
    QVERIFY2(numbers.ok(), qPrintable(numbers.error().toString()));
    QCOMPARE(numbers.value().classNames, (QStringList{QStringLiteral("7"), QStringLiteral("3")}));
    QCOMPARE(numbers.value().train.y.classes, (std::vector<int64_t>{1, 0, 1, 0}));
    params[kKeep] = QStringLiteral("1");
    const ty::Result<ty::DatasetShape> positional = ty::describeDataset(request(QStringLiteral("dataset.csv"), params, m_dir.path()));
    QVERIFY(!positional.ok());
    QVERIFY2(positional.error().message.contains(QStringLiteral("no class \"1\" in this data set (its classes are: 3, 5, 7)")),
             qPrintable(positional.error().toString()));
}

void TestDatasets::keepClassesErrors_data()
{
    QTest::addColumn<QString>("block");
    QTest::addColumn<QString>("keep");
    QTest::addColumn<QString>("message");

    const QString fashion = QStringLiteral("dataset.fashion_mnist"), csv = QStringLiteral("dataset.csv");
    QTest::newRow("beyond the classes") << fashion << "3,10" << "class 10 is not a class of this data set (it has 10: 0 to 9)";
    QTest::newRow("listed twice") << fashion << "3,4,3" << "class 3 is listed twice";
    QTest::newRow("listed twice, written differently") << fashion << "3,03" << "class 3 is listed twice";
    QTest::newRow("not a number") << fashion << "3,Sandal" << "\"Sandal\" is not one";
    QTest::newRow("negative") << fashion << "-1" << "\"-1\" is not one";
    QTest::newRow("empty item") << fashion << "3,,4" << "an empty item in \"3,,4\"";
    QTest::newRow("unknown label") << csv << "rose,lily" << "no class \"lily\" in this data set (its classes are: iris, rose, tulip)";
    QTest::newRow("label twice") << csv << "rose, rose" << "class \"rose\" is listed twice";
    QTest::newRow("regression") << QStringLiteral("dataset.synthetic") << "0" << "only a classification data set has classes to keep";
}

void TestDatasets::keepClassesErrors()
{
    QFETCH(QString, block);
    QFETCH(QString, keep);
    QFETCH(QString, message);
    const QString dir = m_dir.filePath(QStringLiteral("keep-errors"));
    QVERIFY(writeFashionFiles(dir, 20, 10));
    QVERIFY(writeFile(dir + QStringLiteral("/flowers.csv"), "x,kind\n1,rose\n2,iris\n3,tulip\n4,rose\n5,iris\n"));
    QJsonObject params{{kKeep, keep}};
    if (block == QStringLiteral("dataset.fashion_mnist"))
        params[QStringLiteral("dir")] = dir;
    else if (block == QStringLiteral("dataset.csv"))
        params[QStringLiteral("path")] = QStringLiteral("flowers.csv");
    else
        params[QStringLiteral("kind")] = QStringLiteral("regression");
    const ty::DatasetRequest r = request(block, params, dir, QStringLiteral("pets"));
    for (const ty::Error &e : {ty::describeDataset(r).error(), ty::loadDataset(r).error()}) {
        QCOMPARE(e.node, QStringLiteral("pets"));
        QCOMPARE(e.field, kKeep);
        QVERIFY2(e.message.contains(message), qPrintable(e.toString()));
    }
}

// The real data set: classes 0-4 are half of it, in every split.
void TestDatasets::keepClassesFashionReal()
{
    const QString real = QStringLiteral("/usr/share/datasets/fashion-mnist");
    if (!QFileInfo(real).isDir())
        TY_SKIP_WITHOUT_DATA("the Fashion-MNIST files are not installed in /usr/share/datasets/fashion-mnist");
    const ty::Result<ty::LoadedDataset> loaded = ty::loadDataset(
        request(QStringLiteral("dataset.fashion_mnist"), {{QStringLiteral("dir"), real}, {kKeep, QStringLiteral("0,1,2,3,4")}}));
    QVERIFY2(loaded.ok(), qPrintable(loaded.error().toString()));
    const ty::LoadedDataset &d = loaded.value();
    QCOMPARE(d.train.size(), int64_t(27000));
    QCOMPARE(d.val.size(), int64_t(3000));
    QCOMPARE(d.test.size(), int64_t(5000));
    QCOMPARE(d.classNames, (QStringList{QStringLiteral("T-shirt/top"), QStringLiteral("Trouser"), QStringLiteral("Pullover"),
                                        QStringLiteral("Dress"), QStringLiteral("Coat")}));
    for (const ty::DataSplit *split : {&d.train, &d.val, &d.test}) {
        std::vector<int64_t> perClass(5, 0);
        for (const int64_t label : split->y.classes) {
            QVERIFY(label >= 0 && label < 5);
            ++perClass[size_t(label)];
        }
        for (const int64_t n : perClass)
            QVERIFY(n > 0);
    }
    QCOMPARE(std::count(d.test.y.classes.begin(), d.test.y.classes.end(), int64_t(3)), std::ptrdiff_t(1000));
}
