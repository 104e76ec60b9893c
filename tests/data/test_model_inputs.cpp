// New inputs for a trained model from image files: read at the model's channels and size, and an image whose
// header claims far more pixels than its file can hold refused before it is decoded; a real, highly
// compressible photo-sized image still accepted. IDX and CSV inputs read a few samples at a time, exactly as
// when read at once.

#include "test_datasets.h"

#include "model_inputs.h"

#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QTest>
#include <QtEndian>

using namespace ty;

namespace {

SampleFormat grayImages28()
{
    SampleFormat format;
    format.sampleShape = {1, 28, 28};
    format.scale = 1.0f / 255.0f;
    return format;
}

// A 24-bit BMP header (file header and BITMAPINFOHEADER) claiming width x height, followed by `data` bytes.
QByteArray bmpHeader(qint32 width, qint32 height, int data)
{
    QByteArray bytes(54, '\0');
    char *b = bytes.data();
    b[0] = 'B';
    b[1] = 'M';
    qToLittleEndian<quint32>(quint32(54 + data), b + 2);
    qToLittleEndian<quint32>(54, b + 10);  // where the pixels start
    qToLittleEndian<quint32>(40, b + 14);  // BITMAPINFOHEADER
    qToLittleEndian<qint32>(width, b + 18);
    qToLittleEndian<qint32>(height, b + 22);
    qToLittleEndian<quint16>(1, b + 26);   // planes
    qToLittleEndian<quint16>(24, b + 28);  // bits per pixel
    return bytes + QByteArray(data, '\x7f');
}

} // namespace

void TestDatasets::imageInputsTakeTheModelsShape()
{
    QImage image(56, 56, QImage::Format_Grayscale8);
    for (int y = 0; y < 56; ++y)
        for (int x = 0; x < 56; ++x)
            image.setPixel(x, y, qRgb(x < 28 ? 0 : 255, x < 28 ? 0 : 255, x < 28 ? 0 : 255));
    const QString path = m_dir.filePath(QStringLiteral("half.png"));
    QVERIFY(image.save(path));
    const Result<ModelInputs> read = readModelInputs({path}, grayImages28());
    QVERIFY2(read.ok(), qPrintable(read.ok() ? QString() : read.error().toString()));
    QCOMPARE(read.value().samples.count, 1);
    QCOMPARE(read.value().names, QStringList{QStringLiteral("half.png")});
    const std::vector<float> &values = read.value().samples.floats;
    QCOMPARE(values.size(), size_t(28 * 28));
    QCOMPARE(values.at(14 * 28 + 2), 0.0f);   // left half black
    QCOMPARE(values.at(14 * 28 + 25), 1.0f);  // right half white, on the data set's scale
}

void TestDatasets::imageClaimingMorePixelsThanItHoldsIsRefused()
{
    // 58 bytes claiming 3 x 15,138,818 pixels: QImage would decode 136 MB from it.
    const QString path = m_dir.filePath(QStringLiteral("tall.bmp"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(bmpHeader(3, 15'138'818, 4));
    file.close();
    const Result<ModelInputs> read = readModelInputs({path}, grayImages28());
    QVERIFY(!read.ok());
    QCOMPARE(read.error().file, path);
    QVERIFY2(read.error().message.contains(QStringLiteral("claims 3 x 15138818 pixels, more than a file of 58 bytes")),
             qPrintable(read.error().message));

    // A photo-sized image of one colour compresses to a few kilobytes and is read.
    QImage uniform(4000, 3000, QImage::Format_Grayscale8);
    uniform.fill(200);
    const QString big = m_dir.filePath(QStringLiteral("uniform.png"));
    QVERIFY(uniform.save(big));
    QVERIFY(QFileInfo(big).size() < 100'000);
    const Result<ModelInputs> readBig = readModelInputs({big}, grayImages28());
    QVERIFY2(readBig.ok(), qPrintable(readBig.ok() ? QString() : readBig.error().toString()));
    QCOMPARE(readBig.value().samples.floats.at(0), 200.0f / 255.0f);
}

namespace {

// Every sample of `stream`, read `piece` at a time.
Result<ModelInputs> readInPieces(ModelInputStream &stream, int64_t piece, std::vector<int64_t> *counts)
{
    ModelInputs all;
    for (;;) {
        Result<ModelInputs> next = stream.next(piece);
        if (!next)
            return next.error();
        counts->push_back(next.value().samples.count);
        if (next.value().samples.count == 0)
            return all;
        all.samples.count += next.value().samples.count;
        all.samples.floats.insert(all.samples.floats.end(), next.value().samples.floats.begin(), next.value().samples.floats.end());
        all.names += next.value().names;
    }
}

} // namespace

void TestDatasets::modelInputsStreamInPieces()
{
    // Two IDX files of 2x2 byte images, 10 and 4 samples: pieces of 3 cross the boundary between them.
    SampleFormat images;
    images.sampleShape = {1, 2, 2};
    images.scale = 0.5f;
    QStringList idxFiles;
    for (int samples : {10, 4}) {
        QByteArray bytes;
        for (quint32 word : {quint32(0x00000803), quint32(samples), 2u, 2u}) {
            char be[4];
            qToBigEndian(word, be);
            bytes.append(be, 4);
        }
        for (int i = 0; i < samples * 4; ++i)
            bytes.append(char(i % 250));
        idxFiles << m_dir.filePath(QStringLiteral("pieces-%1.idx").arg(samples));
        QFile file(idxFiles.last());
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(bytes);
    }
    const Result<ModelInputs> whole = readModelInputs(idxFiles, images);
    QVERIFY2(whole.ok(), qPrintable(whole.ok() ? QString() : whole.error().toString()));
    QCOMPARE(whole.value().samples.count, 14);
    QCOMPARE(whole.value().samples.floats.at(4 * 7 + 1), float(29) * 0.5f);
    ModelInputStream idxStream(idxFiles, images);
    std::vector<int64_t> counts;
    const Result<ModelInputs> pieces = readInPieces(idxStream, 3, &counts);
    QVERIFY2(pieces.ok(), qPrintable(pieces.ok() ? QString() : pieces.error().toString()));
    QCOMPARE(counts, (std::vector<int64_t>{3, 3, 3, 3, 2, 0}));
    QCOMPARE(pieces.value().samples.floats, whole.value().samples.floats);
    QCOMPARE(pieces.value().names, whole.value().names);
    QCOMPARE(pieces.value().names.at(11), QStringLiteral("pieces-4.idx[1]"));

    // A CSV file with blank lines, with and without a header: pieces of 2 rows, the file's own line numbers.
    SampleFormat table;
    table.sampleShape = {2};
    table.featureNames = {QStringLiteral("a"), QStringLiteral("b")};
    const struct {
        const char *text;
        QStringList names;
    } csvs[] = {
        {"\na,b,y\n1,2,0\n\n3,4,1\n5,6,0\n\n7,8,1\n9,10,0\n",
         {QStringLiteral("t.csv line 3"), QStringLiteral("t.csv line 5"), QStringLiteral("t.csv line 6"), QStringLiteral("t.csv line 8"),
          QStringLiteral("t.csv line 9")}},
        {"1,2,0\n3,4,1\n\n5,6,0\n", {QStringLiteral("t.csv line 1"), QStringLiteral("t.csv line 2"), QStringLiteral("t.csv line 4")}},
    };
    for (const auto &csv : csvs) {
        const QString path = m_dir.filePath(QStringLiteral("t.csv"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(csv.text);
        file.close();
        if (csv.names.size() == 3)
            table.featureNames = {QStringLiteral("column1"), QStringLiteral("column2")};
        const Result<ModelInputs> all = readModelInputs({path}, table);
        QVERIFY2(all.ok(), qPrintable(all.ok() ? QString() : all.error().toString()));
        QCOMPARE(all.value().names, csv.names);
        ModelInputStream stream({path}, table);
        std::vector<int64_t> csvCounts;
        const Result<ModelInputs> read = readInPieces(stream, 2, &csvCounts);
        QVERIFY2(read.ok(), qPrintable(read.ok() ? QString() : read.error().toString()));
        QCOMPARE(read.value().names, csv.names);
        QCOMPARE(read.value().samples.floats, all.value().samples.floats);
        QCOMPARE(read.value().samples.floats.front(), 1.0f);
    }

    // A bad cell in a later piece names its line in the file.
    const QString bad = m_dir.filePath(QStringLiteral("bad.csv"));
    QFile file(bad);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("a,b,y\n1,2,0\n3,4,1\n\n5,x,0\n");
    file.close();
    table.featureNames = {QStringLiteral("a"), QStringLiteral("b")};
    ModelInputStream stream({bad}, table);
    QVERIFY(stream.next(2).ok());
    const Result<ModelInputs> refused = stream.next(2);
    QVERIFY(!refused.ok());
    QVERIFY2(refused.error().message.contains(QStringLiteral("line 5: column \"b\"")), qPrintable(refused.error().toString()));
    QVERIFY(stream.next(2).ok() && stream.next(2).value().samples.count == 0);  // ended after the error
}

