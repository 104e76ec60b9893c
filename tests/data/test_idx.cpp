// IDX files: round trips of every element type, plain and gzipped; dataset.idx; every kind of bad file.

#include "test_datasets.h"

#include "dataset_fixtures.h"
#include "idx_reader.h"

#include "sha256.h"

#include <QDir>
#include <QTest>

#include <cstring>
#include <random>
#include <sys/resource.h>

using namespace fixtures;

namespace {

// `values` as big-endian IDX data of `type`.
QByteArray encode(uint8_t type, const std::vector<double> &values)
{
    QByteArray out;
    const auto appendBigEndian = [&out](const void *p, int size) {
        const char *bytes = static_cast<const char *>(p);
        for (int i = size - 1; i >= 0; --i)
            out.append(bytes[i]);  // the tests run on little-endian machines
    };
    for (const double v : values) {
        switch (type) {
        case 0x08: out.append(char(uint8_t(v))); break;
        case 0x09: out.append(char(int8_t(v))); break;
        case 0x0B: { const int16_t x = int16_t(v); appendBigEndian(&x, 2); break; }
        case 0x0C: { const int32_t x = int32_t(v); appendBigEndian(&x, 4); break; }
        case 0x0D: { const float x = float(v); appendBigEndian(&x, 4); break; }
        case 0x0E: { const double x = v; appendBigEndian(&x, 8); break; }
        }
    }
    return out;
}

QString subdir(const QTemporaryDir &dir, const QString &name)
{
    QDir(dir.path()).mkpath(name);
    return QDir(dir.path()).filePath(name);
}

} // namespace

void TestDatasets::idxRoundTrip_data()
{
    QTest::addColumn<int>("type");
    QTest::addColumn<bool>("gz");
    QTest::addColumn<std::vector<double>>("values");

    const std::vector<double> ubyte{0, 1, 127, 255, 42, 7};
    const std::vector<double> sbyte{-128, -1, 0, 1, 127, 5};
    const std::vector<double> shorts{-32768, -2, 0, 300, 32767, 9};
    const std::vector<double> ints{-100000, -1, 0, 70000, 16777216, 3};
    const std::vector<double> floats{-1.5, 0, 0.25, 3.0e6, 1e-3, 7};
    const std::vector<double> doubles{-2.5, 0, 0.125, 1e10, 1e-3, 8};
    QTest::newRow("ubyte plain") << 0x08 << false << ubyte;
    QTest::newRow("ubyte gz") << 0x08 << true << ubyte;
    QTest::newRow("sbyte plain") << 0x09 << false << sbyte;
    QTest::newRow("short gz") << 0x0B << true << shorts;
    QTest::newRow("int plain") << 0x0C << false << ints;
    QTest::newRow("float gz") << 0x0D << true << floats;
    QTest::newRow("double plain") << 0x0E << false << doubles;
}

void TestDatasets::idxRoundTrip()
{
    QFETCH(int, type);
    QFETCH(bool, gz);
    QFETCH(std::vector<double>, values);

    QByteArray bytes = idxFile(uint8_t(type), {2, 3}, encode(uint8_t(type), values));
    if (gz)
        bytes = gzip(bytes);
    const QString path = m_dir.filePath(QStringLiteral("roundtrip-%1-%2.idx").arg(type).arg(gz));
    QVERIFY(writeFile(path, bytes));

    const ty::Result<ty::IdxHeader> header = ty::readIdxHeader(path);
    QVERIFY2(header.ok(), qPrintable(header.error().toString()));
    QCOMPARE(int(header.value().type), type);
    QCOMPARE(header.value().dims, (std::vector<int64_t>{2, 3}));
    QCOMPARE(header.value().gzipped, gz);

    ty::Sha256 hash;
    const ty::Result<ty::IdxArray> array = ty::readIdxFile(path, &hash);
    QVERIFY2(array.ok(), qPrintable(array.error().toString()));
    QCOMPARE(array.value().header.elementCount, int64_t(6));
    QCOMPARE(hash.result().toHex(), sha256Hex({bytes}));  // the stored bytes, gzipped or not (Qt's digest as the oracle)
    if (type == 0x08) {
        QCOMPARE(array.value().bytes.size(), size_t(6));
        for (size_t i = 0; i < values.size(); ++i)
            QCOMPARE(double(array.value().bytes[i]), values[i]);
    } else {
        QCOMPARE(array.value().floats.size(), size_t(6));
        for (size_t i = 0; i < values.size(); ++i)
            QCOMPARE(array.value().floats[i], float(values[i]));
    }
}

void TestDatasets::idxDatasetLoads_data()
{
    QTest::addColumn<bool>("gz");
    QTest::addColumn<bool>("scale");
    QTest::newRow("plain, scaled") << false << true;
    QTest::newRow("gzipped, scaled") << true << true;
    QTest::newRow("gzipped, bytes") << true << false;
}

void TestDatasets::idxDatasetLoads()
{
    QFETCH(bool, gz);
    QFETCH(bool, scale);
    const QString dir = subdir(m_dir, QStringLiteral("idxload-%1-%2").arg(gz).arg(scale));
    const QString ext = gz ? QStringLiteral(".idx.gz") : QStringLiteral(".idx");
    const auto pack = [gz](const QByteArray &b) { return gz ? gzip(b) : b; };

    const QByteArray trainImages = pack(ubyteIdx({20, 4, 5}, imageValues(20, 4, 5)));
    const QByteArray trainLabels = pack(ubyteIdx({20}, labelValues(20, 3)));
    const QByteArray testImages = pack(ubyteIdx({6, 4, 5}, imageValues(6, 4, 5)));
    const QByteArray testLabels = pack(ubyteIdx({6}, labelValues(6, 5)));  // labels up to 4: five classes
    QVERIFY(writeFile(dir + QStringLiteral("/train-x") + ext, trainImages));
    QVERIFY(writeFile(dir + QStringLiteral("/train-y") + ext, trainLabels));
    QVERIFY(writeFile(dir + QStringLiteral("/test-x") + ext, testImages));
    QVERIFY(writeFile(dir + QStringLiteral("/test-y") + ext, testLabels));

    const QJsonObject params{{QStringLiteral("train_images"), QStringLiteral("train-x") + ext},
                             {QStringLiteral("train_labels"), QStringLiteral("train-y") + ext},
                             {QStringLiteral("test_images"), QStringLiteral("test-x") + ext},
                             {QStringLiteral("test_labels"), QStringLiteral("test-y") + ext},
                             {QStringLiteral("scale"), scale},
                             {QStringLiteral("val_fraction"), 0.0}};
    const ty::DatasetRequest r = request(QStringLiteral("dataset.idx"), params, dir);

    const ty::Result<ty::DatasetShape> shape = ty::describeDataset(r);
    QVERIFY2(shape.ok(), qPrintable(shape.error().toString()));
    QCOMPARE(shape.value().sampleShape, (std::vector<int64_t>{1, 4, 5}));
    QCOMPARE(shape.value().numClasses, int64_t(5));

    const ty::Result<ty::LoadedDataset> loaded = ty::loadDataset(r);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error().toString()));
    const ty::LoadedDataset &d = loaded.value();
    QCOMPARE(d.shape.sampleShape, (std::vector<int64_t>{1, 4, 5}));
    QCOMPARE(d.shape.numClasses, int64_t(5));
    QCOMPARE(d.train.size(), int64_t(20));
    QCOMPARE(d.val.size(), int64_t(0));
    QCOMPARE(d.test.size(), int64_t(6));
    QVERIFY(!d.train.x.isFloat);
    QCOMPARE(d.train.x.scale, scale ? 1.0f / 255.0f : 1.0f);
    QCOMPARE(d.train.x.bytes, imageValues(20, 4, 5));
    QCOMPARE(d.test.x.bytes, imageValues(6, 4, 5));
    const std::vector<uint8_t> trainLabelValues = labelValues(20, 3);
    QCOMPARE(d.train.y.classes, std::vector<int64_t>(trainLabelValues.begin(), trainLabelValues.end()));
    QCOMPARE(d.test.y.classes.back(), int64_t(0));
    QCOMPARE(d.test.y.classes[4], int64_t(4));
    QCOMPARE(d.sourceFiles.size(), 4);
    QCOMPARE(d.sourceFiles.first(), QDir(dir).filePath(QStringLiteral("train-x") + ext));
    QCOMPARE(d.fingerprint.toLatin1(), sha256Hex({trainImages, trainLabels, testImages, testLabels}));
}

void TestDatasets::idxTwoDimensionalSamples()
{
    const QString dir = subdir(m_dir, QStringLiteral("idx2d"));
    std::vector<double> values;
    for (int i = 0; i < 60; ++i)
        values.push_back(i * 0.5);
    QVERIFY(writeFile(dir + QStringLiteral("/x.idx"), idxFile(0x0D, {10, 6}, encode(0x0D, values))));
    QVERIFY(writeFile(dir + QStringLiteral("/y.idx"), ubyteIdx({10}, labelValues(10, 2))));
    const ty::Result<ty::LoadedDataset> loaded = ty::loadDataset(
        request(QStringLiteral("dataset.idx"),
                {{QStringLiteral("train_images"), dir + QStringLiteral("/x.idx")},
                 {QStringLiteral("train_labels"), dir + QStringLiteral("/y.idx")},
                 {QStringLiteral("val_fraction"), 0.0}}));
    QVERIFY2(loaded.ok(), qPrintable(loaded.error().toString()));
    QCOMPARE(loaded.value().shape.sampleShape, std::vector<int64_t>{6});
    QVERIFY(loaded.value().train.x.isFloat);
    QCOMPARE(loaded.value().train.x.floats.size(), size_t(60));
    QCOMPARE(loaded.value().train.x.floats[13], 6.5f);
    QCOMPARE(loaded.value().train.x.scale, 1.0f);  // `scale` divides bytes only
    QCOMPARE(loaded.value().test.size(), int64_t(0));
    QCOMPARE(loaded.value().shape.numClasses, int64_t(2));
}

void TestDatasets::idxErrors_data()
{
    QTest::addColumn<QByteArray>("images");   // empty: the file is not written
    QTest::addColumn<QByteArray>("labels");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("badFile");     // the file the error must name
    QTest::addColumn<QString>("message");
    QTest::addColumn<bool>("describeFails");  // header-level problems fail describeDataset too

    const QByteArray images = ubyteIdx({10, 4, 5}, imageValues(10, 4, 5));
    const QByteArray labels = ubyteIdx({10}, labelValues(10, 3));
    const QByteArray truncated = images.left(16 + 123);
    QByteArray badMagic = images;
    badMagic[0] = char(0x12);
    badMagic[1] = char(0x34);
    QByteArray badType = images;
    badType[2] = char(0x0A);
    QByteArray corrupt = gzip(images);
    corrupt[10] = char(corrupt[10] | 0x06);  // the first deflate block gets the reserved type 11

    QTest::newRow("missing file") << QByteArray() << labels << "train_images" << "x.idx" << "file not found" << true;
    QTest::newRow("two-byte file") << QByteArray(2, '\0') << labels << "train_images" << "x.idx"
                                   << "too short to be an IDX file (2 bytes)" << true;
    QTest::newRow("bad magic") << badMagic << labels << "train_images" << "x.idx" << "bad magic number 0x12340803"
                               << true;
    QTest::newRow("unsupported type") << badType << labels << "train_images" << "x.idx"
                                      << "unsupported IDX element type 0x0a" << true;
    QTest::newRow("truncated header") << images.left(9) << labels << "train_images" << "x.idx"
                                      << "truncated: the IDX header needs 16 bytes, found 9" << true;
    QTest::newRow("truncated plain") << truncated << labels << "train_images" << "x.idx"
                                     << "truncated: expected 200 bytes of data, found 123" << true;
    QTest::newRow("truncated gz") << gzip(truncated) << labels << "train_images" << "x.idx"
                                  << "truncated: expected 200 bytes of data, found 123" << false;
    QTest::newRow("truncated labels") << images << labels.left(8 + 4) << "train_labels" << "y.idx"
                                      << "truncated: expected 10 bytes of data, found 4" << true;
    QTest::newRow("count mismatch") << images << ubyteIdx({9}, labelValues(9, 3)) << "train_labels" << "y.idx"
                                    << "9 labels, but" << true;
    QTest::newRow("absurd dims") << idxFile(0x08, {65536, 65536, 2}, QByteArray(100, 'x')) << labels
                                 << "train_images" << "x.idx" << "absurd IDX dimensions 65536 x 65536 x 2" << true;
    QTest::newRow("gz claims too much") << gzip(idxFile(0x08, {1000000, 1000}, QByteArray(100, 'x'))) << labels
                                        << "train_images" << "x.idx" << "gzip file can hold" << true;
    QTest::newRow("corrupt gzip") << corrupt << labels << "train_images" << "x.idx" << "corrupt gzip data" << true;
    QTest::newRow("labels with columns") << images << ubyteIdx({10, 3}, labelValues(30, 3)) << "train_labels"
                                         << "y.idx" << "must have one dimension" << true;
    QTest::newRow("negative label") << images << idxFile(0x09, {10}, QByteArray(9, 0).append(char(-1)))
                                    << "train_labels" << "y.idx" << "label -1 at index 9" << true;  // describe reads labels
}

void TestDatasets::idxErrors()
{
    QFETCH(QByteArray, images);
    QFETCH(QByteArray, labels);
    QFETCH(QString, field);
    QFETCH(QString, badFile);
    QFETCH(QString, message);
    QFETCH(bool, describeFails);

    const QString dir = subdir(m_dir, QStringLiteral("idxerr-%1").arg(QString::fromLatin1(QTest::currentDataTag())));
    if (!images.isNull())
        QVERIFY(writeFile(dir + QStringLiteral("/x.idx"), images));
    QVERIFY(writeFile(dir + QStringLiteral("/y.idx"), labels));
    const ty::DatasetRequest r = request(QStringLiteral("dataset.idx"),
                                         {{QStringLiteral("train_images"), QStringLiteral("x.idx")},
                                          {QStringLiteral("train_labels"), QStringLiteral("y.idx")}},
                                         dir, QStringLiteral("idx1"));

    const ty::Result<ty::LoadedDataset> loaded = ty::loadDataset(r);
    QVERIFY(!loaded.ok());
    const ty::Error &e = loaded.error();
    QVERIFY2(e.message.contains(message), qPrintable(e.toString()));
    QCOMPARE(e.node, QStringLiteral("idx1"));
    QCOMPARE(e.field, field);
    QCOMPARE(e.file, QDir(dir).filePath(badFile));
    QVERIFY2(e.toString().contains(QDir(dir).filePath(badFile)), qPrintable(e.toString()));
    QVERIFY2(e.toString().contains(field), qPrintable(e.toString()));

    const ty::Result<ty::DatasetShape> shape = ty::describeDataset(r);
    QCOMPARE(!shape.ok(), describeFails);
    if (describeFails)
        QCOMPARE(shape.error().field, field);
}

void TestDatasets::idxRequiredFields_data()
{
    QTest::addColumn<QJsonObject>("params");
    QTest::addColumn<QString>("field");
    const QString x = QStringLiteral("x.idx"), y = QStringLiteral("y.idx");
    QTest::newRow("no train images") << QJsonObject{{QStringLiteral("train_images"), QString()},
                                                    {QStringLiteral("train_labels"), y}}
                                     << "train_images";
    QTest::newRow("no train labels") << QJsonObject{{QStringLiteral("train_images"), x}} << "train_labels";
    QTest::newRow("test images without labels")
        << QJsonObject{{QStringLiteral("train_images"), x}, {QStringLiteral("train_labels"), y},
                       {QStringLiteral("test_images"), x}}
        << "test_labels";
    QTest::newRow("test labels without images")
        << QJsonObject{{QStringLiteral("train_images"), x}, {QStringLiteral("train_labels"), y},
                       {QStringLiteral("test_labels"), y}}
        << "test_images";
}

void TestDatasets::idxRequiredFields()
{
    QFETCH(QJsonObject, params);
    QFETCH(QString, field);
    const ty::DatasetRequest r = request(QStringLiteral("dataset.idx"), params, m_dir.path(), QStringLiteral("n"));
    for (const ty::Error &e : {ty::describeDataset(r).error(), ty::loadDataset(r).error()}) {
        QCOMPARE(e.field, field);
        QCOMPARE(e.node, QStringLiteral("n"));
        QVERIFY(!e.message.isEmpty());
    }
}

void TestDatasets::idxDescribeReadsHeadersOnly()
{
    // The data of this gzipped file is cut short: only a full read can tell.
    const QString dir = subdir(m_dir, QStringLiteral("idxheaders"));
    QVERIFY(writeFile(dir + QStringLiteral("/x.gz"), gzip(ubyteIdx({10, 4, 5}, imageValues(10, 4, 5)).left(100))));
    QVERIFY(writeFile(dir + QStringLiteral("/y.gz"), gzip(ubyteIdx({10}, labelValues(10, 3)))));
    const ty::DatasetRequest r = request(QStringLiteral("dataset.idx"),
                                         {{QStringLiteral("train_images"), QStringLiteral("x.gz")},
                                          {QStringLiteral("train_labels"), QStringLiteral("y.gz")}},
                                         dir);
    const ty::Result<ty::DatasetShape> shape = ty::describeDataset(r);
    QVERIFY2(shape.ok(), qPrintable(shape.error().toString()));
    QCOMPARE(shape.value().sampleShape, (std::vector<int64_t>{1, 4, 5}));
    QCOMPARE(shape.value().numClasses, int64_t(3));
    const ty::Result<ty::LoadedDataset> loaded = ty::loadDataset(r);
    QVERIFY(!loaded.ok());
    QVERIFY2(loaded.error().message.contains(QStringLiteral("found 84")), qPrintable(loaded.error().toString()));
}

void TestDatasets::idxDamagedFilesNeverCrash_data()
{
    QTest::addColumn<bool>("gz");
    QTest::newRow("plain") << false;
    QTest::newRow("gzipped") << true;
}

void TestDatasets::idxDamagedFilesNeverCrash()
{
    // Every truncation is an error; every flipped byte is an error or (a pixel or a gzip name byte) loads.
    QFETCH(bool, gz);
    const QString dir = subdir(m_dir, QStringLiteral("damaged-%1").arg(gz));
    const QByteArray images = ubyteIdx({6, 3, 4}, imageValues(6, 3, 4));
    const QByteArray good = gz ? gzip(images) : images;
    QVERIFY(writeFile(dir + QStringLiteral("/y.idx"), ubyteIdx({6}, labelValues(6, 2))));
    const ty::DatasetRequest r = request(QStringLiteral("dataset.idx"),
                                         {{QStringLiteral("train_images"), QStringLiteral("x.idx")},
                                          {QStringLiteral("train_labels"), QStringLiteral("y.idx")}},
                                         dir);
    for (int length = 0; length < good.size(); ++length) {
        QVERIFY(writeFile(dir + QStringLiteral("/x.idx"), good.left(length)));
        const ty::Result<ty::LoadedDataset> loaded = ty::loadDataset(r);
        QVERIFY2(!loaded.ok(), qPrintable(QStringLiteral("cut at %1 bytes loads").arg(length)));
        QCOMPARE(loaded.error().field, QStringLiteral("train_images"));
        ty::describeDataset(r);
    }
    int failures = 0;
    for (int i = 0; i < good.size(); ++i) {
        for (const uint8_t mask : {uint8_t(0x01), uint8_t(0x80), uint8_t(0xff)}) {
            QByteArray damaged = good;
            damaged[i] = char(uint8_t(damaged[i]) ^ mask);
            QVERIFY(writeFile(dir + QStringLiteral("/x.idx"), damaged));
            const ty::Result<ty::LoadedDataset> loaded = ty::loadDataset(r);
            ty::describeDataset(r);
            if (!loaded.ok()) {
                ++failures;
                QVERIFY(!loaded.error().message.isEmpty());
                QCOMPARE(loaded.error().file, dir + QStringLiteral("/x.idx"));
            }
        }
    }
    QVERIFY(failures > 0);
}

// A gzipped IDX file of 2 MB of random bytes whose header claims 1.5 GB (a claim a 2 MB gzip stream could in
// principle hold): refused as truncated, with memory growing by what the stream really holds, not by the claim.
void TestDatasets::idxGzipClaimingMoreThanItHoldsStaysSmall()
{
    QByteArray content(2 << 20, Qt::Uninitialized);
    std::mt19937 random(3);
    for (char &c : content)
        c = char(random());
    const QString path = m_dir.filePath(QStringLiteral("lying.idx.gz"));
    QVERIFY(writeFile(path, gzip(idxFile(0x08, {1500, 1000, 1000}, content))));
    rusage before{};
    getrusage(RUSAGE_SELF, &before);
    const ty::Result<ty::IdxArray> read = ty::readIdxFile(path);
    rusage after{};
    getrusage(RUSAGE_SELF, &after);
    QVERIFY(!read.ok());
    QVERIFY2(read.error().message.contains(QStringLiteral("truncated")), qPrintable(read.error().toString()));
    const long grownMiB = (after.ru_maxrss - before.ru_maxrss) / 1024;
    QVERIFY2(grownMiB < 300, qPrintable(QStringLiteral("peak memory grew by %1 MiB").arg(grownMiB)));
}
