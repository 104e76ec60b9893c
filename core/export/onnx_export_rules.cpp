#include "onnx_export_rules.h"

#include <algorithm>
#include <cmath>

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
        addAttentionExportRules(r);
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

qint64 intParamOf(const PlannedOp &op, const char *key) { return qint64(op.params.value(QLatin1String(key)).toDouble()); }

QString intsConstant(OnnxGraphBuilder &graph, const QString &name, std::vector<qint64> values)
{
    return graph.apply(QStringLiteral("Constant"), name, {}, {OnnxAttribute::integers(QStringLiteral("value_ints"), std::move(values))});
}

Result<QString> identityInEvaluation(const PlannedOp &, const QStringList &inputs, OnnxGraphBuilder &)
{
    return inputs.value(0);
}

QString exactGelu(OnnxGraphBuilder &graph, const QString &x, const QString &name)
{
    const QString scaled = graph.apply(QStringLiteral("Div"), name + QStringLiteral("/div_sqrt2"),
                                       {x, graph.scalar(float(std::sqrt(2.0)), name + QStringLiteral("/sqrt2"))});
    const QString erf = graph.apply(QStringLiteral("Erf"), name + QStringLiteral("/erf"), {scaled});
    const QString plusOne = graph.apply(QStringLiteral("Add"), name + QStringLiteral("/add_one"), {erf, graph.scalar(1.0f, name + QStringLiteral("/one"))});
    const QString timesX = graph.apply(QStringLiteral("Mul"), name + QStringLiteral("/mul_x"), {x, plusOne});
    return graph.apply(QStringLiteral("Mul"), name, {timesX, graph.scalar(0.5f, name + QStringLiteral("/half"))});
}

} // namespace ty
