#pragma once
// Decoding one image file (PNG, JPEG, BMP; grey, colour, with or without alpha) into bytes of a chosen channel
// count and size, in CHW order: what the image data sets and a trained model's new inputs share, so that training
// and prediction see the same pixels. QImage decodes (it needs no display). A decompression bomb, or a header
// claiming more pixels than the file can hold, is refused before it is decoded.

#include "error.h"

#include <QByteArray>
#include <QString>

#include <cstdint>

namespace ty {

// How an image of another size becomes the data set's: stretched to it (the aspect ratio may change), or scaled
// to cover it and cut to its centre (the aspect ratio kept, the borders lost).
enum class ImageFit { Stretch, Crop };

struct ImageFormat {
    int channels = 1;   // 1: grey, 3: RGB
    int height = 28;
    int width = 28;
    ImageFit fit = ImageFit::Stretch;

    int64_t sampleSize() const { return int64_t(channels) * height * width; }
};

// png, jpg, jpeg, bmp (compared in lower case): the files the image data sets read.
bool isImageSuffix(const QString &suffix);

// The largest image file read (a 4096 x 4096 RGB BMP is 48 MiB).
constexpr qint64 kMaxImageFileBytes = qint64(64) << 20;

// Decodes `data`, the bytes of `path` (named in errors), into out[0, format.sampleSize()).
Status decodeImage(const QByteArray &data, const QString &path, const ImageFormat &format, uint8_t *out);

// Reads `path` (a regular file of at most kMaxImageFileBytes) and decodes it; its bytes are left in `bytes` when given.
Status readImageFile(const QString &path, const ImageFormat &format, uint8_t *out, QByteArray *bytes = nullptr);

} // namespace ty
