// Export rules of the attention blocks, written out of MatMul, Softmax and LayerNormalization (opset 17 has no
// attention op). They compute what LibTorch's MultiheadAttention and TransformerEncoderLayer compute in evaluation
// mode, on [N, steps, features] values; the checkpoint's weights (in_proj_weight [3E, E] holding the query, key and
// value projections one after another) stay as they are.

#include "onnx_export_rules.h"

#include <cmath>
#include <limits>

namespace ty {

namespace {

using Attr = OnnxAttribute;

// x W^T + b over the last dimension, W and b the checkpoint's `<node>.<prefix>weight` and `...bias`.
Result<QString> projection(const PlannedOp &op, const QString &x, const QString &weightName, const QString &biasName, const QString &name,
                           OnnxGraphBuilder &graph)
{
    const Result<QString> weight = graph.weight(op.nodeId, weightName);
    if (!weight)
        return weight;
    const Result<QString> bias = graph.weight(op.nodeId, biasName);
    if (!bias)
        return bias;
    const QString transposed = graph.apply(QStringLiteral("Transpose"), name + QStringLiteral("/weight_t"), {weight.value()},
                                           {Attr::integers(QStringLiteral("perm"), {1, 0})});
    const QString product = graph.apply(QStringLiteral("MatMul"), name + QStringLiteral("/matmul"), {x, transposed});
    return graph.apply(QStringLiteral("Add"), name, {product, bias.value()});
}

// Multi-head self-attention of `x` [N, L, E] with the weights under `<node>.<prefix>`.
Result<QString> selfAttention(const PlannedOp &op, const QString &x, const QString &prefix, OnnxGraphBuilder &graph)
{
    const SampleShape in = op.inputShapes.empty() ? SampleShape{} : op.inputShapes[0];
    if (in.size() != 2)
        return Error::atNode(op.nodeId, QStringLiteral("expects [steps, features] samples"), QStringLiteral("in"));
    const qint64 steps = in[0], features = in[1], heads = intParamOf(op, "heads"), perHead = features / heads;
    const QString id = op.nodeId + QLatin1Char('/') + prefix + QStringLiteral("attention");
    const Result<QString> packed = projection(op, x, prefix + QStringLiteral("in_proj_weight"), prefix + QStringLiteral("in_proj_bias"),
                                              id + QStringLiteral("/qkv"), graph);
    if (!packed)
        return packed;
    const QStringList qkv{graph.freshValue(id + QStringLiteral("/q")), graph.freshValue(id + QStringLiteral("/k")),
                          graph.freshValue(id + QStringLiteral("/v"))};
    graph.addNode(QStringLiteral("Split"), id + QStringLiteral("/split"), {packed.value()}, qkv, {Attr::integer(QStringLiteral("axis"), 2)});
    // [N, L, E] -> [N, L, H, D] -> [N, H, L, D] (keys: [N, H, D, L]).
    const QString byHead = intsConstant(graph, id + QStringLiteral("/head_shape"), {0, 0, heads, perHead});
    const auto split = [&](const QString &value, const QString &what, std::vector<qint64> perm) {
        const QString reshaped = graph.apply(QStringLiteral("Reshape"), id + QLatin1Char('/') + what + QStringLiteral("_heads"), {value, byHead});
        return graph.apply(QStringLiteral("Transpose"), id + QLatin1Char('/') + what + QStringLiteral("_t"), {reshaped},
                           {Attr::integers(QStringLiteral("perm"), std::move(perm))});
    };
    const QString q = split(qkv[0], QStringLiteral("q"), {0, 2, 1, 3});
    const QString k = split(qkv[1], QStringLiteral("k"), {0, 2, 3, 1});
    const QString v = split(qkv[2], QStringLiteral("v"), {0, 2, 1, 3});
    const QString scores = graph.apply(QStringLiteral("Mul"), id + QStringLiteral("/scaled"),
                                       {graph.apply(QStringLiteral("MatMul"), id + QStringLiteral("/scores"), {q, k}),
                                        graph.scalar(float(1.0 / std::sqrt(double(perHead))), id + QStringLiteral("/scale"))});
    QString masked = scores;
    if (op.params.value(QStringLiteral("causal")).toBool()) {
        std::vector<float> future(size_t(steps * steps), 0.0f);
        for (qint64 i = 0; i < steps; ++i)
            for (qint64 j = i + 1; j < steps; ++j)
                future[size_t(i * steps + j)] = -std::numeric_limits<float>::infinity();
        const QString flat = graph.apply(QStringLiteral("Constant"), id + QStringLiteral("/future"), {},
                                         {Attr::reals(QStringLiteral("value_floats"), future)});
        const QString mask = graph.apply(QStringLiteral("Reshape"), id + QStringLiteral("/future_mask"),
                                         {flat, intsConstant(graph, id + QStringLiteral("/mask_shape"), {steps, steps})});
        masked = graph.apply(QStringLiteral("Add"), id + QStringLiteral("/masked"), {scores, mask});
    }
    const QString weights = graph.apply(QStringLiteral("Softmax"), id + QStringLiteral("/weights"), {masked}, {Attr::integer(QStringLiteral("axis"), -1)});
    const QString mixed = graph.apply(QStringLiteral("MatMul"), id + QStringLiteral("/mixed"), {weights, v});
    const QString back = graph.apply(QStringLiteral("Transpose"), id + QStringLiteral("/steps_first"), {mixed},
                                     {Attr::integers(QStringLiteral("perm"), {0, 2, 1, 3})});
    const QString joined = graph.apply(QStringLiteral("Reshape"), id + QStringLiteral("/joined"),
                                       {back, intsConstant(graph, id + QStringLiteral("/joined_shape"), {0, 0, features})});
    return projection(op, joined, prefix + QStringLiteral("out_proj.weight"), prefix + QStringLiteral("out_proj.bias"), id, graph);
}

Result<QString> selfAttentionRule(const PlannedOp &op, const QStringList &inputs, OnnxGraphBuilder &graph)
{
    return selfAttention(op, inputs.value(0), QString(), graph);
}

Result<QString> layerNorm(const PlannedOp &op, const QString &x, const QString &norm, const QString &name, OnnxGraphBuilder &graph)
{
    const Result<QString> scale = graph.weight(op.nodeId, norm + QStringLiteral(".weight"));
    if (!scale)
        return scale;
    const Result<QString> shift = graph.weight(op.nodeId, norm + QStringLiteral(".bias"));
    if (!shift)
        return shift;
    return graph.apply(QStringLiteral("LayerNormalization"), name, {x, scale.value(), shift.value()},
                       {Attr::integer(QStringLiteral("axis"), -1), Attr::real(QStringLiteral("epsilon"), 1e-5f)});
}

// LibTorch's encoder layer (norm after each block): x = norm1(x + attention(x)); x = norm2(x + ff(x)).
Result<QString> transformerEncoder(const PlannedOp &op, const QStringList &inputs, OnnxGraphBuilder &graph)
{
    const QString id = op.nodeId, x = inputs.value(0);
    const Result<QString> attended = selfAttention(op, x, QStringLiteral("self_attn."), graph);
    if (!attended)
        return attended;
    const Result<QString> first = layerNorm(op, graph.apply(QStringLiteral("Add"), id + QStringLiteral("/residual1"), {x, attended.value()}),
                                            QStringLiteral("norm1"), id + QStringLiteral("/norm1"), graph);
    if (!first)
        return first;
    const Result<QString> widened = projection(op, first.value(), QStringLiteral("linear1.weight"), QStringLiteral("linear1.bias"),
                                               id + QStringLiteral("/linear1"), graph);
    if (!widened)
        return widened;
    const QString activated = op.params.value(QStringLiteral("activation")).toString() == QStringLiteral("gelu")
                                  ? exactGelu(graph, widened.value(), id + QStringLiteral("/gelu"))
                                  : graph.apply(QStringLiteral("Relu"), id + QStringLiteral("/relu"), {widened.value()});
    const Result<QString> narrowed = projection(op, activated, QStringLiteral("linear2.weight"), QStringLiteral("linear2.bias"),
                                                id + QStringLiteral("/linear2"), graph);
    if (!narrowed)
        return narrowed;
    return layerNorm(op, graph.apply(QStringLiteral("Add"), id + QStringLiteral("/residual2"), {first.value(), narrowed.value()}),
                     QStringLiteral("norm2"), id, graph);
}

} // namespace

void addAttentionExportRules(OnnxExportRules &rules)
{
    rules.add(QStringLiteral("layer.self_attention"), selfAttentionRule);
    rules.add(QStringLiteral("layer.transformer_encoder"), transformerEncoder);
}

} // namespace ty
