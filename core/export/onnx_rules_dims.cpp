// Export rules of the blocks that rearrange a sample's dimensions, and of the learned positional embedding. A
// sample's dimension d is the graph's axis d + 1, after the batch.

#include "onnx_export_rules.h"

#include <QJsonArray>

namespace ty {

namespace {

using Attr = OnnxAttribute;

qint64 sampleAxis(const PlannedOp &op) { return qint64(op.params.value(QStringLiteral("dim")).toDouble()) + 1; }

Result<QString> permute(const PlannedOp &op, const QStringList &inputs, OnnxGraphBuilder &graph)
{
    std::vector<qint64> order{0};
    for (const QJsonValue &v : op.params.value(QStringLiteral("dims")).toArray())
        order.push_back(qint64(v.toDouble()) + 1);
    return graph.apply(QStringLiteral("Transpose"), op.nodeId, {inputs.value(0)}, {Attr::integers(QStringLiteral("perm"), order)});
}

OnnxExportRule axisOp(const char *opType)
{
    const QString type = QString::fromLatin1(opType);
    return [type](const PlannedOp &op, const QStringList &inputs, OnnxGraphBuilder &graph) -> Result<QString> {
        return graph.apply(type, op.nodeId, {inputs.value(0), intsConstant(graph, op.nodeId + QStringLiteral("/axes"), {sampleAxis(op)})});
    };
}

// The [steps, features] table broadcast over the batch.
Result<QString> positionalEmbedding(const PlannedOp &op, const QStringList &inputs, OnnxGraphBuilder &graph)
{
    const Result<QString> table = graph.weight(op.nodeId, QStringLiteral("weight"));
    if (!table)
        return table;
    return graph.apply(QStringLiteral("Add"), op.nodeId, {inputs.value(0), table.value()});
}

} // namespace

void addDimensionExportRules(OnnxExportRules &rules)
{
    rules.add(QStringLiteral("layer.permute"), permute);
    rules.add(QStringLiteral("layer.squeeze"), axisOp("Squeeze"));
    rules.add(QStringLiteral("layer.unsqueeze"), axisOp("Unsqueeze"));
    rules.add(QStringLiteral("layer.positional_embedding"), positionalEmbedding);
}

} // namespace ty
