#pragma once
// SHA-256, the digest behind every recorded sha256 (checkpoints, data sets, presets, bundles). Computed by
// OpenSSL's libcrypto, which uses the processor's SHA extensions where it has them: about six times faster than
// QCryptographicHash on this project's machines (20 against 120 ms for 30 MB), and a run hashes each checkpoint it
// writes and removes, and every data file it reads. The digests are the standard ones, equal to Qt's.

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <memory>

namespace ty {

class Sha256 {
public:
    Sha256();
    ~Sha256();
    Sha256(const Sha256 &) = delete;
    Sha256 &operator=(const Sha256 &) = delete;

    void addData(QByteArrayView bytes);
    // The 32-byte digest of everything added; further calls return the same digest and addData() is not allowed.
    QByteArray result();
    QString hexResult() { return QString::fromLatin1(result().toHex()); }

    static QByteArray hash(QByteArrayView bytes);
    static QString hexHash(QByteArrayView bytes) { return QString::fromLatin1(hash(bytes).toHex()); }

private:
    struct Context;
    std::unique_ptr<Context> m_context;
    QByteArray m_result;
};

} // namespace ty
