#include "image_decoding.h"

#include "regular_file.h"

#include <QBuffer>
#include <QFile>
#include <QImage>
#include <QImageReader>

#include <algorithm>
#include <mutex>

namespace ty {

namespace {

constexpr qint64 kImagePixelsFloor = 1'000'000;  // any file may claim this many
constexpr qint64 kImagePixelsPerByte = 16'384;  // and this many more per byte it has

// The image at the format's size: stretched, or (crop) the centred part of the format's aspect ratio cut first
// and then scaled, so a long, thin image never becomes a huge one on the way.
QImage fitted(const QImage &image, const ImageFormat &format)
{
    if (image.width() == format.width && image.height() == format.height)
        return image;
    if (format.fit == ImageFit::Stretch)
        return image.scaled(format.width, format.height, Qt::IgnoreAspectRatio, Qt::SmoothTransformation);
    // The largest centred rectangle of the target's aspect ratio inside the image.
    const qint64 w = image.width(), h = image.height();
    qint64 cutW = w, cutH = h;
    if (w * format.height > h * format.width)
        cutW = std::max<qint64>(1, (h * format.width + format.height / 2) / format.height);
    else
        cutH = std::max<qint64>(1, (w * format.height + format.width / 2) / format.width);
    return image.copy(int((w - cutW) / 2), int((h - cutH) / 2), int(cutW), int(cutH))
        .scaled(format.width, format.height, Qt::IgnoreAspectRatio, Qt::SmoothTransformation);
}

// QImageReader's allocation limit is one setting for the whole process: set once, before the first read.
void limitImageAllocations()
{
    static std::once_flag once;
    std::call_once(once, [] { QImageReader::setAllocationLimit(256); });  // MiB: a decompression bomb is refused
}

} // namespace

bool isImageSuffix(const QString &suffix)
{
    const QString s = suffix.toLower();
    return s == QStringLiteral("png") || s == QStringLiteral("jpg") || s == QStringLiteral("jpeg") || s == QStringLiteral("bmp");
}

Status decodeImage(const QByteArray &data, const QString &path, const ImageFormat &format, uint8_t *out)
{
    QBuffer buffer;
    buffer.setData(data);
    buffer.open(QIODevice::ReadOnly);
    limitImageAllocations();
    QImageReader reader(&buffer);
    // The size its header claims, against what the file can hold: no format we read packs more than about 8,000
    // pixels into a byte (a uniform 1-bit PNG), so a 58-byte BMP claiming 45 million pixels is refused before it
    // is decoded (which would take seconds).
    if (const QSize claimed = reader.size(); claimed.isValid()) {
        const qint64 pixels = qint64(claimed.width()) * claimed.height();
        if (pixels > kImagePixelsFloor + kImagePixelsPerByte * qint64(data.size()))
            return Error::inFile(path, QStringLiteral("claims %1 x %2 pixels, more than a file of %3 bytes can hold")
                                           .arg(claimed.width())
                                           .arg(claimed.height())
                                           .arg(data.size()));
    }
    QImage image = reader.read();
    if (image.isNull())
        return Error::inFile(path, QStringLiteral("cannot read the image: %1").arg(reader.errorString()));
    image = fitted(image.convertToFormat(format.channels == 1 ? QImage::Format_Grayscale8 : QImage::Format_RGB888), format);
    if (image.isNull() || image.width() != format.width || image.height() != format.height)
        return Error::inFile(path, QStringLiteral("cannot convert the image to %1 x %2 pixels (out of memory?)").arg(format.width).arg(format.height));
    const int64_t channels = format.channels, height = format.height, width = format.width;
    for (int64_t y = 0; y < height; ++y) {
        const uchar *line = image.constScanLine(int(y));
        for (int64_t x = 0; x < width; ++x)
            for (int64_t c = 0; c < channels; ++c)
                out[(c * height + y) * width + x] = line[x * channels + c];
    }
    return Status::success();
}

Status readImageFile(const QString &path, const ImageFormat &format, uint8_t *out, QByteArray *bytes)
{
    if (Status regular = requireRegularFile(path); !regular)
        return regular;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Error::inFile(path, QStringLiteral("cannot open: %1").arg(file.errorString()));
    if (file.size() > kMaxImageFileBytes)
        return Error::inFile(path, QStringLiteral("is %1 bytes, more than the %2 an image file may have").arg(file.size()).arg(kMaxImageFileBytes));
    const QByteArray data = readAtMost(file, kMaxImageFileBytes);  // bounded, should the file grow meanwhile
    if (data.size() != file.size() || data.size() > kMaxImageFileBytes)
        return Error::inFile(path, QStringLiteral("cannot read: %1").arg(file.errorString()));
    if (Status decoded = decodeImage(data, path, format, out); !decoded)
        return decoded;
    if (bytes)
        *bytes = data;
    return Status::success();
}

} // namespace ty
