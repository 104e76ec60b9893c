#include "preset.h"

#include "block_registry.h"
#include "json_io.h"
#include "param_values.h"
#include "preset_format.h"
#include "training_settings.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>

namespace ty {

QString Preset::baseDir() const
{
    return sourcePath.isEmpty() ? QDir::currentPath() : QFileInfo(sourcePath).absolutePath();
}

QMap<QString, QString> flattenParams(const Preset &preset)
{
    QMap<QString, QString> out;
    for (const Node &node : preset.graph.nodes) {
        const BlockDescriptor *block = BlockRegistry::builtin().find(node.block);
        if (!block)
            continue;
        const QJsonObject values = block->effectiveParams(node.params);
        for (auto it = values.constBegin(); it != values.constEnd(); ++it)
            out.insert(node.id + QLatin1Char('.') + it.key(), paramValueText(it.value()));
    }
    for (const ParamSpec &spec : trainingSpecs())
        out.insert(QStringLiteral("training.") + spec.name,
                   paramValueText(preset.training.contains(spec.name) ? preset.training.value(spec.name)
                                                                      : spec.defaultValue));
    return out;
}

QString presetHash(const Preset &preset)
{
    return QString::fromLatin1(
        QCryptographicHash::hash(canonicalJson(presetToJson(preset)), QCryptographicHash::Sha256).toHex());
}

} // namespace ty
