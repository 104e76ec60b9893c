#include "preset.h"

#include "block_registry.h"
#include "composite_blocks.h"
#include "json_io.h"
#include "param_values.h"
#include "preset_format.h"
#include "sha256.h"
#include "training_settings.h"

#include <QDir>
#include <QFileInfo>

namespace ty {

QString Preset::baseDir() const
{
    return sourcePath.isEmpty() ? QDir::currentPath() : QFileInfo(sourcePath).absolutePath();
}

void makePathsAbsolute(Preset *preset)
{
    const QDir base(preset->baseDir());
    const auto absolute = [&base](QJsonObject *values, const QList<ParamSpec> &specs) {
        for (const ParamSpec &spec : specs) {
            const QJsonValue value = values->value(spec.name);
            if (spec.type == ParamType::Path && value.isString() && !value.toString().isEmpty()
                && QDir::isRelativePath(value.toString()))
                values->insert(spec.name, QDir::cleanPath(base.absoluteFilePath(value.toString())));
        }
    };
    for (Node &node : preset->graph.nodes)
        if (const BlockDescriptor *block = BlockRegistry::builtin().find(node.block))
            absolute(&node.params, block->params);
    absolute(&preset->training, trainingSpecs());
}

QMap<QString, QString> flattenParams(const Preset &preset)
{
    QMap<QString, QString> out;
    const BlockRegistry registry = presetBlockRegistry(preset);
    for (const Node &node : preset.graph.nodes) {
        const BlockDescriptor *block = registry.find(node.block);
        if (!block)
            continue;
        QJsonObject values = block->effectiveParams(node.params);
        for (auto it = node.params.constBegin(); it != node.params.constEnd(); ++it)
            if (it.key().contains(QLatin1Char('.')))  // a composite's inner parameter, set by path
                values.insert(it.key(), it.value());
        for (auto it = values.constBegin(); it != values.constEnd(); ++it)
            out.insert(node.id + QLatin1Char('.') + it.key(), paramValueText(it.value()));
        if (node.repeat != 1)
            out.insert(node.id + QStringLiteral(".repeat"), QString::number(node.repeat));
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
        Sha256::hash(canonicalJson(presetToJson(preset))).toHex());
}

} // namespace ty
