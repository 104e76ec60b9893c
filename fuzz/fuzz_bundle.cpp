// Run bundles (core/runs/run_bundle_*.h): what `trainyard-cli runs import` reads from elsewhere. The input is a
// bundle without its header and footer: a u32 length of the blocks, the blocks, then the manifest; the harness
// frames it and computes the sha256, so that mutations get past the checksum to the manifest's checks (a file
// with a wrong checksum is refused before anything is parsed). A manifest the checks accept is imported into a new
// database in /dev/shm, which must then pass its integrity check, and importing it again must add nothing.
#include "fuzz_support.h"
#include "run_bundle_file.h"
#include "run_bundle_import.h"
#include "run_bundle_manifest.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QtEndian>

#include <unistd.h>

namespace {

QByteArray littleEndian64(quint64 value)
{
    QByteArray bytes(8, Qt::Uninitialized);
    qToLittleEndian(value, bytes.data());
    return bytes;
}

QByteArray framed(const QByteArray &input)
{
    quint32 blocksLength = input.size() >= 4 ? qFromLittleEndian<quint32>(input.constData()) : 0;
    const QByteArray rest = input.mid(4);
    blocksLength = std::min<quint32>(blocksLength, quint32(rest.size()));
    QByteArray file = QByteArrayLiteral("TYBUNDLE") + QByteArray("\x01\0\0\0\0\0\0\0", 8) + rest;
    const quint64 manifestOffset = 16 + blocksLength;
    file += littleEndian64(manifestOffset) + littleEndian64(quint64(rest.size()) - blocksLength) + QByteArrayLiteral("TYBNDEND");
    file += QCryptographicHash::hash(file, QCryptographicHash::Sha256);
    return file;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ty::fuzz::ensureApplication();
    const QByteArray file = framed(ty::fuzz::bytesOf(data, size));
    const QString path = ty::fuzz::writeScratchFile(QStringLiteral("bundle"), reinterpret_cast<const uint8_t *>(file.constData()), size_t(file.size()));
    bool accepted = false;
    {
        ty::RunBundleFile bundle;
        const ty::Status opened = bundle.open(path);
        if (!opened) {
            // Framed by the harness: only the manifest's JSON may be refused here, never the framing or checksum.
            if (!opened.error().message.contains(QLatin1String("manifest is not a JSON object")))
                __builtin_trap();
            return 0;
        }
        accepted = ty::readBundleManifest(bundle).ok();
    }
    if (!accepted)
        return 0;
    const QString folder = QStringLiteral("/dev/shm/trainyard-fuzz-%1-db").arg(getpid());
    QDir(folder).removeRecursively();
    QDir().mkpath(folder);
    const QString db = folder + QStringLiteral("/runs.sqlite");
    const ty::Result<ty::RunBundleImportReport> first = ty::importRunBundle(db, path);
    if (first) {
        const ty::Result<ty::RunBundleImportReport> again = ty::importRunBundle(db, path);
        if (!again || again.value().runsAdded() != 0 || again.value().sweepsAdded() != 0)
            __builtin_trap();
    }
    QDir(folder).removeRecursively();
    return 0;
}
