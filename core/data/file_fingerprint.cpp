#include "file_fingerprint.h"

#include "regular_file.h"
#include "sha256.h"

#include <QFile>

#include <system_error>
#include <vector>

namespace ty {

Result<QString> fingerprintFiles(const QStringList &paths, const std::atomic<bool> *cancel)
{
    Sha256 hash;
    std::vector<char> buffer(size_t(1) << 20);
    for (const QString &path : paths) {
        if (Status regular = requireRegularFile(path); !regular)  // a FIFO would block, /dev/zero never end
            return regular.error();
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly)) {
            return Error::inFile(path, QStringLiteral("cannot open file: %1").arg(file.errorString()));
        }
        for (;;) {
            if (cancel && cancel->load()) {
                return Error(QStringLiteral("fingerprint cancelled"));
            }
            const qint64 got = file.read(buffer.data(), qint64(buffer.size()));
            if (got < 0) {
                return Error::inFile(path, QStringLiteral("read error: %1").arg(file.errorString()));
            }
            if (got == 0)
                break;
            hash.addData(QByteArrayView(buffer.data(), got));
        }
    }
    return QString::fromLatin1(hash.result().toHex());
}

namespace {

thread_local bool fingerprintsInline = false;  // trivial: no thread-exit destructor to register

} // namespace

NoFingerprintThreads::NoFingerprintThreads() : m_was(fingerprintsInline)
{
    fingerprintsInline = true;
}

NoFingerprintThreads::~NoFingerprintThreads()
{
    fingerprintsInline = m_was;
}

BackgroundFingerprint::BackgroundFingerprint(QStringList paths)
    : m_paths(std::move(paths)), m_cancel(std::make_shared<std::atomic<bool>>(false))
{
    if (fingerprintsInline)
        return;  // result() hashes on this thread
    try {
        m_future = std::async(std::launch::async, [paths = m_paths, cancel = m_cancel] {
            return fingerprintFiles(paths, cancel.get());
        });
        m_threaded = true;
    } catch (const std::system_error &) {
        m_threaded = false;  // no thread to be had: result() hashes on the caller's thread
    }
}

BackgroundFingerprint::~BackgroundFingerprint()
{
    if (m_future.valid()) {
        m_cancel->store(true);
        m_future.wait();
    }
}

Result<QString> BackgroundFingerprint::result()
{
    if (m_threaded && m_future.valid())
        return m_future.get();
    return fingerprintFiles(m_paths);
}

} // namespace ty
