#include "onnx_export_rules.h"

#include <algorithm>

namespace ty {

const OnnxExportRules &OnnxExportRules::builtin()
{
    static const OnnxExportRules rules = [] {
        OnnxExportRules r;
        addTransformExportRules(r);
        addLayerExportRules(r);
        addSequenceExportRules(r);
        addImageLayerExportRules(r);
        addDimensionExportRules(r);
        return r;
    }();
    return rules;
}

void OnnxExportRules::add(const QString &blockType, OnnxExportRule rule) { m_rules.insert(blockType, std::move(rule)); }

void OnnxExportRules::remove(const QString &blockType) { m_rules.remove(blockType); }

const OnnxExportRule *OnnxExportRules::find(const QString &blockType) const
{
    const auto it = m_rules.constFind(blockType);
    return it == m_rules.constEnd() ? nullptr : &it.value();
}

QStringList OnnxExportRules::blockTypes() const
{
    QStringList types = m_rules.keys();
    std::sort(types.begin(), types.end());
    return types;
}

} // namespace ty
