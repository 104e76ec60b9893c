#include "regular_file.h"

#include <QFile>

#include <algorithm>

#include <sys/stat.h>

namespace ty {

Status requireRegularFile(const QString &path)
{
    Error e;
    e.file = path;
    struct stat info {};
    if (::stat(QFile::encodeName(path).constData(), &info) != 0) {
        e.message = QStringLiteral("file not found");
        return e;
    }
    if (S_ISREG(info.st_mode))
        return Status::success();
    const char *kind = S_ISDIR(info.st_mode) ? "a folder" : S_ISFIFO(info.st_mode) ? "a FIFO"
                     : S_ISCHR(info.st_mode) || S_ISBLK(info.st_mode) ? "a device" : S_ISSOCK(info.st_mode) ? "a socket" : "special";
    e.message = QStringLiteral("not a regular file (%1)").arg(QLatin1String(kind));
    return e;
}

Status requireRealFolder(const QString &folder)
{
    struct stat info {};
    if (::lstat(QFile::encodeName(folder).constData(), &info) != 0)
        return Status::success();  // missing: it is created as a real folder
    if (S_ISDIR(info.st_mode))
        return Status::success();
    Error e;
    e.file = folder;
    if (S_ISLNK(info.st_mode)) {
        const QString target = QFile::symLinkTarget(folder);
        e.message = QStringLiteral("is a symbolic link (to %1): a run's files are written and deleted only in a folder of its own, "
                                   "never through a link")
                        .arg(target.isEmpty() ? QStringLiteral("nothing") : target);
    } else {
        e.message = QStringLiteral("is not a folder");
    }
    return e;
}

QByteArray readAtMost(QIODevice &device, qint64 limit)
{
    constexpr qint64 kChunk = 64 * 1024;
    const qint64 size = device.isSequential() ? 0 : device.size();
    QByteArray out;
    while (out.size() <= limit) {
        // The rest of the file and one byte more (to see it end, or grow), at least a chunk, at most the limit's.
        const qint64 want = std::min<qint64>(limit + 1 - out.size(), std::max<qint64>(size + 1 - out.size(), kChunk));
        const QByteArray part = device.read(want);
        if (part.isEmpty())
            break;
        out += part;
    }
    return out;
}

} // namespace ty
