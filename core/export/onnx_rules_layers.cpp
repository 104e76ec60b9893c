// Export rules of the layer blocks, each computing what the engine's module computes in evaluation mode
// (core/engine/detail/block_ops.cpp): batch norm on its running statistics, dropout off.

#include "onnx_export_rules.h"

#include <cmath>

namespace ty {

namespace {

using Attr = OnnxAttribute;

bool hasBias(const PlannedOp &op) { return op.params.value(QStringLiteral("bias")).toBool(); }

// The optional bias of a linear or convolution node: its initializer, or an empty name when the node has none.
Result<QString> optionalBias(const PlannedOp &op, OnnxGraphBuilder &graph)
{
    return hasBias(op) ? graph.weight(op.nodeId, QStringLiteral("bias")) : Result<QString>(QString());
}

OnnxExportRule unary(const char *opType, std::function<std::vector<OnnxAttribute>(const PlannedOp &)> attributes = {})
{
    const QString type = QString::fromLatin1(opType);
    return [type, attributes](const PlannedOp &op, const QStringList &inputs, OnnxGraphBuilder &graph) -> Result<QString> {
        return graph.apply(type, op.nodeId, {inputs.value(0)}, attributes ? attributes(op) : std::vector<OnnxAttribute>{});
    };
}

// y = x W^T + b over the last dimension: Gemm for [N, F] input, else MatMul with the transposed weight, then Add.
Result<QString> linear(const PlannedOp &op, const QStringList &inputs, OnnxGraphBuilder &graph)
{
    const Result<QString> weight = graph.weight(op.nodeId, QStringLiteral("weight"));
    if (!weight)
        return weight;
    const Result<QString> bias = optionalBias(op, graph);
    if (!bias)
        return bias;
    const size_t sampleRank = op.inputShapes.empty() ? 1 : op.inputShapes[0].size();
    if (sampleRank == 1) {
        QStringList gemmInputs{inputs.value(0), weight.value()};
        if (!bias.value().isEmpty())
            gemmInputs.append(bias.value());
        return graph.apply(QStringLiteral("Gemm"), op.nodeId, gemmInputs, {Attr::integer(QStringLiteral("transB"), 1)});
    }
    const QString transposed = graph.apply(QStringLiteral("Transpose"), op.nodeId + QStringLiteral("/weight_t"), {weight.value()},
                                           {Attr::integers(QStringLiteral("perm"), {1, 0})});
    const QString product = graph.apply(QStringLiteral("MatMul"), bias.value().isEmpty() ? op.nodeId : op.nodeId + QStringLiteral("/matmul"),
                                        {inputs.value(0), transposed});
    if (bias.value().isEmpty())
        return product;
    return graph.apply(QStringLiteral("Add"), op.nodeId, {product, bias.value()});
}

std::vector<OnnxAttribute> windowAttributes(const PlannedOp &op)
{
    const SlidingWindow w = slidingWindow(op.params);
    return {Attr::integers(QStringLiteral("kernel_shape"), {w.kernel, w.kernel}),
            Attr::integers(QStringLiteral("strides"), {w.stride, w.stride}),
            Attr::integers(QStringLiteral("pads"), {w.padding, w.padding, w.padding, w.padding})};
}

Result<QString> conv2d(const PlannedOp &op, const QStringList &inputs, OnnxGraphBuilder &graph)
{
    const Result<QString> weight = graph.weight(op.nodeId, QStringLiteral("weight"));
    if (!weight)
        return weight;
    const Result<QString> bias = optionalBias(op, graph);
    if (!bias)
        return bias;
    QStringList convInputs{inputs.value(0), weight.value()};
    if (!bias.value().isEmpty())
        convInputs.append(bias.value());
    std::vector<OnnxAttribute> attributes = windowAttributes(op);
    if (intParamOf(op, "groups") > 1)  // ONNX's default is one group
        attributes.push_back(Attr::integer(QStringLiteral("group"), intParamOf(op, "groups")));
    return graph.apply(QStringLiteral("Conv"), op.nodeId, convInputs, attributes);
}

// Inference batch norm on the running statistics: (x - running_mean) / sqrt(running_var + eps) * weight + bias.
Result<QString> batchNorm(const PlannedOp &op, const QStringList &inputs, OnnxGraphBuilder &graph)
{
    QStringList bnInputs{inputs.value(0)};
    for (const char *tensor : {"weight", "bias", "running_mean", "running_var"}) {
        const Result<QString> name = graph.weight(op.nodeId, QString::fromLatin1(tensor));
        if (!name)
            return name;
        bnInputs.append(name.value());
    }
    return graph.apply(QStringLiteral("BatchNormalization"), op.nodeId, bnInputs,
                       {Attr::real(QStringLiteral("epsilon"), float(op.params.value(QStringLiteral("eps")).toDouble()))});
}

// torch's avg_pool2d counts the zero padding in each window's mean.
std::vector<OnnxAttribute> averagePoolAttributes(const PlannedOp &op)
{
    std::vector<OnnxAttribute> attributes = windowAttributes(op);
    attributes.push_back(Attr::integer(QStringLiteral("count_include_pad"), 1));
    return attributes;
}

Result<QString> gelu(const PlannedOp &op, const QStringList &inputs, OnnxGraphBuilder &graph)
{
    return exactGelu(graph, inputs.value(0), op.nodeId);
}

Result<QString> conv1d(const PlannedOp &op, const QStringList &inputs, OnnxGraphBuilder &graph)
{
    const Result<QString> weight = graph.weight(op.nodeId, QStringLiteral("weight"));
    if (!weight)
        return weight;
    const Result<QString> bias = optionalBias(op, graph);
    if (!bias)
        return bias;
    QStringList convInputs{inputs.value(0), weight.value()};
    if (!bias.value().isEmpty())
        convInputs.append(bias.value());
    const SlidingWindow w = slidingWindow(op.params);
    return graph.apply(QStringLiteral("Conv"), op.nodeId, convInputs,
                       {Attr::integers(QStringLiteral("kernel_shape"), {w.kernel}), Attr::integers(QStringLiteral("strides"), {w.stride}),
                        Attr::integers(QStringLiteral("pads"), {w.padding, w.padding})});
}

Result<QString> layerNorm(const PlannedOp &op, const QStringList &inputs, OnnxGraphBuilder &graph)
{
    const Result<QString> scale = graph.weight(op.nodeId, QStringLiteral("weight"));
    if (!scale)
        return scale;
    const Result<QString> shift = graph.weight(op.nodeId, QStringLiteral("bias"));
    if (!shift)
        return shift;
    return graph.apply(QStringLiteral("LayerNormalization"), op.nodeId, {inputs.value(0), scale.value(), shift.value()},
                       {Attr::integer(QStringLiteral("axis"), -1),
                        Attr::real(QStringLiteral("epsilon"), float(op.params.value(QStringLiteral("eps")).toDouble()))});
}

// The planned output shape after the batch dimension, which Reshape keeps (0: copy that input dimension).
Result<QString> reshape(const PlannedOp &op, const QStringList &inputs, OnnxGraphBuilder &graph)
{
    std::vector<qint64> shape{0};
    for (int64_t d : op.shape.output)
        shape.push_back(d);
    return graph.apply(QStringLiteral("Reshape"), op.nodeId, {inputs.value(0), intsConstant(graph, op.nodeId + QStringLiteral("/shape"), shape)});
}

// x * sigmoid(x).
Result<QString> silu(const PlannedOp &op, const QStringList &inputs, OnnxGraphBuilder &graph)
{
    const QString gate = graph.apply(QStringLiteral("Sigmoid"), op.nodeId + QStringLiteral("/sigmoid"), {inputs.value(0)});
    return graph.apply(QStringLiteral("Mul"), op.nodeId, {inputs.value(0), gate});
}

// min(max(0, x), 6): Clip with its bounds as inputs (opset 11 and later).
Result<QString> relu6(const PlannedOp &op, const QStringList &inputs, OnnxGraphBuilder &graph)
{
    return graph.apply(QStringLiteral("Clip"), op.nodeId, {inputs.value(0), graph.scalar(0.0f, op.nodeId + QStringLiteral("/min")),
                                                           graph.scalar(6.0f, op.nodeId + QStringLiteral("/max"))});
}

Result<QString> add(const PlannedOp &op, const QStringList &inputs, OnnxGraphBuilder &graph)
{
    // Two inputs as Add, more as one variadic Sum.
    return graph.apply(inputs.size() == 2 ? QStringLiteral("Add") : QStringLiteral("Sum"), op.nodeId, inputs);
}

// `dim` counts sample dimensions; the batch dimension comes first.
Result<QString> concat(const PlannedOp &op, const QStringList &inputs, OnnxGraphBuilder &graph)
{
    return graph.apply(QStringLiteral("Concat"), op.nodeId, inputs,
                       {Attr::integer(QStringLiteral("axis"), intParamOf(op, "dim") + 1)});
}

} // namespace

void addLayerExportRules(OnnxExportRules &rules)
{
    rules.add(QStringLiteral("layer.linear"), linear);
    rules.add(QStringLiteral("layer.conv2d"), conv2d);
    rules.add(QStringLiteral("layer.batchnorm1d"), batchNorm);
    rules.add(QStringLiteral("layer.batchnorm2d"), batchNorm);
    rules.add(QStringLiteral("layer.dropout"), identityInEvaluation);
    rules.add(QStringLiteral("layer.maxpool2d"), unary("MaxPool", windowAttributes));
    rules.add(QStringLiteral("layer.avgpool2d"), unary("AveragePool", averagePoolAttributes));
    rules.add(QStringLiteral("layer.global_avgpool"), unary("ReduceMean", [](const PlannedOp &) {
                  return std::vector<OnnxAttribute>{Attr::integers(QStringLiteral("axes"), {2, 3}), Attr::integer(QStringLiteral("keepdims"), 0)};
              }));
    rules.add(QStringLiteral("layer.flatten"), unary("Flatten", [](const PlannedOp &) {
                  return std::vector<OnnxAttribute>{Attr::integer(QStringLiteral("axis"), 1)};
              }));
    rules.add(QStringLiteral("layer.relu"), unary("Relu"));
    rules.add(QStringLiteral("layer.leaky_relu"), unary("LeakyRelu", [](const PlannedOp &op) {
                  return std::vector<OnnxAttribute>{
                      Attr::real(QStringLiteral("alpha"), float(op.params.value(QStringLiteral("negative_slope")).toDouble()))};
              }));
    rules.add(QStringLiteral("layer.gelu"), gelu);
    rules.add(QStringLiteral("layer.tanh"), unary("Tanh"));
    rules.add(QStringLiteral("layer.sigmoid"), unary("Sigmoid"));
    rules.add(QStringLiteral("layer.conv1d"), conv1d);
    rules.add(QStringLiteral("layer.layer_norm"), layerNorm);
    rules.add(QStringLiteral("layer.reshape"), reshape);
    rules.add(QStringLiteral("layer.softmax"), unary("Softmax", [](const PlannedOp &) {
                  return std::vector<OnnxAttribute>{Attr::integer(QStringLiteral("axis"), -1)};
              }));
    rules.add(QStringLiteral("layer.log_softmax"), unary("LogSoftmax", [](const PlannedOp &) {
                  return std::vector<OnnxAttribute>{Attr::integer(QStringLiteral("axis"), -1)};
              }));
    rules.add(QStringLiteral("layer.silu"), silu);
    rules.add(QStringLiteral("layer.elu"), unary("Elu", [](const PlannedOp &op) {
                  return std::vector<OnnxAttribute>{Attr::real(QStringLiteral("alpha"), float(op.params.value(QStringLiteral("alpha")).toDouble()))};
              }));
    rules.add(QStringLiteral("layer.relu6"), relu6);
    rules.add(QStringLiteral("layer.add"), add);
    rules.add(QStringLiteral("layer.concat"), concat);
}

} // namespace ty
