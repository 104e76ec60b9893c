// New inputs for a trained model from image files: read at the model's channels and size, and an image whose
// header claims far more pixels than its file can hold refused before it is decoded; a real, highly
// compressible photo-sized image still accepted.

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
