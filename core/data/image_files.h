#pragma once
// Decoding many image files into one array, on worker threads, with a cache of what was decoded.
//
// The cache: decoding 70,000 small PNG files takes seconds, reading their decoded bytes back a fraction of one.
// Each decode of a list of files is kept in the cache folder (imageCacheDir) under a key made of the format
// (channels, size, fit) and every file's path, size and modification time, so a changed, added, removed or
// renamed file makes a new key. A cache file is plain data: a header line, the fingerprint, the byte count and the
// bytes; one that does not match its expected size is ignored and decoded again. Writing it is best effort (a
// read-only or full disk only costs the next run its speed).

#include "error.h"
#include "image_decoding.h"
#include "sample_store.h"

#include <QStringList>

#include <cstdint>
#include <memory>
#include <vector>

namespace ty {

struct DecodedImages {
    std::vector<uint8_t> bytes;   // sample i at [i * sampleSize, (i + 1) * sampleSize), CHW
    QString fingerprint;          // sha256 (hex) over the sha256 of every file's bytes, in order
    bool fromCache = false;
};

// Decodes `paths`, in order, on `threads` worker threads (0: one per core). The first bad file of the list (the
// lowest index) is the Error, naming the file. With `useCache`, looks the list up in the cache first and keeps
// a fresh decode there.
Result<DecodedImages> decodeImageFiles(const QStringList &paths, const ImageFormat &format, int threads, bool useCache);

// The same decode for a run that streams its data: the decoded images go to a file, never all into memory, and
// are read back by index (sample_store.h). With `useCache` the file is the cache entry (found, or written in
// chunks); without, or when the cache folder cannot be written, a temporary file that goes with the store.
struct StoredImages {
    std::shared_ptr<const SampleStore> store;
    QString fingerprint;  // as DecodedImages's
    bool fromCache = false;
};
Result<StoredImages> decodeImageFilesToStore(const QStringList &paths, const ImageFormat &format, int threads, bool useCache);

// $TRAINYARD_CACHE_DIR, else $XDG_CACHE_HOME/trainyard, else ~/.cache/trainyard; then /images.
QString imageCacheDir();

} // namespace ty
