#include "default_preset.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace ty {

QString bundledPresetsDir()
{
    const QStringList candidates{
        QDir(QCoreApplication::applicationDirPath()).absoluteFilePath(QStringLiteral("../share/trainyard/presets")),
        QStringLiteral(TRAINYARD_SOURCE_PRESETS_DIR),
    };
    for (const QString &dir : candidates)
        if (QFileInfo(dir).isDir())
            return QDir::cleanPath(dir);
    return QString();
}

QString defaultPresetPath()
{
    const QString dir = bundledPresetsDir();
    if (dir.isEmpty())
        return QString();
    const QString path = QDir(dir).absoluteFilePath(QStringLiteral("fashion-mnist-mlp.trainyard.json"));
    return QFileInfo::exists(path) ? path : QString();
}

} // namespace ty
