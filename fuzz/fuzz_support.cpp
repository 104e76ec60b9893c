#include "fuzz_support.h"

#include <QCoreApplication>
#include <QFile>
#include <cstdlib>
#include <unistd.h>

namespace ty::fuzz {

void ensureApplication()
{
    if (QCoreApplication::instance())
        return;
    static int argc = 1;
    static char name[] = "trainyard-fuzz";
    static char *argv[] = {name, nullptr};
    new QCoreApplication(argc, argv);  // lives as long as the process, as libFuzzer's targets do
}

QString writeScratchFile(const QString &name, const uint8_t *data, size_t size)
{
    const QString path = QStringLiteral("/dev/shm/trainyard-fuzz-%1-%2").arg(getpid()).arg(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)
        || file.write(reinterpret_cast<const char *>(data), qint64(size)) != qint64(size))
        std::abort();  // the scratch file is the harness's own: failing to write it is no finding
    return path;
}

} // namespace ty::fuzz
