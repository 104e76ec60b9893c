#pragma once
// The fingerprint of a dataset's source files: sha256 (hex) over every file's bytes as stored, in order.
// Hashing Fashion-MNIST's 30 MB (about 20 ms, sha256.h) runs on a worker thread while the files are inflated.

#include "error.h"

#include <QStringList>

#include <atomic>
#include <future>
#include <memory>

namespace ty {

// sha256 over the stored bytes of `paths`, one after another; stops early (with an Error) when `cancel` is set.
Result<QString> fingerprintFiles(const QStringList &paths, const std::atomic<bool> *cancel = nullptr);

// fingerprintFiles() on a worker thread, started on construction. Destroying it without asking for the result
// cancels the work and waits for the thread. Owned by one thread.
class BackgroundFingerprint {
public:
    explicit BackgroundFingerprint(QStringList paths);
    ~BackgroundFingerprint();
    BackgroundFingerprint(const BackgroundFingerprint &) = delete;
    BackgroundFingerprint &operator=(const BackgroundFingerprint &) = delete;

    Result<QString> result();  // waits; call once

private:
    QStringList m_paths;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    std::future<Result<QString>> m_future;
    bool m_threaded = false;
};

// While one lives on a thread, the BackgroundFingerprints made on that thread hash on it, starting no thread of
// their own: creating a thread waits for the dynamic loader's lock, which a thread loading LibTorch holds for
// half a second and more (app/cli/run_data_prefetch.h loads a data set meanwhile).
class NoFingerprintThreads {
public:
    NoFingerprintThreads();
    ~NoFingerprintThreads();
    NoFingerprintThreads(const NoFingerprintThreads &) = delete;
    NoFingerprintThreads &operator=(const NoFingerprintThreads &) = delete;

private:
    bool m_was;
};

} // namespace ty
