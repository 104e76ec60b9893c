// dataset.image_folder and dataset.image_list: classes from folders or labels, pixels as written (grey and RGB,
// stretched or cropped), the splits from folders, a split column or a seeded test fraction, decoding on several
// threads and the decoded cache, and files that cannot be read (named with the node, field, file and line). With
// Fashion-MNIST installed, the bundled script's PNG files read back as the IDX files' bytes.

#include "required_data.h"
#include "test_datasets.h"

#include "dataset_fixtures.h"
#include "image_files.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QStandardPaths>
#include <QTest>

#include <set>

using namespace fixtures;

namespace {

const QString kFolder = QStringLiteral("dataset.image_folder");
const QString kList = QStringLiteral("dataset.image_list");

// A 4 x 4 grey image whose pixel (y, x) is (seed * 16 + y * 4 + x) % 256.
std::vector<uint8_t> pattern(int seed)
{
    std::vector<uint8_t> pixels(16);
    for (int i = 0; i < 16; ++i)
        pixels[size_t(i)] = uint8_t((seed * 16 + i) % 256);
    return pixels;
}

bool writeGrey(const QString &path, int seed)
{
    QDir().mkpath(QFileInfo(path).path());
    QImage image(4, 4, QImage::Format_Grayscale8);
    const std::vector<uint8_t> pixels = pattern(seed);
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 4; ++x)
            image.scanLine(y)[x] = pixels[size_t(y * 4 + x)];
    return image.save(path);
}

std::vector<uint8_t> sampleBytes(const ty::DataSplit &split, int64_t i)
{
    const int64_t size = split.x.sampleSize();
    return {split.x.bytes.begin() + i * size, split.x.bytes.begin() + (i + 1) * size};
}

QJsonObject greyParams(QJsonObject params)
{
    params.insert(QStringLiteral("channels"), QStringLiteral("gray"));
    params.insert(QStringLiteral("height"), 4);
    params.insert(QStringLiteral("width"), 4);
    params.insert(QStringLiteral("cache"), false);
    return params;
}

QString errorText(const ty::Error &e) { return e.toString(); }

} // namespace

void TestDatasets::imageFolderClassesAndPixels()
{
    const QString root = m_dir.filePath(QStringLiteral("shapes"));
    // seeds: bar 0, 1; circle 2, 3, 4 (one in a nested folder); zeta 5, 6
    QVERIFY(writeGrey(root + QStringLiteral("/bar/a.png"), 0));
    QVERIFY(writeGrey(root + QStringLiteral("/bar/b.bmp"), 1));
    QVERIFY(writeGrey(root + QStringLiteral("/circle/a.png"), 2));
    QVERIFY(writeGrey(root + QStringLiteral("/circle/b.png"), 3));
    QVERIFY(writeGrey(root + QStringLiteral("/circle/more/c.png"), 4));
    QVERIFY(writeGrey(root + QStringLiteral("/zeta/x.png"), 5));
    QVERIFY(writeGrey(root + QStringLiteral("/zeta/y.png"), 6));
    QVERIFY(writeFile(root + QStringLiteral("/zeta/notes.txt"), "not an image"));
    QVERIFY(writeFile(root + QStringLiteral("/README"), "a file next to the class folders"));

    const ty::DatasetRequest r = request(kFolder, greyParams({{QStringLiteral("dir"), QStringLiteral("shapes")},
                                                              {QStringLiteral("test_fraction"), 0.0},
                                                              {QStringLiteral("val_fraction"), 0.0}}),
                                         m_dir.path());
    const ty::Result<ty::DatasetShape> shape = ty::describeDataset(r);
    QVERIFY2(shape.ok(), qPrintable(errorText(shape.error())));
    QCOMPARE(shape.value().sampleShape, (std::vector<int64_t>{1, 4, 4}));
    QCOMPARE(shape.value().classLabels, (QStringList{QStringLiteral("bar"), QStringLiteral("circle"), QStringLiteral("zeta")}));
    QCOMPARE(shape.value().sampleCount, int64_t(7));

    const ty::Result<ty::LoadedDataset> loaded = ty::loadDataset(r);
    QVERIFY2(loaded.ok(), qPrintable(errorText(loaded.error())));
    const ty::LoadedDataset &d = loaded.value();
    QCOMPARE(d.classNames, shape.value().classLabels);
    QCOMPARE(d.train.size(), int64_t(7));
    QCOMPARE(d.val.size(), int64_t(0));
    QCOMPARE(d.test.size(), int64_t(0));
    QCOMPARE(d.train.x.scale, 1.0f / 255.0f);
    QVERIFY(!d.train.x.isFloat);
    const std::vector<int64_t> labels{0, 0, 1, 1, 1, 2, 2};
    QList<QByteArray> digests;
    for (int64_t i = 0; i < 7; ++i) {
        QCOMPARE(sampleBytes(d.train, i), pattern(int(i)));
        QCOMPARE(d.train.y.classes[size_t(i)], labels[size_t(i)]);
    }
    // The fingerprint: sha256 over each file's sha256, in the order read.
    for (const char *file : {"bar/a.png", "bar/b.bmp", "circle/a.png", "circle/b.png", "circle/more/c.png", "zeta/x.png", "zeta/y.png"})
        digests << QCryptographicHash::hash(readFile(root + QLatin1Char('/') + QLatin1String(file)), QCryptographicHash::Sha256);
    QCOMPARE(d.fingerprint, QString::fromLatin1(QCryptographicHash::hash(digests.join(), QCryptographicHash::Sha256).toHex()));
}

void TestDatasets::imageFolderSplitFolders()
{
    const QString root = m_dir.filePath(QStringLiteral("splits"));
    int seed = 0;
    for (int i = 0; i < 6; ++i) {
        QVERIFY(writeGrey(root + QStringLiteral("/train/a/%1.png").arg(i), seed++));
        QVERIFY(writeGrey(root + QStringLiteral("/train/b/%1.png").arg(i), seed++));
    }
    QVERIFY(writeGrey(root + QStringLiteral("/val/b/0.png"), seed++));  // val/ lacks a/: allowed
    for (int i = 0; i < 3; ++i)
        QVERIFY(writeGrey(root + QStringLiteral("/test/a/%1.png").arg(i), seed++));
    const ty::DatasetRequest r = request(kFolder, greyParams({{QStringLiteral("dir"), root}}));
    const ty::Result<ty::DatasetShape> shape = ty::describeDataset(r);
    QVERIFY2(shape.ok(), qPrintable(errorText(shape.error())));
    QCOMPARE(shape.value().sampleCount, int64_t(16));
    const ty::Result<ty::LoadedDataset> loaded = ty::loadDataset(r);
    QVERIFY2(loaded.ok(), qPrintable(errorText(loaded.error())));
    const ty::LoadedDataset &d = loaded.value();
    QCOMPARE(d.train.size(), int64_t(12));  // val_fraction does not apply: val/ holds the validation images
    QCOMPARE(d.val.size(), int64_t(1));
    QCOMPARE(d.val.y.classes, (std::vector<int64_t>{1}));
    QCOMPARE(sampleBytes(d.val, 0), pattern(12));
    QCOMPARE(d.test.size(), int64_t(3));
    QCOMPARE(sampleBytes(d.test, 2), pattern(15));

    // keep_classes reaches the folders' splits too
    const ty::Result<ty::LoadedDataset> onlyB = ty::loadDataset(
        request(kFolder, greyParams({{QStringLiteral("dir"), root}, {QStringLiteral("keep_classes"), QStringLiteral("b")}})));
    QVERIFY2(onlyB.ok(), qPrintable(errorText(onlyB.error())));
    QCOMPARE(onlyB.value().train.size(), int64_t(6));
    QCOMPARE(onlyB.value().val.size(), int64_t(1));
    QCOMPARE(onlyB.value().test.size(), int64_t(0));

    // A class that train/ lacks, and a folder that is no split, are refused.
    QVERIFY(writeGrey(root + QStringLiteral("/test/c/0.png"), 0));
    ty::Result<ty::DatasetShape> unknown = ty::describeDataset(r);
    QVERIFY(!unknown.ok());
    QVERIFY2(unknown.error().message.contains(QStringLiteral("the class folder 'c' is not among the training classes (a, b)")),
             qPrintable(errorText(unknown.error())));
    QCOMPARE(unknown.error().field, QStringLiteral("dir"));
    QVERIFY(QDir(root + QStringLiteral("/test/c")).removeRecursively());
    QVERIFY(QDir().mkpath(root + QStringLiteral("/extra")));
    unknown = ty::describeDataset(r);
    QVERIFY(!unknown.ok());
    QVERIFY2(unknown.error().message.contains(QStringLiteral("'extra' is none of them")), qPrintable(errorText(unknown.error())));

    // An empty val/ or test/ is as good as none: val_fraction and test_fraction draw those splits.
    const QString bare = m_dir.filePath(QStringLiteral("empty-splits"));
    for (int i = 0; i < 10; ++i)
        QVERIFY(writeGrey(bare + QStringLiteral("/train/%1/%2.png").arg(i % 2 ? QStringLiteral("a") : QStringLiteral("b")).arg(i), i));
    QVERIFY(QDir().mkpath(bare + QStringLiteral("/val/a")));
    QVERIFY(QDir().mkpath(bare + QStringLiteral("/test")));
    const ty::DatasetRequest drawn = request(kFolder, greyParams({{QStringLiteral("dir"), bare}, {QStringLiteral("test_fraction"), 0.2},
                                                                  {QStringLiteral("val_count"), 2}}));
    const ty::Result<ty::LoadedDataset> fromFractions = ty::loadDataset(drawn);
    QVERIFY2(fromFractions.ok(), qPrintable(errorText(fromFractions.error())));
    QCOMPARE(fromFractions.value().test.size(), int64_t(2));
    QCOMPARE(fromFractions.value().val.size(), int64_t(2));
    QCOMPARE(fromFractions.value().train.size(), int64_t(6));
    QCOMPARE(ty::describeDataset(drawn).value().sampleCount, int64_t(10));
}

void TestDatasets::imageFolderTestFractionIsSeeded()
{
    const QString root = m_dir.filePath(QStringLiteral("seeded"));
    for (int i = 0; i < 16; ++i)  // 16 seeds: the first pixel (seed * 16) tells them apart
        QVERIFY(writeGrey(root + QStringLiteral("/%1/%2.png").arg(i % 2 ? QStringLiteral("odd") : QStringLiteral("even")).arg(i, 2, 10, QLatin1Char('0')), i));
    auto load = [&](int seed) {
        return ty::loadDataset(request(kFolder, greyParams({{QStringLiteral("dir"), root}, {QStringLiteral("test_fraction"), 0.25},
                                                            {QStringLiteral("val_count"), 3}, {QStringLiteral("split_seed"), seed}})));
    };
    auto firstBytes = [](const ty::DataSplit &split) {
        std::set<int> seeds;
        for (int64_t i = 0; i < split.size(); ++i)
            seeds.insert(split.x.bytes[size_t(i * 16)] / 16);
        return seeds;
    };
    const ty::Result<ty::LoadedDataset> a = load(1), b = load(1), c = load(2);
    QVERIFY2(a.ok(), qPrintable(errorText(a.error())));
    QCOMPARE(a.value().test.size(), int64_t(4));
    QCOMPARE(a.value().val.size(), int64_t(3));
    QCOMPARE(a.value().train.size(), int64_t(9));
    QCOMPARE(firstBytes(a.value().test), firstBytes(b.value().test));
    QVERIFY(firstBytes(a.value().test) != firstBytes(c.value().test));
    std::set<int> all;
    for (const ty::DataSplit *split : {&a.value().train, &a.value().val, &a.value().test})
        for (int s : firstBytes(*split))
            QVERIFY2(all.insert(s).second, "a sample in two splits");
    QCOMPARE(all.size(), size_t(16));
}

void TestDatasets::imageFolderColourAndFit()
{
    // 12 x 4: red, green and blue thirds.
    const QString root = m_dir.filePath(QStringLiteral("colour"));
    QImage image(12, 4, QImage::Format_RGB888);
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 12; ++x)
            image.setPixel(x, y, x < 4 ? qRgb(255, 0, 0) : x < 8 ? qRgb(0, 255, 0) : qRgb(0, 0, 255));
    QVERIFY(QDir().mkpath(root + QStringLiteral("/flag")));
    QVERIFY(image.save(root + QStringLiteral("/flag/rgb.png")));
    QVERIFY(writeGrey(root + QStringLiteral("/grey/g.png"), 3));
    auto load = [&](const QString &fit) {
        return ty::loadDataset(request(kFolder, {{QStringLiteral("dir"), root}, {QStringLiteral("height"), 4}, {QStringLiteral("width"), 4},
                                                 {QStringLiteral("fit"), fit}, {QStringLiteral("test_fraction"), 0.0},
                                                 {QStringLiteral("val_fraction"), 0.0}, {QStringLiteral("cache"), false}}));
    };
    const ty::Result<ty::LoadedDataset> crop = load(QStringLiteral("crop"));
    QVERIFY2(crop.ok(), qPrintable(errorText(crop.error())));
    QCOMPARE(crop.value().train.x.sampleShape, (std::vector<int64_t>{3, 4, 4}));
    const std::vector<uint8_t> flag = sampleBytes(crop.value().train, 0);  // classes: flag, grey
    for (int i = 0; i < 16; ++i) {  // the centre third: green
        QCOMPARE(int(flag[size_t(i)]), 0);
        QCOMPARE(int(flag[size_t(16 + i)]), 255);
        QCOMPARE(int(flag[size_t(32 + i)]), 0);
    }
    const std::vector<uint8_t> grey = sampleBytes(crop.value().train, 1);  // grey read as RGB: three equal channels
    QCOMPARE(std::vector<uint8_t>(grey.begin(), grey.begin() + 16), pattern(3));
    QCOMPARE(std::vector<uint8_t>(grey.begin() + 32, grey.end()), pattern(3));

    // A long, thin image is cut to the sample's aspect ratio before it is scaled (never scaled up whole first).
    QImage thin(3000, 2, QImage::Format_Grayscale8);
    thin.fill(90);
    QVERIFY(thin.save(root + QStringLiteral("/grey/thin.png")));
    const ty::Result<ty::LoadedDataset> withThin = load(QStringLiteral("crop"));
    QVERIFY2(withThin.ok(), qPrintable(errorText(withThin.error())));
    QCOMPARE(sampleBytes(withThin.value().train, 2), std::vector<uint8_t>(48, 90));
    QVERIFY(QFile::remove(root + QStringLiteral("/grey/thin.png")));

    const ty::Result<ty::LoadedDataset> stretch = load(QStringLiteral("stretch"));
    QVERIFY2(stretch.ok(), qPrintable(errorText(stretch.error())));
    const std::vector<uint8_t> squeezed = sampleBytes(stretch.value().train, 0);
    QVERIFY(squeezed[0] > 200);       // red at the left (row 0, column 0 of channel R)
    QVERIFY(squeezed[32 + 3] > 200);  // blue at the right
}

void TestDatasets::imageFolderErrors_data()
{
    QTest::addColumn<QString>("layout");   // what to write: "truncated", "empty class", ...
    QTest::addColumn<QString>("file");     // the file named, relative to the folder ("" for the folder itself)
    QTest::addColumn<QString>("message");
    QTest::newRow("truncated image") << "truncated" << "b/bad.png" << "cannot read the image";
    QTest::newRow("empty class folder") << "empty class" << "b" << "the class folder 'b' holds no images";
    QTest::newRow("one class") << "one class" << "" << "needs a sub-folder per class, at least two; it has 1 (a)";
    QTest::newRow("missing folder") << "missing" << "" << "no such folder";
    QTest::newRow("a file") << "file" << "" << "is not a folder";
}

void TestDatasets::imageFolderErrors()
{
    QFETCH(QString, layout);
    QFETCH(QString, file);
    QFETCH(QString, message);
    const QString root = m_dir.filePath(QStringLiteral("bad-") + QString(layout).replace(QLatin1Char(' '), QLatin1Char('-')));
    if (layout == QStringLiteral("file")) {
        QVERIFY(writeFile(root, "just a file"));
    } else if (layout != QStringLiteral("missing")) {
        QVERIFY(writeGrey(root + QStringLiteral("/a/0.png"), 0));
        if (layout == QStringLiteral("truncated")) {
            QVERIFY(writeGrey(root + QStringLiteral("/b/0.png"), 1));
            QVERIFY(writeGrey(root + QStringLiteral("/b/bad.png"), 2));
            QVERIFY(writeGrey(root + QStringLiteral("/b/zz.png"), 3));
            QFile bad(root + QStringLiteral("/b/bad.png"));
            QVERIFY(bad.resize(bad.size() / 2));
        } else if (layout == QStringLiteral("empty class")) {
            QVERIFY(QDir().mkpath(root + QStringLiteral("/b")));
        }
    }
    const QString expectedFile = file.isEmpty() ? root : root + QLatin1Char('/') + file;
    const ty::DatasetRequest r = request(kFolder, greyParams({{QStringLiteral("dir"), root}, {QStringLiteral("threads"), 3}}),
                                         QString(), QStringLiteral("photos"));
    const ty::Result<ty::DatasetShape> shape = ty::describeDataset(r);
    const ty::Result<ty::LoadedDataset> loaded = ty::loadDataset(r);
    QVERIFY(!loaded.ok());
    const ty::Error &e = loaded.error();
    QCOMPARE(e.node, QStringLiteral("photos"));
    QCOMPARE(e.field, QStringLiteral("dir"));
    QCOMPARE(e.file, expectedFile);
    QVERIFY2(e.message.contains(message), qPrintable(errorText(e)));
    if (layout != QStringLiteral("truncated")) {  // describing lists files, it decodes none
        QVERIFY(!shape.ok());
        QCOMPARE(shape.error().file, expectedFile);
    }
}

void TestDatasets::imageListRowsAndSplits()
{
    const QString root = m_dir.filePath(QStringLiteral("listed"));
    for (int i = 0; i < 8; ++i)
        QVERIFY(writeGrey(root + QStringLiteral("/img/%1.png").arg(i), i));
    QVERIFY(writeFile(root + QStringLiteral("/list.csv"),
                      "file,kind,split\nimg/0.png,dog,train\nimg/1.png,cat,train\nimg/2.png,dog,train\nimg/3.png,cat,train\n"
                      "img/4.png,dog,val\nimg/5.png,cat,test\n" + (root + QStringLiteral("/img/6.png")).toUtf8() + ",dog,TEST\nimg/7.png,cat,train\n"));
    const ty::DatasetRequest r = request(kList, greyParams({{QStringLiteral("path"), QStringLiteral("listed/list.csv")},
                                                            {QStringLiteral("label_column"), QStringLiteral("kind")},
                                                            {QStringLiteral("split_column"), QStringLiteral("split")}}),
                                         m_dir.path());
    const ty::Result<ty::DatasetShape> shape = ty::describeDataset(r);
    QVERIFY2(shape.ok(), qPrintable(errorText(shape.error())));
    QCOMPARE(shape.value().classLabels, (QStringList{QStringLiteral("cat"), QStringLiteral("dog")}));
    QCOMPARE(shape.value().sampleCount, int64_t(8));
    const ty::Result<ty::LoadedDataset> loaded = ty::loadDataset(r);
    QVERIFY2(loaded.ok(), qPrintable(errorText(loaded.error())));
    const ty::LoadedDataset &d = loaded.value();
    QCOMPARE(d.train.size(), int64_t(5));
    QCOMPARE(d.train.y.classes, (std::vector<int64_t>{1, 0, 1, 0, 0}));
    QCOMPARE(sampleBytes(d.train, 4), pattern(7));
    QCOMPARE(d.val.size(), int64_t(1));
    QCOMPARE(sampleBytes(d.val, 0), pattern(4));
    QCOMPARE(d.test.size(), int64_t(2));
    QCOMPARE(sampleBytes(d.test, 1), pattern(6));  // an absolute path
    QCOMPARE(d.test.y.classes, (std::vector<int64_t>{0, 1}));
}

void TestDatasets::imageListErrors_data()
{
    QTest::addColumn<QByteArray>("csv");
    QTest::addColumn<QString>("field");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("message");
    QTest::newRow("missing image") << QByteArray("path,label\nimg/0.png,a\nimg/nope.png,b\n") << "image_column" << 3 << "img/nope.png: file not found";
    QTest::newRow("ragged row") << QByteArray("path,label\nimg/0.png,a\nimg/1.png\n") << "path" << 3 << "the row has 1 cells";
    QTest::newRow("empty label") << QByteArray("path,label\nimg/0.png,\nimg/1.png,b\n") << "label_column" << 2 << "empty label";
    QTest::newRow("bad split") << QByteArray("path,label,split\nimg/0.png,a,train\nimg/1.png,b,later\n") << "split_column" << 3
                               << "'later' is not a split (train, val or test)";
    QTest::newRow("one class") << QByteArray("path,label\nimg/0.png,a\nimg/1.png,a\n") << "label_column" << 0 << "needs at least two classes";
    QTest::newRow("no such column") << QByteArray("path,kind\nimg/0.png,a\n") << "label_column" << 1 << "no column 'label'";
}

void TestDatasets::imageListErrors()
{
    QFETCH(QByteArray, csv);
    QFETCH(QString, field);
    QFETCH(int, line);
    QFETCH(QString, message);
    const QString root = m_dir.filePath(QStringLiteral("badlist"));
    QVERIFY(writeGrey(root + QStringLiteral("/img/0.png"), 0));
    QVERIFY(writeGrey(root + QStringLiteral("/img/1.png"), 1));
    const QString list = root + QStringLiteral("/list.csv");
    QVERIFY(writeFile(list, csv));
    QJsonObject params = greyParams({{QStringLiteral("path"), list}});
    if (csv.startsWith("path,kind"))
        params.insert(QStringLiteral("label_column"), QStringLiteral("label"));
    if (csv.startsWith("path,label,split"))
        params.insert(QStringLiteral("split_column"), QStringLiteral("split"));
    const ty::Result<ty::DatasetShape> shape = ty::describeDataset(request(kList, params));
    QVERIFY(!shape.ok());
    const ty::Error &e = shape.error();
    QCOMPARE(e.node, QStringLiteral("data"));
    QCOMPARE(e.field, field);
    QCOMPARE(e.file, list);
    QCOMPARE(e.line, line);
    QVERIFY2(e.message.contains(message), qPrintable(errorText(e)));
}

void TestDatasets::imageDecodingThreadsAndCache()
{
    const QString root = m_dir.filePath(QStringLiteral("many"));
    QStringList paths;
    for (int i = 0; i < 40; ++i) {
        paths << root + QStringLiteral("/%1.png").arg(i, 2, 10, QLatin1Char('0'));
        QVERIFY(writeGrey(paths.back(), i));
    }
    ty::ImageFormat format;
    format.channels = 1;
    format.height = 4;
    format.width = 4;
    const ty::Result<ty::DecodedImages> one = ty::decodeImageFiles(paths, format, 1, false);
    const ty::Result<ty::DecodedImages> four = ty::decodeImageFiles(paths, format, 4, false);
    QVERIFY2(one.ok() && four.ok(), "decoding failed");
    QCOMPARE(four.value().bytes, one.value().bytes);
    QCOMPARE(four.value().fingerprint, one.value().fingerprint);
    QCOMPARE(std::vector<uint8_t>(one.value().bytes.begin() + 39 * 16, one.value().bytes.end()), pattern(39));

    // The cache: the second decode is read back, a changed file is decoded again, a damaged cache file is ignored.
    const QString cache = m_dir.filePath(QStringLiteral("cache"));
    qputenv("TRAINYARD_CACHE_DIR", cache.toUtf8());
    QCOMPARE(ty::imageCacheDir(), cache + QStringLiteral("/images"));
    const ty::Result<ty::DecodedImages> first = ty::decodeImageFiles(paths, format, 2, true);
    const ty::Result<ty::DecodedImages> second = ty::decodeImageFiles(paths, format, 2, true);
    QVERIFY(first.ok() && second.ok());
    QVERIFY(!first.value().fromCache);
    QVERIFY(second.value().fromCache);
    QCOMPARE(second.value().bytes, one.value().bytes);
    QCOMPARE(second.value().fingerprint, one.value().fingerprint);
    const QStringList cached = QDir(ty::imageCacheDir()).entryList(QDir::Files);
    QCOMPARE(cached.size(), 1);

    QImage bigger(4, 4, QImage::Format_Grayscale8);  // a different image, in a file of another size
    bigger.fill(200);
    QVERIFY(bigger.save(paths[5], "BMP"));
    const ty::Result<ty::DecodedImages> changed = ty::decodeImageFiles(paths, format, 2, true);
    QVERIFY(changed.ok());
    QVERIFY(!changed.value().fromCache);
    QCOMPARE(int(changed.value().bytes[5 * 16]), 200);
    QVERIFY(changed.value().fingerprint != one.value().fingerprint);

    for (const QString &name : QDir(ty::imageCacheDir()).entryList(QDir::Files)) {
        QFile damaged(ty::imageCacheDir() + QLatin1Char('/') + name);
        QVERIFY(damaged.resize(damaged.size() - 7));
    }
    const ty::Result<ty::DecodedImages> again = ty::decodeImageFiles(paths, format, 2, true);
    QVERIFY(again.ok());
    QVERIFY(!again.value().fromCache);
    QCOMPARE(again.value().bytes, changed.value().bytes);
    qunsetenv("TRAINYARD_CACHE_DIR");

    // Several bad files: the first of the list is the one named, whatever the threads' timing.
    for (int i : {11, 23, 31}) {
        QFile bad(paths[i]);
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("not a png at all");
    }
    for (int round = 0; round < 10; ++round) {
        const ty::Result<ty::DecodedImages> failed = ty::decodeImageFiles(paths, format, 4, false);
        QVERIFY(!failed.ok());
        QCOMPARE(failed.error().file, paths[11]);
    }
}

void TestDatasets::imageScriptMatchesFashionMnist()
{
    const QString source = QStringLiteral("/usr/share/datasets/fashion-mnist");
    const QString python = QStandardPaths::findExecutable(QStringLiteral("python3"));
    if (!QDir(source).exists() || python.isEmpty())
        TY_SKIP_WITHOUT_DATA("needs Fashion-MNIST (dataset-fashion-mnist) and python3");
    const QString out = m_dir.filePath(QStringLiteral("fashion-png"));
    QProcess script;
    script.start(python, {QStringLiteral(TRAINYARD_SOURCE_DIR "/presets/fashion_mnist_to_png.py"), out, QStringLiteral("--limit"),
                          QStringLiteral("300"), QStringLiteral("--list")});
    QVERIFY(script.waitForFinished(120000));
    QVERIFY2(script.exitCode() == 0, script.readAllStandardError().constData());

    // The list, in IDX order: every training image as the IDX file has it, its label by name.
    const ty::Result<ty::LoadedDataset> listed = ty::loadDataset(
        request(kList, {{QStringLiteral("path"), out + QStringLiteral("/images.csv")}, {QStringLiteral("split_column"), QStringLiteral("split")},
                        {QStringLiteral("channels"), QStringLiteral("gray")}, {QStringLiteral("height"), 28}, {QStringLiteral("width"), 28},
                        {QStringLiteral("val_fraction"), 0.0}, {QStringLiteral("cache"), false}}));
    QVERIFY2(listed.ok(), qPrintable(errorText(listed.error())));
    const ty::Result<ty::LoadedDataset> idx = ty::loadDataset(
        request(QStringLiteral("dataset.fashion_mnist"), {{QStringLiteral("dir"), source}, {QStringLiteral("val_fraction"), 0.0},
                                                          {QStringLiteral("limit"), 300}, {QStringLiteral("test_limit"), 300}}));
    QVERIFY2(idx.ok(), qPrintable(errorText(idx.error())));
    const ty::LoadedDataset &png = listed.value(), &reference = idx.value();
    QCOMPARE(png.train.size(), int64_t(300));
    QCOMPARE(png.test.size(), int64_t(300));
    // limit draws a shuffled subset of the IDX training images; the test images are the first 300, as written.
    QCOMPARE(png.test.x.bytes, reference.test.x.bytes);
    for (int64_t i = 0; i < 300; ++i) {
        const QString pngClass = png.classNames[int(png.test.y.classes[size_t(i)])];
        QString idxClass = reference.classNames[int(reference.test.y.classes[size_t(i)])];
        QCOMPARE(pngClass, idxClass.replace(QLatin1Char('/'), QLatin1Char('_')).replace(QLatin1Char(' '), QLatin1Char('_')));
    }

    // The folder reads the same images (sorted by class), with train/ and test/ as its splits.
    const ty::Result<ty::LoadedDataset> folder = ty::loadDataset(
        request(kFolder, {{QStringLiteral("dir"), out}, {QStringLiteral("channels"), QStringLiteral("gray")}, {QStringLiteral("height"), 28},
                          {QStringLiteral("width"), 28}, {QStringLiteral("val_fraction"), 0.0}, {QStringLiteral("cache"), false}}));
    QVERIFY2(folder.ok(), qPrintable(errorText(folder.error())));
    QCOMPARE(folder.value().classNames, png.classNames);
    QCOMPARE(folder.value().train.size(), int64_t(300));
    QCOMPARE(folder.value().test.size(), int64_t(300));
    QCOMPARE(folder.value().fingerprint.size(), 64);
}

// Streaming: the decoded images go to a file and come back by index, byte for byte those of the in-memory
// decode, with its fingerprint; the file is the cache entry (found by the next run), or an unlinked temporary
// file that goes with the store; a streamed image folder's splits are rows of one store, none of them in memory.
void TestDatasets::imageStoreMatchesTheInMemoryDecode()
{
    const QString root = m_dir.filePath(QStringLiteral("stored"));
    QStringList paths;
    for (int i = 0; i < 30; ++i) {
        paths << root + QStringLiteral("/%1.png").arg(i, 2, 10, QLatin1Char('0'));
        QVERIFY(writeGrey(paths.back(), i + 3));
    }
    ty::ImageFormat format;
    format.channels = 1;
    format.height = 4;
    format.width = 4;
    const ty::Result<ty::DecodedImages> memory = ty::decodeImageFiles(paths, format, 2, false);
    QVERIFY(memory.ok());
    const auto rowsOf = [](const ty::SampleStore &store, std::vector<int64_t> rows) {
        std::vector<uint8_t> out(rows.size() * size_t(store.sampleSize()));
        const ty::Status read = store.read(rows.data(), int64_t(rows.size()), out.data());
        return read ? out : std::vector<uint8_t>{};
    };
    const std::vector<int64_t> shuffled{29, 0, 17, 4, 4, 12};
    std::vector<uint8_t> expected;
    for (int64_t row : shuffled)
        expected.insert(expected.end(), memory.value().bytes.begin() + row * 16, memory.value().bytes.begin() + (row + 1) * 16);

    const QString cache = m_dir.filePath(QStringLiteral("store-cache"));
    qputenv("TRAINYARD_CACHE_DIR", cache.toUtf8());
    {
        // Without the cache: a file in the cache folder, unlinked as soon as it is open (nothing is left behind,
        // even if the run is killed), read through its descriptor.
        const ty::Result<ty::StoredImages> temporary = ty::decodeImageFilesToStore(paths, format, 2, false);
        QVERIFY2(temporary.ok(), temporary.ok() ? "" : qPrintable(temporary.error().toString()));
        QCOMPARE(temporary.value().fingerprint, memory.value().fingerprint);
        QVERIFY(temporary.value().store->path().endsWith(QStringLiteral(" (deleted)")));
        QVERIFY(QDir(ty::imageCacheDir()).entryList(QDir::Files).isEmpty());
        QCOMPARE(rowsOf(*temporary.value().store, shuffled), expected);
        std::vector<uint8_t> row(16);
        const int64_t outside = 30;
        QVERIFY(!temporary.value().store->read(&outside, 1, row.data()));
    }

    const ty::Result<ty::StoredImages> first = ty::decodeImageFilesToStore(paths, format, 2, true);
    const ty::Result<ty::StoredImages> second = ty::decodeImageFilesToStore(paths, format, 2, true);
    QVERIFY(first.ok() && second.ok());
    QVERIFY(!first.value().fromCache);
    QVERIFY(second.value().fromCache);
    QCOMPARE(rowsOf(*second.value().store, shuffled), expected);
    // The same cache entry serves the in-memory decode, and the other way round.
    const ty::Result<ty::DecodedImages> fromCache = ty::decodeImageFiles(paths, format, 2, true);
    QVERIFY(fromCache.ok() && fromCache.value().fromCache);
    QCOMPARE(fromCache.value().bytes, memory.value().bytes);
    QCOMPARE(QDir(ty::imageCacheDir()).entryList(QDir::Files).size(), 1);

    // A streamed image folder: every split a run of rows of one store, nothing in memory, the same samples.
    const QString folder = m_dir.filePath(QStringLiteral("stream-folder"));
    for (int i = 0; i < 24; ++i)
        QVERIFY(writeGrey(folder + QStringLiteral("/%1/%2.png").arg(i % 2 ? "odd" : "even").arg(i), i));
    QJsonObject params = greyParams({{QStringLiteral("dir"), folder}, {QStringLiteral("val_fraction"), 0.25}});
    params.insert(QStringLiteral("cache"), true);
    const ty::Result<ty::LoadedDataset> inMemory = ty::loadDataset(request(kFolder, params));
    ty::DatasetRequest streaming = request(kFolder, params);
    streaming.stream = true;
    const ty::Result<ty::LoadedDataset> streamed = ty::loadDataset(streaming);
    QVERIFY2(inMemory.ok() && streamed.ok(), streamed.ok() ? "" : qPrintable(streamed.error().toString()));
    QCOMPARE(streamed.value().fingerprint, inMemory.value().fingerprint);
    for (const auto &[a, b] : {std::pair{&inMemory.value().train, &streamed.value().train}, {&inMemory.value().val, &streamed.value().val},
                               {&inMemory.value().test, &streamed.value().test}}) {
        QVERIFY(a->size() > 0);
        QCOMPARE(b->x.count, a->x.count);
        QVERIFY(b->x.bytes.empty() && b->x.store);
        QCOMPARE(b->y.classes, a->y.classes);
        std::vector<int64_t> rows;
        for (int64_t i = 0; i < b->x.count; ++i)
            rows.push_back(b->x.storeFirst + i);
        QCOMPARE(rowsOf(*b->x.store, rows), a->x.bytes);
    }
    qunsetenv("TRAINYARD_CACHE_DIR");
}
