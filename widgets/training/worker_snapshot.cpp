#include "worker_snapshot.h"

#include "preset_format.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QRandomGenerator>

namespace ty {

Preset presetForWorker(const Preset &preset)
{
    Preset out = preset;
    makePathsAbsolute(&out);
    return out;
}

Result<QString> writeWorkerSnapshot(const Preset &preset, const QString &dbPath)
{
    const QDir folder(QFileInfo(dbPath).absoluteDir().filePath(QStringLiteral("snapshots")));
    if (!folder.exists() && !QDir().mkpath(folder.path())) {
        return Error(QStringLiteral("cannot create the folder %1 for the training snapshot").arg(folder.path()));
    }
    const QString name = QStringLiteral("snapshot-%1-%2.trainyard.json")
                             .arg(QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz")))
                             .arg(QRandomGenerator::global()->generate(), 8, 16, QLatin1Char('0'));
    const QString path = folder.absoluteFilePath(name);
    if (Status saved = savePreset(presetForWorker(preset), path); !saved.ok())
        return saved.error();
    return path;
}

} // namespace ty
