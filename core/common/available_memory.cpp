#include "available_memory.h"

#include <QFile>

namespace ty {

qint64 memAvailableFromMeminfo(const QByteArray &meminfo)
{
    return procFieldBytes(meminfo, "MemAvailable");
}

qint64 peakResidentBytes()
{
    QFile file(QStringLiteral("/proc/self/status"));
    if (!file.open(QIODevice::ReadOnly))
        return -1;
    return procFieldBytes(file.read(64 * 1024), "VmHWM");
}

qint64 procFieldBytes(const QByteArray &text, const QByteArray &field)
{
    const QByteArray prefix = field + ':';
    for (const QByteArray &line : text.split('\n')) {
        if (!line.startsWith(prefix))
            continue;
        const QList<QByteArray> fields = line.mid(prefix.size()).simplified().split(' ');
        bool ok = false;
        const qint64 value = fields.value(0).toLongLong(&ok);
        if (!ok || value < 0)
            return -1;
        const QByteArray unit = fields.value(1);
        if (unit == "kB")
            return value * 1024;  // the kernel's "kB" are KiB
        return unit.isEmpty() ? value : -1;
    }
    return -1;
}

qint64 availableHostMemory()
{
    QFile file(QStringLiteral("/proc/meminfo"));
    if (!file.open(QIODevice::ReadOnly))
        return -1;
    // A proc file reports size 0: read a bounded amount (the file is about 1.5 kB).
    return memAvailableFromMeminfo(file.read(64 * 1024));
}

qint64 memoryLimitOverride()
{
    bool ok = false;
    const qint64 bytes = qEnvironmentVariable("TRAINYARD_MEMORY_LIMIT_BYTES").trimmed().toLongLong(&ok);
    return ok && bytes > 0 ? bytes : -1;
}

} // namespace ty
