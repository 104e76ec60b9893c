#include "run_bundle_file.h"

#include "regular_file.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QtEndian>

#include <cstring>

namespace ty {

namespace {

const QByteArray kMagic = QByteArrayLiteral("TYBUNDLE");
const QByteArray kFooterMark = QByteArrayLiteral("TYBNDEND");
constexpr qint64 kHeaderSize = 16;
constexpr qint64 kFooterSize = 8 + 8 + 8 + 32;
// A manifest holds records, presets and events, never the bulk rows: far below this.
constexpr qint64 kMaxManifestBytes = 256LL * 1024 * 1024;

QByteArray littleEndian64(quint64 value)
{
    QByteArray bytes(8, Qt::Uninitialized);
    qToLittleEndian(value, bytes.data());
    return bytes;
}

QByteArray littleEndian32(quint32 value)
{
    QByteArray bytes(4, Qt::Uninitialized);
    qToLittleEndian(value, bytes.data());
    return bytes;
}

Error bundleError(const QString &path, const QString &message) { return Error::inFile(path, message); }

} // namespace

bool looksLikeRunBundle(const QString &path)
{
    const QFileInfo info(path);
    if (!info.isFile())
        return false;
    if (info.suffix().compare(QLatin1String(kRunBundleSuffix), Qt::CaseInsensitive) == 0)
        return true;
    QFile file(path);
    return file.open(QIODevice::ReadOnly) && file.read(kMagic.size()) == kMagic;
}

RunBundleWriter::~RunBundleWriter()
{
    if (m_file && !m_finished) {
        m_file->close();
        QFile::remove(m_file->fileName());
    }
}

Status RunBundleWriter::open(const QString &path)
{
    m_path = path;
    if (QFileInfo(path).isDir())
        return bundleError(path, QStringLiteral("is a folder, not a bundle file"));
    const QString folder = QFileInfo(path).absolutePath();
    if (!QDir().mkpath(folder))
        return bundleError(path, QStringLiteral("cannot create the folder %1").arg(folder));
    m_file = std::make_unique<QFile>(path + QStringLiteral(".part"));
    if (!m_file->open(QIODevice::WriteOnly | QIODevice::Truncate))
        return bundleError(path, QStringLiteral("cannot write %1: %2").arg(m_file->fileName(), m_file->errorString()));
    return write(kMagic + littleEndian32(kRunBundleVersion) + littleEndian32(0));
}

Status RunBundleWriter::write(const QByteArray &bytes)
{
    if (m_file->write(bytes) != bytes.size())
        return bundleError(m_path, QStringLiteral("cannot write %1: %2").arg(m_file->fileName(), m_file->errorString()));
    m_hash.addData(bytes);
    m_size += bytes.size();
    return Status::success();
}

Result<qint64> RunBundleWriter::addBlock(const QByteArray &bytes)
{
    const qint64 offset = m_size;
    if (Status written = write(bytes); !written)
        return written.error();
    return offset;
}

Result<qint64> RunBundleWriter::addFileBlock(const QString &file, const QString &expectedSha256, qint64 *length)
{
    if (Status regular = requireRegularFile(file); !regular)
        return regular.error();
    QFile in(file);
    if (!in.open(QIODevice::ReadOnly))
        return Error::inFile(file, QStringLiteral("cannot read: %1").arg(in.errorString()));
    const qint64 offset = m_size;
    Sha256 fileHash;
    QByteArray chunk;
    while (!(chunk = in.read(1 << 20)).isEmpty()) {
        fileHash.addData(chunk);
        if (Status written = write(chunk); !written)
            return written.error();
    }
    if (in.error() != QFileDevice::NoError)
        return Error::inFile(file, QStringLiteral("cannot read: %1").arg(in.errorString()));
    if (!expectedSha256.isEmpty() && QString::fromLatin1(fileHash.result().toHex()) != expectedSha256)
        return Error::inFile(file, QStringLiteral("does not match the sha256 recorded when it was written (%1): it was changed since")
                                       .arg(expectedSha256));
    *length = m_size - offset;
    return offset;
}

Status RunBundleWriter::finish(const QJsonObject &manifest)
{
    const QByteArray json = QJsonDocument(manifest).toJson(QJsonDocument::Compact);
    const qint64 manifestOffset = m_size;
    if (Status written = write(json); !written)
        return written;
    if (Status written = write(littleEndian64(quint64(manifestOffset)) + littleEndian64(quint64(json.size())) + kFooterMark); !written)
        return written;
    const QByteArray digest = m_hash.result();
    if (m_file->write(digest) != digest.size() || !m_file->flush())
        return bundleError(m_path, QStringLiteral("cannot write %1: %2").arg(m_file->fileName(), m_file->errorString()));
    m_file->close();
    QFile::remove(m_path);
    if (!QFile::rename(m_file->fileName(), m_path))
        return bundleError(m_path, QStringLiteral("cannot rename %1 into place").arg(m_file->fileName()));
    m_finished = true;
    return Status::success();
}

RunBundleFile::~RunBundleFile()
{
    if (m_data)
        m_file.unmap(const_cast<uchar *>(m_data));
}

Status RunBundleFile::open(const QString &path)
{
    m_path = path;
    if (Status regular = requireRegularFile(path); !regular)
        return regular;
    m_file.setFileName(path);
    if (!m_file.open(QIODevice::ReadOnly))
        return bundleError(path, QStringLiteral("cannot read: %1").arg(m_file.errorString()));
    m_size = m_file.size();
    if (m_size < kHeaderSize + kFooterSize)
        return bundleError(path, QStringLiteral("is not a Trainyard run bundle (too short: %1 bytes)").arg(m_size));
    m_data = m_file.map(0, m_size);
    if (!m_data)
        return bundleError(path, QStringLiteral("cannot map the file: %1").arg(m_file.errorString()));
    if (std::memcmp(m_data, kMagic.constData(), 8) != 0)
        return bundleError(path, QStringLiteral("is not a Trainyard run bundle (it does not begin with TYBUNDLE)"));
    const quint32 version = qFromLittleEndian<quint32>(m_data + 8);
    if (version > kRunBundleVersion)
        return bundleError(path, QStringLiteral("was written by a newer Trainyard (bundle version %1; this build reads up to %2)")
                                     .arg(version)
                                     .arg(kRunBundleVersion));
    if (version == 0)
        return bundleError(path, QStringLiteral("is damaged: bundle version 0"));

    // The checksum first: nothing of a damaged file is parsed.
    const uchar *footer = m_data + m_size - kFooterSize;
    Sha256 hash;
    for (qint64 at = 0; at < m_size - 32; at += 1 << 24)
        hash.addData(QByteArrayView(m_data + at, std::min<qint64>(1 << 24, m_size - 32 - at)));
    if (hash.result() != QByteArray::fromRawData(reinterpret_cast<const char *>(footer + 24), 32))
        return bundleError(path, QStringLiteral("is damaged or was altered: its sha256 does not match its contents"));
    if (std::memcmp(footer + 16, kFooterMark.constData(), 8) != 0)
        return bundleError(path, QStringLiteral("is damaged: no end mark"));

    const quint64 manifestOffset = qFromLittleEndian<quint64>(footer);
    const quint64 manifestLength = qFromLittleEndian<quint64>(footer + 8);
    const quint64 footerOffset = quint64(m_size - kFooterSize);
    if (manifestOffset < quint64(kHeaderSize) || manifestOffset > footerOffset || manifestLength != footerOffset - manifestOffset
        || manifestLength > quint64(kMaxManifestBytes))
        return bundleError(path, QStringLiteral("is damaged: the manifest's place (%1, %2 bytes) is not before the footer")
                                     .arg(manifestOffset)
                                     .arg(manifestLength));
    m_blocksEnd = qint64(manifestOffset);
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(
        QByteArray::fromRawData(reinterpret_cast<const char *>(m_data + manifestOffset), qsizetype(manifestLength)), &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject())
        return bundleError(path, QStringLiteral("is damaged: its manifest is not a JSON object (%1 at byte %2)")
                                     .arg(parseError.errorString())
                                     .arg(parseError.offset));
    m_manifest = doc.object();
    return Status::success();
}

Result<QByteArray> RunBundleFile::block(qint64 offset, qint64 length, const QString &what) const
{
    if (offset < kHeaderSize || length < 0 || offset > m_blocksEnd || length > m_blocksEnd - offset)
        return Error::inFile(m_path, QStringLiteral("the block at %1 (%2 bytes) is outside the bundle's data").arg(offset).arg(length), what);
    return QByteArray::fromRawData(reinterpret_cast<const char *>(m_data + offset), qsizetype(length));
}

} // namespace ty
