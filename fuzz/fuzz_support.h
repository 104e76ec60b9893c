#pragma once
// Shared by the libFuzzer targets: readers that take a path get each input written to one scratch file in
// /dev/shm (memory, not disk), rewritten per execution, so that the real file-reading code runs.
#include <QByteArray>
#include <QString>
#include <cstddef>
#include <cstdint>

namespace ty::fuzz {

// A QCoreApplication for the process (plugin paths for image formats; Qt's file APIs), made once.
void ensureApplication();

// Writes `data` to /dev/shm/trainyard-fuzz-PID-NAME (NAME gives the suffix) and returns that path.
QString writeScratchFile(const QString &name, const uint8_t *data, size_t size);

inline QByteArray bytesOf(const uint8_t *data, size_t size)
{
    return QByteArray(reinterpret_cast<const char *>(data), qsizetype(size));
}

} // namespace ty::fuzz
