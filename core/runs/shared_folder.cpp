#include "shared_folder.h"

#include <QDir>
#include <QFileInfo>

#include <sys/vfs.h>

namespace ty {

namespace {

// statfs(2) f_type values (linux/magic.h).
QString fileSystemName(unsigned long type)
{
    switch (type) {
    case 0x6969:  // NFS_SUPER_MAGIC
        return QStringLiteral("NFS");
    case 0x517B:      // SMB_SUPER_MAGIC
    case 0xFF534D42:  // CIFS_MAGIC_NUMBER
    case 0xFE534D42:  // SMB2_MAGIC_NUMBER
        return QStringLiteral("SMB/CIFS");
    case 0x65735546:  // FUSE_SUPER_MAGIC
        return QStringLiteral("FUSE");
    default:
        return QString();
    }
}

} // namespace

QString sharedFileSystemOf(const QString &path)
{
    QString probe = QFileInfo(path).absoluteFilePath();
    while (!probe.isEmpty() && !QFileInfo::exists(probe)) {
        const QString parent = QFileInfo(probe).absolutePath();
        if (parent == probe)
            break;
        probe = parent;
    }
    struct statfs info {};
    if (probe.isEmpty() || statfs(QFile::encodeName(probe).constData(), &info) != 0)
        return QString();
    return fileSystemName(static_cast<unsigned long>(info.f_type) & 0xFFFFFFFFUL);
}

QString sharedFolderMessage(const QString &path, const QString &fileSystem)
{
    return QStringLiteral("%1 is on a %2 file system, where SQLite's locking and write-ahead log are not reliable: "
                          "writing it from here could corrupt it, so it is opened for reading only. Keep the run "
                          "database on a local disk (--db PATH, or the app's Open Run Database) and move runs between "
                          "machines as bundles or through the team store")
        .arg(path, fileSystem);
}

} // namespace ty
