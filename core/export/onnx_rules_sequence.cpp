// Export rules of the sequence blocks. The engine's samples are batch first ([N, steps, features]); ONNX's
// LSTM and GRU take [steps, N, features], and order their gates differently from LibTorch (LSTM: i, o, f, c
// against i, f, g, o; GRU: z, r, h against r, z, n), so the checkpoint's weights, kept as they are as
// initializers, are split by gate and joined again in ONNX's order by nodes of the graph.

#include "onnx_export_rules.h"

namespace ty {

namespace {

using Attr = OnnxAttribute;

constexpr qint64 kOnnxInt64 = 7;  // TensorProto::INT64

// Float ids to int64, then rows of the table.
Result<QString> embedding(const PlannedOp &op, const QStringList &inputs, OnnxGraphBuilder &graph)
{
    const Result<QString> table = graph.weight(op.nodeId, QStringLiteral("weight"));
    if (!table)
        return table;
    const QString ids = graph.apply(QStringLiteral("Cast"), op.nodeId + QStringLiteral("/ids"), {inputs.value(0)},
                                    {Attr::integer(QStringLiteral("to"), kOnnxInt64)});
    return graph.apply(QStringLiteral("Gather"), op.nodeId, {table.value(), ids}, {Attr::integer(QStringLiteral("axis"), 0)});
}

struct Recurrent {
    QString opType;                 // "LSTM" or "GRU"
    std::vector<int> onnxGateOrder;  // LibTorch's gate index of each ONNX gate
};

// One LibTorch tensor stacked by gate along its first dimension, its gates in ONNX's order.
Result<QString> reorderedGates(const PlannedOp &op, const QString &tensor, const Recurrent &kind, OnnxGraphBuilder &graph)
{
    const Result<QString> stored = graph.weight(op.nodeId, tensor);
    if (!stored)
        return stored;
    const QString base = op.nodeId + QLatin1Char('/') + tensor;
    QStringList gates;
    for (size_t g = 0; g < kind.onnxGateOrder.size(); ++g)
        gates << graph.freshValue(base + QStringLiteral("/gate%1").arg(g));
    graph.addNode(QStringLiteral("Split"), base + QStringLiteral("/split"), {stored.value()}, gates, {Attr::integer(QStringLiteral("axis"), 0)});
    QStringList ordered;
    for (int g : kind.onnxGateOrder)
        ordered << gates[g];
    return graph.apply(QStringLiteral("Concat"), base + QStringLiteral("/onnx"), ordered, {Attr::integer(QStringLiteral("axis"), 0)});
}

// W, R and B of one layer in ONNX's layout: [directions, gates * hidden, ...], the forward direction first.
Result<QStringList> layerWeights(const PlannedOp &op, int64_t layer, int64_t directions, const Recurrent &kind, OnnxGraphBuilder &graph)
{
    const QString axis0 = intsConstant(graph, op.nodeId + QStringLiteral("/axis0_l%1").arg(layer), {0});
    QStringList w, r, b;
    for (int64_t d = 0; d < directions; ++d) {
        const QString suffix = QStringLiteral("_l%1%2").arg(layer).arg(d == 1 ? QStringLiteral("_reverse") : QString());
        QStringList parts;
        for (const char *name : {"weight_ih", "weight_hh", "bias_ih", "bias_hh"}) {
            const Result<QString> part = reorderedGates(op, QString::fromLatin1(name) + suffix, kind, graph);
            if (!part)
                return part.error();
            parts << part.value();
        }
        const QString bias = graph.apply(QStringLiteral("Concat"), op.nodeId + QStringLiteral("/bias") + suffix, {parts[2], parts[3]},
                                         {Attr::integer(QStringLiteral("axis"), 0)});
        w << graph.apply(QStringLiteral("Unsqueeze"), op.nodeId + QStringLiteral("/W") + suffix, {parts[0], axis0});
        r << graph.apply(QStringLiteral("Unsqueeze"), op.nodeId + QStringLiteral("/R") + suffix, {parts[1], axis0});
        b << graph.apply(QStringLiteral("Unsqueeze"), op.nodeId + QStringLiteral("/B") + suffix, {bias, axis0});
    }
    if (directions == 1)
        return QStringList{w[0], r[0], b[0]};
    const auto joined = [&](const QStringList &both, const QString &what) {
        return graph.apply(QStringLiteral("Concat"), op.nodeId + QStringLiteral("/%1_l%2_both").arg(what).arg(layer), both,
                           {Attr::integer(QStringLiteral("axis"), 0)});
    };
    return QStringList{joined(w, QStringLiteral("W")), joined(r, QStringLiteral("R")), joined(b, QStringLiteral("B"))};
}

OnnxExportRule recurrent(Recurrent kind)
{
    return [kind](const PlannedOp &op, const QStringList &inputs, OnnxGraphBuilder &graph) -> Result<QString> {
        const int64_t hidden = intParamOf(op, "hidden_size");
        const int64_t layers = intParamOf(op, "num_layers");
        const int64_t directions = op.params.value(QStringLiteral("bidirectional")).toBool() ? 2 : 1;
        const bool sequence = op.params.value(QStringLiteral("output")).toString() == QStringLiteral("sequence");
        std::vector<OnnxAttribute> attributes{Attr::integer(QStringLiteral("hidden_size"), hidden),
                                              Attr::text(QStringLiteral("direction"),
                                                         directions == 2 ? QStringLiteral("bidirectional") : QStringLiteral("forward"))};
        if (kind.opType == QStringLiteral("GRU"))
            attributes.push_back(Attr::integer(QStringLiteral("linear_before_reset"), 1));  // LibTorch's GRU

        // [N, T, F] -> [T, N, F]; each layer's Y [T, dirs, N, H] -> [T, N, dirs * H] for the next.
        QString x = graph.apply(QStringLiteral("Transpose"), op.nodeId + QStringLiteral("/steps_first"), {inputs.value(0)},
                                {Attr::integers(QStringLiteral("perm"), {1, 0, 2})});
        const QString keepTwo = intsConstant(graph, op.nodeId + QStringLiteral("/joined_shape"), {0, 0, -1});
        QString y, yLast;
        for (int64_t layer = 0; layer < layers; ++layer) {
            const Result<QStringList> weights = layerWeights(op, layer, directions, kind, graph);
            if (!weights)
                return weights.error();
            const QString name = op.nodeId + QStringLiteral("/l%1").arg(layer);
            y = graph.freshValue(name + QStringLiteral("/Y"));
            yLast = graph.freshValue(name + QStringLiteral("/Y_h"));
            graph.addNode(kind.opType, name, QStringList{x} + weights.value(), {y, yLast}, attributes);
            if (layer + 1 < layers) {
                const QString stepsFirst = graph.apply(QStringLiteral("Transpose"), name + QStringLiteral("/directions_inner"), {y},
                                                       {Attr::integers(QStringLiteral("perm"), {0, 2, 1, 3})});
                x = graph.apply(QStringLiteral("Reshape"), name + QStringLiteral("/joined"), {stepsFirst, keepTwo});
            }
        }
        if (sequence) {
            const QString batchFirst = graph.apply(QStringLiteral("Transpose"), op.nodeId + QStringLiteral("/batch_first"), {y},
                                                   {Attr::integers(QStringLiteral("perm"), {2, 0, 1, 3})});
            return graph.apply(QStringLiteral("Reshape"), op.nodeId, {batchFirst, keepTwo});
        }
        const QString batchFirst = graph.apply(QStringLiteral("Transpose"), op.nodeId + QStringLiteral("/batch_first"), {yLast},
                                               {Attr::integers(QStringLiteral("perm"), {1, 0, 2})});
        return graph.apply(QStringLiteral("Reshape"), op.nodeId, {batchFirst, intsConstant(graph, op.nodeId + QStringLiteral("/state_shape"), {0, -1})});
    };
}

} // namespace

void addSequenceExportRules(OnnxExportRules &rules)
{
    rules.add(QStringLiteral("layer.embedding"), embedding);
    rules.add(QStringLiteral("layer.lstm"), recurrent({QStringLiteral("LSTM"), {0, 3, 1, 2}}));
    rules.add(QStringLiteral("layer.gru"), recurrent({QStringLiteral("GRU"), {1, 0, 2}}));
}

} // namespace ty
