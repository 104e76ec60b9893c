#pragma once
// The files of the CTest fixture foreign_weights (tests/engine/make_foreign_weights.py, python3-torch): PyTorch's
// models, inputs and outputs, in TRAINYARD_FOREIGN_WEIGHTS_DIR, which the including test target defines.

#include "required_data.h"

#include <QDir>
#include <QFile>
#include <QString>

namespace tytest {

inline QString foreignWeightsFile(const QString &name)
{
    return QDir(QStringLiteral(TRAINYARD_FOREIGN_WEIGHTS_DIR)).filePath(name);
}

// Why the fixture's files are not there (empty when they are).
inline QString foreignWeightsMissing()
{
    if (QFile::exists(foreignWeightsFile(QStringLiteral("done"))))
        return QString();
    QFile unavailable(foreignWeightsFile(QStringLiteral("unavailable")));
    if (unavailable.open(QIODevice::ReadOnly))
        return QString::fromUtf8(unavailable.readAll()).trimmed();
    return QStringLiteral("the fixture has not run: ctest -R foreign_weights and the test");
}

} // namespace tytest

#define REQUIRE_FOREIGN_WEIGHTS()                                                                                \
    do {                                                                                                         \
        if (const QString missing = tytest::foreignWeightsMissing(); !missing.isEmpty()) {                       \
            qWarning("%s", qPrintable(missing));                                                                 \
            TY_SKIP_WITHOUT_DATA("the foreign_weights fixture needs python3-torch");                              \
        }                                                                                                        \
    } while (false)
