// dataset.fashion_mnist: a small fixture folder (plain and gzipped files mixed), missing files, label range,
// and the real data set when it is installed.

#include "required_data.h"
#include "test_datasets.h"

#include "dataset_fixtures.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTest>

#include <numeric>

using namespace fixtures;

namespace {

const QString kRealDir = QStringLiteral("/usr/share/datasets/fashion-mnist");

// Writes the four Fashion-MNIST files (3 x 3 images) into `dir`; returns their paths in load order.
QStringList writeFashionFixture(const QString &dir, int trainCount, int testCount, int maxLabel = 9)
{
    QDir().mkpath(dir);
    const QStringList paths{dir + QStringLiteral("/train-images-idx3-ubyte"),
                            dir + QStringLiteral("/train-labels-idx1-ubyte.gz"),
                            dir + QStringLiteral("/t10k-images-idx3-ubyte.gz"),
                            dir + QStringLiteral("/t10k-labels-idx1-ubyte")};
    writeFile(paths[0], ubyteIdx({uint32_t(trainCount), 3, 3}, imageValues(trainCount, 3, 3)));
    writeFile(paths[1], gzip(ubyteIdx({uint32_t(trainCount)}, labelValues(trainCount, maxLabel + 1))));
    writeFile(paths[2], gzip(ubyteIdx({uint32_t(testCount), 3, 3}, imageValues(testCount, 3, 3))));
    writeFile(paths[3], ubyteIdx({uint32_t(testCount)}, labelValues(testCount, 10)));
    return paths;
}

} // namespace

void TestDatasets::fashionFixture()
{
    const QStringList paths = writeFashionFixture(m_dir.filePath(QStringLiteral("fashion")), 20, 7);
    // `dir` relative to the preset's folder.
    const ty::DatasetRequest r = request(QStringLiteral("dataset.fashion_mnist"),
                                         {{QStringLiteral("dir"), QStringLiteral("fashion")}}, m_dir.path());
    const ty::Result<ty::DatasetShape> shape = ty::describeDataset(r);
    QVERIFY2(shape.ok(), qPrintable(shape.error().toString()));
    QCOMPARE(shape.value().sampleShape, (std::vector<int64_t>{1, 3, 3}));
    QCOMPARE(shape.value().numClasses, int64_t(10));

    const ty::Result<ty::LoadedDataset> loaded = ty::loadDataset(r);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error().toString()));
    const ty::LoadedDataset &d = loaded.value();
    QCOMPARE(d.shape.numClasses, int64_t(10));
    QCOMPARE(d.classNames.size(), 10);
    QCOMPARE(d.classNames.first(), QStringLiteral("T-shirt/top"));
    QCOMPARE(d.classNames[5], QStringLiteral("Sandal"));
    QCOMPARE(d.classNames.last(), QStringLiteral("Ankle boot"));
    QCOMPARE(d.train.x.scale, 1.0f / 255.0f);  // always scaled
    QCOMPARE(d.train.size(), int64_t(18));      // the default val_fraction 0.1 holds out 2
    QCOMPARE(d.val.size(), int64_t(2));
    QCOMPARE(d.test.size(), int64_t(7));
    QCOMPARE(d.sourceFiles, paths);
    QList<QByteArray> stored;
    for (const QString &path : paths)
        stored << readFile(path);
    QCOMPARE(d.fingerprint.toLatin1(), sha256Hex(stored));
}

void TestDatasets::fashionMissingFile()
{
    const QString dir = m_dir.filePath(QStringLiteral("fashion-missing"));
    const QStringList paths = writeFashionFixture(dir, 5, 5);
    QVERIFY(QFile::remove(paths[3]));
    const ty::DatasetRequest r = request(QStringLiteral("dataset.fashion_mnist"), {{QStringLiteral("dir"), dir}}, QString(),
                                         QStringLiteral("fm"));
    for (const ty::Error &e : {ty::describeDataset(r).error(), ty::loadDataset(r).error()}) {
        QCOMPARE(e.field, QStringLiteral("dir"));
        QCOMPARE(e.node, QStringLiteral("fm"));
        QCOMPARE(e.file, dir + QStringLiteral("/t10k-labels-idx1-ubyte"));
        QVERIFY2(e.message.contains(QStringLiteral("t10k-labels-idx1-ubyte.gz")), qPrintable(e.toString()));
    }

    const ty::Error noFolder = ty::loadDataset(request(QStringLiteral("dataset.fashion_mnist"),
                                                       {{QStringLiteral("dir"), dir + QStringLiteral("-nope")}}))
                                   .error();
    QCOMPARE(noFolder.field, QStringLiteral("dir"));
    QVERIFY2(noFolder.message.contains(QStringLiteral("folder not found")), qPrintable(noFolder.toString()));
}

void TestDatasets::fashionLabelOutOfRange()
{
    const QString dir = m_dir.filePath(QStringLiteral("fashion-labels"));
    writeFashionFixture(dir, 12, 3, 11);  // training labels 0..11
    const ty::Result<ty::LoadedDataset> loaded =
        ty::loadDataset(request(QStringLiteral("dataset.fashion_mnist"), {{QStringLiteral("dir"), dir}}));
    QVERIFY(!loaded.ok());
    QCOMPARE(loaded.error().field, QStringLiteral("dir"));
    QVERIFY2(loaded.error().message.contains(QStringLiteral("label 10 at index 10 is outside the 10 classes")),
             qPrintable(loaded.error().toString()));
}

void TestDatasets::fashionReal()
{
    if (!QFileInfo(kRealDir).isDir())
        TY_SKIP_WITHOUT_DATA("the Fashion-MNIST files are not installed in /usr/share/datasets/fashion-mnist");

    QElapsedTimer timer;
    timer.start();
    const ty::Result<ty::LoadedDataset> loaded = ty::loadDataset(
        request(QStringLiteral("dataset.fashion_mnist"), {{QStringLiteral("dir"), kRealDir}}));
    const qint64 elapsed = timer.elapsed();
    QVERIFY2(loaded.ok(), qPrintable(loaded.error().toString()));
    qInfo("Fashion-MNIST train + test loaded, split and fingerprinted in %lld ms", elapsed);

    const ty::LoadedDataset &d = loaded.value();
    QCOMPARE(d.shape.sampleShape, (std::vector<int64_t>{1, 28, 28}));
    QCOMPARE(d.train.size() + d.val.size(), int64_t(60000));
    QCOMPARE(d.val.size(), int64_t(6000));
    QCOMPARE(d.test.size(), int64_t(10000));
    QCOMPARE(d.train.x.bytes.size(), size_t(54000 * 784));
    for (const ty::DataSplit *split : {&d.train, &d.val, &d.test}) {
        const auto [low, high] = std::minmax_element(split->y.classes.begin(), split->y.classes.end());
        QCOMPARE(*low, int64_t(0));
        QCOMPARE(*high, int64_t(9));
    }

    // Without validation the training split is the file in order: its first image is an ankle boot.
    const ty::Result<ty::LoadedDataset> whole = ty::loadDataset(
        request(QStringLiteral("dataset.fashion_mnist"),
                {{QStringLiteral("dir"), kRealDir}, {QStringLiteral("val_fraction"), 0.0}}));
    QVERIFY2(whole.ok(), qPrintable(whole.error().toString()));
    QCOMPARE(whole.value().train.size(), int64_t(60000));
    QCOMPARE(whole.value().train.y.classes.front(), int64_t(9));
    QCOMPARE(whole.value().test.y.classes.front(), int64_t(9));
    QCOMPARE(whole.value().train.y.classes[3], int64_t(3));
    const std::vector<uint8_t> &bytes = whole.value().train.x.bytes;
    QCOMPARE(std::accumulate(bytes.begin(), bytes.begin() + 784, int64_t(0)), int64_t(76247));
    QCOMPARE(whole.value().fingerprint, d.fingerprint);
    QCOMPARE(d.fingerprint.size(), 64);
}
