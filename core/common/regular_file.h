#pragma once
// Files that Trainyard reads must be plain files: a FIFO would block the reader for ever, a device such as
// /dev/zero would grow its memory without end, a folder cannot be read at all.

#include "error.h"

#include <QByteArray>
#include <QString>

class QIODevice;

namespace ty {

// Success for an existing regular file (or a link to one); otherwise an Error naming the file:
// "file not found", or "not a regular file (a FIFO)" and the like.
Status requireRegularFile(const QString &path);

// Success when `folder` does not exist or is a real folder; an Error naming it when it is a symbolic link (to a
// folder or anything else) or not a folder. Trainyard writes and deletes a run's files only in folders of its
// own, never through a link that may lead anywhere.
Status requireRealFolder(const QString &folder);

// Up to `limit` + 1 bytes of an open device, so that the caller tells "more than the limit" by the size. It
// allocates about what a file holds, not the limit: QIODevice::read(n) allocates n bytes up front, which for a
// 64 MiB limit cost every small file an mmap, and under AddressSanitizer a 64 MiB memset.
QByteArray readAtMost(QIODevice &device, qint64 limit);

} // namespace ty
