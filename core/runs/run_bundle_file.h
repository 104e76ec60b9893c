#pragma once
// The container of a run bundle (docs/run-database.md#run-bundles): one file holding a JSON manifest and the
// binary blocks it points at (metric rows, evaluation samples, checkpoint files), with a sha256 of the whole.
//
//   "TYBUNDLE"  u32 version (1)  u32 0
//   blocks...                     each referenced from the manifest by its offset and length
//   manifest                      UTF-8 JSON object
//   footer: u64 manifest offset, u64 manifest length, "TYBNDEND", sha256 of every byte before the sha256
//
// Integers are little-endian. The sha256 finds a damaged or edited file; it is not a signature (anyone can
// recompute it), so the reader also checks every field as it would a preset from elsewhere.

#include "error.h"
#include "sha256.h"

#include <QByteArray>
#include <QFile>
#include <QJsonObject>
#include <QString>

#include <memory>

namespace ty {

constexpr quint32 kRunBundleVersion = 1;
// The extension the app suggests for a bundle (the CLI writes whatever name it is given).
inline constexpr char kRunBundleSuffix[] = "tybundle";

// Whether a file dropped on the app is meant as a run bundle: named *.tybundle, or beginning with the bundle's magic
// whatever its name (a regular file; at most 8 bytes are read). Says nothing about whether the bundle is intact.
bool looksLikeRunBundle(const QString &path);

// Writes a bundle to `path` through `path`.part, renamed over `path` by finish(): a failed or abandoned export
// leaves no half-written bundle under the name asked for.
class RunBundleWriter {
public:
    RunBundleWriter() = default;
    ~RunBundleWriter();  // removes the .part file unless finish() succeeded
    RunBundleWriter(const RunBundleWriter &) = delete;
    RunBundleWriter &operator=(const RunBundleWriter &) = delete;

    Status open(const QString &path);
    // Appends a block; returns its offset in the file.
    Result<qint64> addBlock(const QByteArray &bytes);
    // Appends a file's bytes as a block, streaming, and checks them against `expectedSha256` (hex, when not empty)
    // as they pass; *length gets the size.
    Result<qint64> addFileBlock(const QString &file, const QString &expectedSha256, qint64 *length);
    // Writes the manifest and footer and renames the file into place.
    Status finish(const QJsonObject &manifest);

private:
    Status write(const QByteArray &bytes);

    QString m_path;
    std::unique_ptr<QFile> m_file;
    Sha256 m_hash;
    qint64 m_size = 0;
    bool m_finished = false;
};

// A bundle opened for reading: checked to be a regular file with the container's framing and an intact sha256
// before the manifest is parsed. The file is mapped, not read into memory.
class RunBundleFile {
public:
    RunBundleFile() = default;
    ~RunBundleFile();
    RunBundleFile(const RunBundleFile &) = delete;
    RunBundleFile &operator=(const RunBundleFile &) = delete;

    // Errors name the file and say what is wrong: not a bundle, a newer version, damaged (checksum), truncated.
    Status open(const QString &path);

    const QString &path() const { return m_path; }
    const QJsonObject &manifest() const { return m_manifest; }
    // A block's bytes (a view into the mapping, valid while this object lives), or an error naming `what` when
    // [offset, offset + length) is not inside the blocks' area.
    Result<QByteArray> block(qint64 offset, qint64 length, const QString &what) const;

private:
    QString m_path;
    QFile m_file;
    const uchar *m_data = nullptr;
    qint64 m_size = 0;
    qint64 m_blocksEnd = 0;  // where the manifest begins
    QJsonObject m_manifest;
};

} // namespace ty
