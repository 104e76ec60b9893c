#include "sample_store.h"

#include <QFile>

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ty {

Result<std::shared_ptr<SampleStore>> SampleStore::open(const QString &path, qint64 dataOffset, int64_t sampleSize, int64_t count)
{
    std::shared_ptr<SampleStore> store(new SampleStore);
    store->m_path = path;
    store->m_dataOffset = dataOffset;
    store->m_sampleSize = sampleSize;
    store->m_count = count;
    store->m_fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_CLOEXEC);
    if (store->m_fd < 0)
        return Error::inFile(path, QStringLiteral("cannot open the decoded samples: %1").arg(QString::fromLocal8Bit(std::strerror(errno))));
    struct stat info {};
    if (::fstat(store->m_fd, &info) != 0 || qint64(info.st_size) < dataOffset + qint64(sampleSize) * count)
        return Error::inFile(path, QStringLiteral("the decoded samples file is shorter than its %1 samples").arg(count));
    return store;
}

SampleStore::~SampleStore()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

Status SampleStore::read(const int64_t *indices, int64_t n, uint8_t *out) const
{
    for (int64_t i = 0; i < n; ++i) {
        const int64_t index = indices[i];
        if (index < 0 || index >= m_count)
            return Error::inFile(m_path, QStringLiteral("sample %1 is outside the %2 decoded samples").arg(index).arg(m_count));
        uint8_t *row = out + i * m_sampleSize;
        qint64 done = 0;
        while (done < m_sampleSize) {
            const ssize_t got = ::pread(m_fd, row + done, size_t(m_sampleSize - done), off_t(m_dataOffset + index * m_sampleSize + done));
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0)
                return Error::inFile(m_path, got == 0 ? QStringLiteral("the decoded samples file was cut short while the run read it")
                                                      : QStringLiteral("cannot read the decoded samples: %1")
                                                            .arg(QString::fromLocal8Bit(std::strerror(errno))));
            done += got;
        }
    }
    return Status::success();
}

} // namespace ty
