#include "file_byte_stream.h"

#include "regular_file.h"
#include "sha256.h"

#include <QFile>

#include <zlib.h>

#include <algorithm>
#include <vector>

namespace ty {

namespace {
constexpr qint64 kInputChunk = 1 << 18;   // compressed bytes read from disk at a time
constexpr qint64 kMaxInflate = 1 << 30;   // zlib counts in 32-bit unsigned
} // namespace

struct FileByteStream::Impl {
    QFile file;
    QString path;
    Sha256 *hash = nullptr;
    bool gzip = false;
    bool inflateReady = false;
    bool dataEnded = false;     // gzip: no more decompressed data will come
    bool fileEnded = false;     // the stored file has been read to its end
    bool memberComplete = false; // gzip: the last member read so far ended properly (checksum verified)
    z_stream zs{};
    std::vector<unsigned char> input;

    ~Impl()
    {
        if (inflateReady)
            inflateEnd(&zs);
    }

    Error error(const QString &message) const
    {
        return Error::inFile(path, message);
    }

    // Reads stored bytes, hashing them. Returns the count, 0 at the end of the file, -1 on failure.
    qint64 readStored(char *destination, qint64 count)
    {
        const qint64 got = file.read(destination, count);
        if (got > 0 && hash)
            hash->addData(QByteArrayView(destination, got));
        if (got == 0)
            fileEnded = true;
        return got;
    }

    // Refills zlib's input when it is empty. False on a read failure.
    bool refill()
    {
        if (zs.avail_in > 0 || fileEnded)
            return true;
        const qint64 got = readStored(reinterpret_cast<char *>(input.data()), qint64(input.size()));
        if (got < 0)
            return false;
        zs.next_in = input.data();
        zs.avail_in = uInt(got);
        return true;
    }
};

FileByteStream::FileByteStream() : d(std::make_unique<Impl>()) {}
FileByteStream::~FileByteStream() = default;

Status FileByteStream::open(const QString &path, Sha256 *hash)
{
    d = std::make_unique<Impl>();
    d->path = path;
    d->hash = hash;
    d->file.setFileName(path);
    if (Status regular = requireRegularFile(path); !regular)
        return d->error(regular.error().message);
    if (!d->file.open(QIODevice::ReadOnly))
        return d->error(QStringLiteral("cannot open file: %1").arg(d->file.errorString()));

    char magic[2] = {0, 0};
    d->gzip = d->file.peek(magic, 2) == 2 && uchar(magic[0]) == 0x1f && uchar(magic[1]) == 0x8b;
    if (d->gzip) {
        d->input.resize(size_t(kInputChunk));
        if (inflateInit2(&d->zs, 15 + 16) != Z_OK)  // 15 + 16: gzip wrapper, 32 KiB window
            return d->error(QStringLiteral("cannot start the gzip decoder"));
        d->inflateReady = true;
    }
    return Status::success();
}

bool FileByteStream::isGzip() const { return d->gzip; }

qint64 FileByteStream::storedSize() const { return d->file.size(); }

Result<qint64> FileByteStream::read(char *destination, qint64 count)
{
    if (!d->file.isOpen())
        return d->error(QStringLiteral("file is not open"));
    qint64 total = 0;
    if (!d->gzip) {
        while (total < count) {
            const qint64 got = d->readStored(destination + total, count - total);
            if (got < 0)
                return d->error(QStringLiteral("read error: %1").arg(d->file.errorString()));
            if (got == 0)
                break;
            total += got;
        }
        return total;
    }

    z_stream &zs = d->zs;
    while (total < count && !d->dataEnded) {
        if (!d->refill())
            return d->error(QStringLiteral("read error: %1").arg(d->file.errorString()));
        if (zs.avail_in == 0 && d->fileEnded) {
            d->dataEnded = true;  // the gzip stream stops early: the caller sees fewer bytes than it asked for
            break;
        }
        const qint64 chunk = std::min(count - total, kMaxInflate);
        zs.next_out = reinterpret_cast<Bytef *>(destination + total);
        zs.avail_out = uInt(chunk);
        const int rc = inflate(&zs, Z_NO_FLUSH);
        total += chunk - qint64(zs.avail_out);
        if (rc == Z_STREAM_END) {
            // Another gzip member may follow; anything else after the stream is ignored.
            d->memberComplete = true;
            if (!d->refill())
                return d->error(QStringLiteral("read error: %1").arg(d->file.errorString()));
            if (zs.avail_in > 0 && zs.next_in[0] == 0x1f) {
                inflateReset(&zs);
                d->memberComplete = false;
            } else {
                d->dataEnded = true;
            }
        } else if (rc == Z_BUF_ERROR) {
            continue;  // needs more input: the loop refills
        } else if (rc != Z_OK) {
            return d->error(QStringLiteral("corrupt gzip data (%1)")
                                .arg(zs.msg ? QString::fromUtf8(zs.msg) : QStringLiteral("zlib error %1").arg(rc)));
        }
    }
    return total;
}

Status FileByteStream::finish()
{
    if (!d->file.isOpen())
        return d->error(QStringLiteral("file is not open"));
    std::vector<char> buffer(static_cast<size_t>(kInputChunk));
    if (d->gzip) {
        for (;;) {
            const Result<qint64> got = read(buffer.data(), qint64(buffer.size()));
            if (!got)
                return got.error();
            if (got.value() == 0)
                break;
        }
        if (!d->memberComplete)
            return d->error(QStringLiteral("truncated: the gzip stream is cut short"));
    }
    if (!d->hash)
        return Status::success();
    while (!d->fileEnded) {
        if (d->readStored(buffer.data(), qint64(buffer.size())) < 0)
            return d->error(QStringLiteral("read error: %1").arg(d->file.errorString()));
    }
    return Status::success();
}

} // namespace ty
