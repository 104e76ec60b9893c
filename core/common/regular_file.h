#pragma once
// Files that Trainyard reads must be plain files: a FIFO would block the reader for ever, a device such as
// /dev/zero would grow its memory without end, a folder cannot be read at all.

#include "error.h"

#include <QString>

namespace ty {

// Success for an existing regular file (or a link to one); otherwise an Error naming the file:
// "file not found", or "not a regular file (a FIFO)" and the like.
Status requireRegularFile(const QString &path);

} // namespace ty
