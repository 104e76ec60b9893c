#include "sha256.h"

#include <openssl/evp.h>

#include <QtGlobal>

namespace ty {

struct Sha256::Context {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    ~Context() { EVP_MD_CTX_free(ctx); }
};

Sha256::Sha256() : m_context(std::make_unique<Context>())
{
    if (!m_context->ctx || EVP_DigestInit_ex(m_context->ctx, EVP_sha256(), nullptr) != 1)
        qFatal("OpenSSL cannot start a SHA-256 digest");
}

Sha256::~Sha256() = default;

void Sha256::addData(QByteArrayView bytes)
{
    Q_ASSERT(m_result.isEmpty());
    if (!bytes.isEmpty() && EVP_DigestUpdate(m_context->ctx, bytes.data(), size_t(bytes.size())) != 1)
        qFatal("OpenSSL's SHA-256 digest failed");
}

QByteArray Sha256::result()
{
    if (m_result.isEmpty()) {
        unsigned char digest[EVP_MAX_MD_SIZE];
        unsigned int length = 0;
        if (EVP_DigestFinal_ex(m_context->ctx, digest, &length) != 1 || length != 32)
            qFatal("OpenSSL's SHA-256 digest failed");
        m_result = QByteArray(reinterpret_cast<const char *>(digest), int(length));
    }
    return m_result;
}

QByteArray Sha256::hash(QByteArrayView bytes)
{
    Sha256 digest;
    digest.addData(bytes);
    return digest.result();
}

} // namespace ty
