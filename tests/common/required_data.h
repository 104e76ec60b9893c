#pragma once
// Tests that need installed data (Debian's dataset-fashion-mnist, wamerican, sqlite3, python3) skip without it on
// a developer's machine, but fail where TRAINYARD_REQUIRE_DATA is set: CI sets it (.ci/run), as its set-up
// installs every one of them, so a package that went missing or moved cannot turn a suite's checks into skips.

#include <QDir>
#include <QtGlobal>
#include <QTest>

#define TY_SKIP_WITHOUT_DATA(reason)                                                                              \
    do {                                                                                                         \
        if (qEnvironmentVariableIsSet("TRAINYARD_REQUIRE_DATA"))                                                 \
            QFAIL(reason " (TRAINYARD_REQUIRE_DATA is set: CI installs this)");                                  \
        QSKIP(reason);                                                                                           \
    } while (false)

namespace tytest {

// Debian's dataset-fashion-mnist is installed: its folder holds the IDX files.
inline bool fashionMnistAvailable()
{
    const QDir dir(QStringLiteral("/usr/share/datasets/fashion-mnist"));
    return dir.exists() && !dir.entryList({QStringLiteral("train-images*")}, QDir::Files).isEmpty();
}

} // namespace tytest
