// dataset.cifar: CIFAR-10 and CIFAR-100 binary files written here (records of label bytes and three 32 x 32
// planes), read back with their pixels, labels and class names; damaged files named with the node and field.
// Also the summary of a loaded data set that the app shows (dataset_summary.h).

#include "test_datasets.h"

#include "dataset_fixtures.h"
#include "dataset_summary.h"

#include <QDir>
#include <QImage>
#include <QTest>

using namespace fixtures;

namespace {

// Record `i` of a batch: its pixels are (i * 5 + p) % 256, its labels as given.
QByteArray record(int i, const QList<uint8_t> &labels)
{
    QByteArray bytes;
    for (uint8_t label : labels)
        bytes.append(char(label));
    for (int p = 0; p < 3072; ++p)
        bytes.append(char((i * 5 + p) % 256));
    return bytes;
}

std::vector<uint8_t> pixelsOf(int i)
{
    std::vector<uint8_t> pixels(3072);
    for (int p = 0; p < 3072; ++p)
        pixels[size_t(p)] = uint8_t((i * 5 + p) % 256);
    return pixels;
}

std::vector<uint8_t> sample(const ty::DataSplit &split, int64_t i)
{
    return {split.x.bytes.begin() + i * 3072, split.x.bytes.begin() + (i + 1) * 3072};
}

// CIFAR-10: five batches of 3 records (record n has label n % 10), a test batch of 4, the class names.
QString writeCifar10(const QString &dir)
{
    QDir().mkpath(dir);
    int n = 0;
    for (int b = 1; b <= 5; ++b) {
        QByteArray batch;
        for (int r = 0; r < 3; ++r, ++n)
            batch += record(n, {uint8_t(n % 10)});
        writeFile(dir + QStringLiteral("/data_batch_%1.bin").arg(b), batch);
    }
    QByteArray test;
    for (int r = 0; r < 4; ++r)
        test += record(100 + r, {uint8_t(9 - r)});
    writeFile(dir + QStringLiteral("/test_batch.bin"), test);
    writeFile(dir + QStringLiteral("/batches.meta.txt"), "airplane\nautomobile\nbird\ncat\ndeer\ndog\nfrog\nhorse\nship\ntruck\n\n");
    return dir;
}

ty::DatasetRequest cifar(const QString &dir, QJsonObject params = {})
{
    params.insert(QStringLiteral("dir"), dir);
    params.insert(QStringLiteral("val_fraction"), 0.0);
    return request(QStringLiteral("dataset.cifar"), params);
}

} // namespace

void TestDatasets::cifar10Records()
{
    const QString dir = writeCifar10(m_dir.filePath(QStringLiteral("cifar10")));
    const ty::Result<ty::DatasetShape> shape = ty::describeDataset(cifar(dir));
    QVERIFY2(shape.ok(), qPrintable(shape.error().toString()));
    QCOMPARE(shape.value().sampleShape, (std::vector<int64_t>{3, 32, 32}));
    QCOMPARE(shape.value().numClasses, int64_t(10));
    QCOMPARE(shape.value().sampleCount, int64_t(19));
    const ty::Result<ty::LoadedDataset> loaded = ty::loadDataset(cifar(dir));
    QVERIFY2(loaded.ok(), qPrintable(loaded.error().toString()));
    const ty::LoadedDataset &d = loaded.value();
    QCOMPARE(d.classNames.size(), 10);
    QCOMPARE(d.classNames.at(3), QStringLiteral("cat"));
    QCOMPARE(d.train.size(), int64_t(15));
    QCOMPARE(d.test.size(), int64_t(4));
    QCOMPARE(d.train.x.scale, 1.0f / 255.0f);
    for (int64_t i = 0; i < 15; ++i) {
        QCOMPARE(sample(d.train, i), pixelsOf(int(i)));
        QCOMPARE(d.train.y.classes[size_t(i)], i % 10);
    }
    QCOMPARE(sample(d.test, 2), pixelsOf(102));
    QCOMPARE(d.test.y.classes, (std::vector<int64_t>{9, 8, 7, 6}));
    QCOMPARE(d.fingerprint.size(), 64);
    // keep_classes by name, as the names file gives them
    const ty::Result<ty::LoadedDataset> cats = ty::loadDataset(cifar(dir, {{QStringLiteral("keep_classes"), QStringLiteral("cat,bird")}}));
    QVERIFY2(cats.ok(), qPrintable(cats.error().toString()));
    QCOMPARE(cats.value().classNames, (QStringList{QStringLiteral("cat"), QStringLiteral("bird")}));
    QCOMPARE(cats.value().train.size(), int64_t(4));  // records 2, 3, 12 and 13: labels 2, 3, 2, 3
    QCOMPARE(cats.value().train.y.classes, (std::vector<int64_t>{1, 0, 1, 0}));  // renumbered: cat 0, bird 1
}

void TestDatasets::cifar100CoarseAndFine()
{
    const QString dir = m_dir.filePath(QStringLiteral("cifar100"));
    QDir().mkpath(dir);
    QByteArray train, test;
    for (int i = 0; i < 6; ++i)
        train += record(i, {uint8_t(i % 20), uint8_t(i * 17 % 100)});
    test += record(50, {uint8_t(19), uint8_t(99)});
    QVERIFY(writeFile(dir + QStringLiteral("/train.bin"), train));
    QVERIFY(writeFile(dir + QStringLiteral("/test.bin"), test));
    const ty::Result<ty::LoadedDataset> fine = ty::loadDataset(cifar(dir));
    QVERIFY2(fine.ok(), qPrintable(fine.error().toString()));
    QCOMPARE(fine.value().shape.numClasses, int64_t(100));
    QCOMPARE(fine.value().train.y.classes, (std::vector<int64_t>{0, 17, 34, 51, 68, 85}));
    QCOMPARE(sample(fine.value().train, 5), pixelsOf(5));
    QCOMPARE(fine.value().test.y.classes, (std::vector<int64_t>{99}));
    QCOMPARE(fine.value().classNames.at(42), QStringLiteral("42"));  // no names file: the numbers
    const ty::Result<ty::LoadedDataset> coarse = ty::loadDataset(cifar(dir, {{QStringLiteral("labels"), QStringLiteral("coarse")}}));
    QVERIFY2(coarse.ok(), qPrintable(coarse.error().toString()));
    QCOMPARE(coarse.value().shape.numClasses, int64_t(20));
    QCOMPARE(coarse.value().train.y.classes, (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
}

void TestDatasets::cifarDamagedFiles_data()
{
    QTest::addColumn<QString>("damage");
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("message");
    QTest::newRow("truncated batch") << "truncate" << "data_batch_3.bin" << "not a whole number of 3073-byte CIFAR-10 records";
    QTest::newRow("label out of range") << "label" << "test_batch.bin" << "record 1 has label 10; 10 classes are 0 to 9";
    QTest::newRow("missing batch") << "remove" << "data_batch_5.bin" << "file not found";
    QTest::newRow("names of another set") << "names" << "batches.meta.txt" << "names 3 classes; the data has 10";
}

void TestDatasets::cifarDamagedFiles()
{
    QFETCH(QString, damage);
    QFETCH(QString, file);
    QFETCH(QString, message);
    const QString dir = writeCifar10(m_dir.filePath(QStringLiteral("damaged-") + damage));
    const QString path = dir + QLatin1Char('/') + file;
    if (damage == QStringLiteral("truncate")) {
        QFile f(path);
        QVERIFY(f.resize(f.size() - 100));
    } else if (damage == QStringLiteral("label")) {
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadWrite));
        QVERIFY(f.seek(3073));
        f.write("\x0a", 1);
    } else if (damage == QStringLiteral("remove")) {
        QVERIFY(QFile::remove(path));
    } else {
        QVERIFY(writeFile(path, "a\nb\nc\n"));
    }
    const ty::Result<ty::LoadedDataset> loaded = ty::loadDataset(cifar(dir));
    QVERIFY(!loaded.ok());
    QCOMPARE(loaded.error().node, QStringLiteral("data"));
    QCOMPARE(loaded.error().field, QStringLiteral("dir"));
    QCOMPARE(loaded.error().file, path);
    QVERIFY2(loaded.error().message.contains(message), qPrintable(loaded.error().toString()));
    if (damage != QStringLiteral("label")) {  // describing reads sizes and names, not the records
        const ty::Result<ty::DatasetShape> shape = ty::describeDataset(cifar(dir));
        QVERIFY(!shape.ok());
        QCOMPARE(shape.error().file, path);
    }
}

// The class counts and per-channel statistics the app shows and sets: two samples of [2, 1, 2] bytes.
void TestDatasets::datasetSummaryCountsAndStatistics()
{
    ty::SampleArray x;
    x.sampleShape = {2, 1, 2};
    x.count = 2;
    x.scale = 0.5f;
    x.bytes = {0, 2, 4, 4,   2, 4, 0, 0};  // channel 0: 0 2 2 4 -> 0 1 1 2 (mean 1, std sqrt(0.5)); channel 1: 4 4 0 0 -> mean 1, std 1
    const ty::ChannelStatistics stats = ty::channelStatistics(x);
    QCOMPARE(stats.mean.size(), size_t(2));
    QVERIFY(qFuzzyCompare(stats.mean[0], 1.0));
    QVERIFY(qFuzzyCompare(stats.stddev[0], std::sqrt(0.5)));
    QVERIFY(qFuzzyCompare(stats.mean[1], 1.0));
    QVERIFY(qFuzzyCompare(stats.stddev[1], 1.0));
    QCOMPARE(ty::sampleImage(x, 0).isNull(), true);  // two channels: not an image
    x.sampleShape = {1, 2, 2};
    const QImage image = ty::sampleImage(x, 1);
    QCOMPARE(image.size(), QSize(2, 2));
    QCOMPARE(qGray(image.pixel(1, 0)), 4);

    ty::TargetArray y;
    y.classes = {0, 2, 2, 5, -1};
    QCOMPARE(ty::classCounts(y, 3), (std::vector<int64_t>{1, 0, 2}));
}
