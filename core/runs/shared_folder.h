#pragma once
// Run databases on shared folders. SQLite's locks and its write-ahead log (a memory-mapped index beside the
// file) are not reliable on network and user-space file systems: two machines writing one file through NFS or
// SMB, or a FUSE mount (sshfs, rclone, cloud drives), can corrupt it. A run database found on one is opened for
// reading only, and every write is refused with sharedFolderMessage().

#include <QString>

namespace ty {

// The kind of file system `path` is on ("NFS", "SMB/CIFS", "FUSE"), when it is one of those; else empty. For a
// file that does not exist yet, its nearest existing folder's.
QString sharedFileSystemOf(const QString &path);

// Why a database on such a file system is not written, naming the safe ways.
QString sharedFolderMessage(const QString &path, const QString &fileSystem);

} // namespace ty
