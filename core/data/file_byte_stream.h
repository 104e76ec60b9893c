#pragma once
// Reading a file that may be gzipped straight into the caller's buffer: a file starting with the gzip magic
// (1f 8b) is inflated by zlib as it is read (concatenated gzip members included), anything else is read as
// it is. Every byte read from disk, as stored, can also go into a hash, so that a file is fingerprinted in
// the same pass that decodes it. Not thread-safe: one stream per thread.

#include "error.h"

#include <QString>

#include <memory>

namespace ty {

class Sha256;

class FileByteStream {
public:
    FileByteStream();
    ~FileByteStream();
    FileByteStream(const FileByteStream &) = delete;
    FileByteStream &operator=(const FileByteStream &) = delete;

    // Opens `path`; errors name the file. `hash` (optional, not owned) receives the stored bytes.
    Status open(const QString &path, Sha256 *hash = nullptr);

    bool isGzip() const;
    qint64 storedSize() const;  // bytes on disk

    // Reads up to `count` bytes of (decompressed) data into `destination`. Returns how many were read:
    // fewer than `count` only at the end of the data (a truncated gzip stream also just ends early).
    // Corrupt gzip data or a read failure is an Error naming the file.
    Result<qint64> read(char *destination, qint64 count);

    // Reads on to the end of the file after the data the caller wanted: a gzip stream is decoded to its end
    // (the output discarded) so that its checksum is verified, and a stream cut short is an Error; the hash
    // then covers every byte of the file.
    Status finish();

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace ty
