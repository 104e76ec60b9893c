#include "pickled_file.h"

#include <QFileInfo>
#include <QStringList>

namespace ty {

namespace {

// The safetensors format: an 8-byte header length, then the header's JSON object.
bool startsLikeSafetensors(const QByteArray &firstBytes)
{
    return firstBytes.size() >= 9 && firstBytes.at(8) == '{';
}

// "a zip archive", "a pickle" or "" by the bytes alone.
QString pickleKind(const QByteArray &firstBytes)
{
    if (firstBytes.startsWith(QByteArray("PK\x03\x04", 4)) || firstBytes.startsWith(QByteArray("PK\x05\x06", 4)))
        return QStringLiteral("a zip archive, as torch.save writes");
    // PROTO opcode 0x80 and a protocol number; a safetensors header of 0x0280 bytes could start so, but not
    // with its 9th byte a "{" as well.
    if (firstBytes.size() >= 2 && quint8(firstBytes.at(0)) == 0x80 && firstBytes.at(1) >= 2 && firstBytes.at(1) <= 5
        && !startsLikeSafetensors(firstBytes))
        return QStringLiteral("a pickle, as torch.save writes with the legacy format");
    return QString();
}

} // namespace

Status refusePickledFile(const QString &path, const QByteArray &firstBytes)
{
    static const QStringList pickleSuffixes{QStringLiteral("pt"), QStringLiteral("pth"), QStringLiteral("bin"),
                                            QStringLiteral("pkl"), QStringLiteral("ckpt")};
    QString kind = pickleKind(firstBytes);
    if (kind.isEmpty() && pickleSuffixes.contains(QFileInfo(path).suffix().toLower()) && !startsLikeSafetensors(firstBytes))
        kind = QStringLiteral("a .%1 file that is not a safetensors file").arg(QFileInfo(path).suffix().toLower());
    if (kind.isEmpty())
        return Status::success();
    return Error::inFile(path, QStringLiteral(
        "%1 (%2): Trainyard never opens pickles, since loading one can run any code it holds. "
        "Save the weights as a safetensors file instead, in Python with PyTorch and only for a file you trust: "
        "state = torch.load(\"model.pt\", map_location=\"cpu\", weights_only=True), then "
        "safetensors.torch.save_file(state, \"model.safetensors\"); without the safetensors package (Debian has none), "
        "the save_safetensors function of docs/import.md writes the same file with PyTorch alone")
                                   .arg(QLatin1String(kPickleRefusal), kind));
}

} // namespace ty
