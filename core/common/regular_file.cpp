#include "regular_file.h"

#include <QFile>

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

} // namespace ty
