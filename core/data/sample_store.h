#pragma once
// Decoded samples kept in a file instead of memory, for data sets larger than memory: one row of `sampleSize`
// bytes per sample, read back by index. The image readers fill one (or point one at their decoded-image cache)
// when a run streams its data; the engine reads each batch's rows on a background thread (pread, safe from any
// thread). A store reads through its open descriptor, so the file may be renamed or unlinked once it is open:
// a temporary one is unlinked at once and its space is freed when the last reference goes.

#include "error.h"

#include <QString>

#include <cstdint>
#include <memory>

namespace ty {

class SampleStore {
public:
    // Opens `path`, whose rows begin at byte `dataOffset`; `count` rows must be there.
    static Result<std::shared_ptr<SampleStore>> open(const QString &path, qint64 dataOffset, int64_t sampleSize, int64_t count);
    // The name shown in messages (after the file was renamed, or "(deleted)" after it was unlinked).
    void setPath(const QString &path) { m_path = path; }
    ~SampleStore();
    SampleStore(const SampleStore &) = delete;
    SampleStore &operator=(const SampleStore &) = delete;

    // Copies the rows `indices[0..n)` into out, one after another. An Error names the file when it cannot be
    // read (removed or cut short while the run reads it).
    Status read(const int64_t *indices, int64_t n, uint8_t *out) const;

    int64_t sampleSize() const { return m_sampleSize; }
    int64_t count() const { return m_count; }
    QString path() const { return m_path; }

private:
    SampleStore() = default;
    QString m_path;
    qint64 m_dataOffset = 0;
    int64_t m_sampleSize = 0, m_count = 0;
    int m_fd = -1;
};

} // namespace ty
