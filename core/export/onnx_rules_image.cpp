// Export rules of the image layers beyond convolution and pooling, each computing what the engine's module
// computes in evaluation mode.

#include "onnx_export_rules.h"

namespace ty {

namespace {

using Attr = OnnxAttribute;

// ConvTranspose keeps LibTorch's weight layout [in, out, kernel, kernel].
Result<QString> convTranspose2d(const PlannedOp &op, const QStringList &inputs, OnnxGraphBuilder &graph)
{
    const Result<QString> weight = graph.weight(op.nodeId, QStringLiteral("weight"));
    if (!weight)
        return weight;
    QStringList convInputs{inputs.value(0), weight.value()};
    if (op.params.value(QStringLiteral("bias")).toBool()) {
        const Result<QString> bias = graph.weight(op.nodeId, QStringLiteral("bias"));
        if (!bias)
            return bias;
        convInputs.append(bias.value());
    }
    const SlidingWindow w = slidingWindow(op.params);
    const qint64 extra = intParamOf(op, "output_padding");
    return graph.apply(QStringLiteral("ConvTranspose"), op.nodeId, convInputs,
                       {Attr::integers(QStringLiteral("kernel_shape"), {w.kernel, w.kernel}),
                        Attr::integers(QStringLiteral("strides"), {w.stride, w.stride}),
                        Attr::integers(QStringLiteral("pads"), {w.padding, w.padding, w.padding, w.padding}),
                        Attr::integers(QStringLiteral("output_padding"), {extra, extra})});
}

// Resize by whole factors: nearest as LibTorch's (floor of output / scale), bilinear without corner alignment.
Result<QString> upsample(const PlannedOp &op, const QStringList &inputs, OnnxGraphBuilder &graph)
{
    const float scale = float(intParamOf(op, "scale"));
    const QString scales = graph.apply(QStringLiteral("Constant"), op.nodeId + QStringLiteral("/scales"), {},
                                       {Attr::reals(QStringLiteral("value_floats"), {1.0f, 1.0f, scale, scale})});
    const bool bilinear = op.params.value(QStringLiteral("mode")).toString() == QStringLiteral("bilinear");
    std::vector<OnnxAttribute> attributes{Attr::text(QStringLiteral("mode"), bilinear ? QStringLiteral("linear") : QStringLiteral("nearest"))};
    if (bilinear) {
        attributes.push_back(Attr::text(QStringLiteral("coordinate_transformation_mode"), QStringLiteral("pytorch_half_pixel")));
    } else {
        attributes.push_back(Attr::text(QStringLiteral("coordinate_transformation_mode"), QStringLiteral("asymmetric")));
        attributes.push_back(Attr::text(QStringLiteral("nearest_mode"), QStringLiteral("floor")));
    }
    return graph.apply(QStringLiteral("Resize"), op.nodeId, {inputs.value(0), QString(), scales}, attributes);
}

// ONNX has no adaptive pooling: an input that is a whole multiple of the output is an average pool whose window
// is that multiple; anything else has windows of unequal sizes, which no ONNX pool expresses.
Result<QString> adaptiveAvgPool2d(const PlannedOp &op, const QStringList &inputs, OnnxGraphBuilder &graph)
{
    const SampleShape in = op.inputShapes.empty() ? SampleShape{} : op.inputShapes[0];
    const qint64 h = intParamOf(op, "output_height"), w = intParamOf(op, "output_width");
    if (in.size() != 3 || in[1] % h != 0 || in[2] % w != 0)
        return Error::atNode(op.nodeId, QStringLiteral("exports to ONNX only when the input's height and width are whole multiples of the "
                                                       "output's (%1 to %2 x %3)").arg(shapeText(in)).arg(h).arg(w), QStringLiteral("output_height"));
    const qint64 kh = in[1] / h, kw = in[2] / w;
    return graph.apply(QStringLiteral("AveragePool"), op.nodeId, {inputs.value(0)},
                       {Attr::integers(QStringLiteral("kernel_shape"), {kh, kw}), Attr::integers(QStringLiteral("strides"), {kh, kw})});
}

// Opset 17 has no GroupNormalization: the statistics of each group by ReduceMean, then the learned scale and shift
// per channel.
Result<QString> groupNorm(const PlannedOp &op, const QStringList &inputs, OnnxGraphBuilder &graph)
{
    const Result<QString> scale = graph.weight(op.nodeId, QStringLiteral("weight"));
    if (!scale)
        return scale;
    const Result<QString> shift = graph.weight(op.nodeId, QStringLiteral("bias"));
    if (!shift)
        return shift;
    const SampleShape in = op.inputShapes.empty() ? SampleShape{} : op.inputShapes[0];
    const QString id = op.nodeId, x = inputs.value(0);
    const auto constant = [&](const QString &name, std::vector<qint64> values) { return intsConstant(graph, id + name, std::move(values)); };
    const std::vector<OnnxAttribute> overGroup{Attr::integers(QStringLiteral("axes"), {2}), Attr::integer(QStringLiteral("keepdims"), 1)};
    const QString grouped = graph.apply(QStringLiteral("Reshape"), id + QStringLiteral("/grouped"), {x, constant(QStringLiteral("/group_shape"), {0, intParamOf(op, "groups"), -1})});
    const QString mean = graph.apply(QStringLiteral("ReduceMean"), id + QStringLiteral("/mean"), {grouped}, overGroup);
    const QString centred = graph.apply(QStringLiteral("Sub"), id + QStringLiteral("/centred"), {grouped, mean});
    const QString squares = graph.apply(QStringLiteral("Mul"), id + QStringLiteral("/squares"), {centred, centred});
    const QString variance = graph.apply(QStringLiteral("ReduceMean"), id + QStringLiteral("/variance"), {squares}, overGroup);
    const QString shifted = graph.apply(QStringLiteral("Add"), id + QStringLiteral("/plus_eps"),
                                        {variance, graph.scalar(float(op.params.value(QStringLiteral("eps")).toDouble()), id + QStringLiteral("/eps"))});
    const QString normalized = graph.apply(QStringLiteral("Div"), id + QStringLiteral("/normalized"),
                                           {centred, graph.apply(QStringLiteral("Sqrt"), id + QStringLiteral("/std"), {shifted})});
    const QString restored = graph.apply(QStringLiteral("Reshape"), id + QStringLiteral("/restored"),
                                         {normalized, graph.apply(QStringLiteral("Shape"), id + QStringLiteral("/shape"), {x})});
    // The per-channel parameters as [channels, 1, ...] to broadcast over the other sample dimensions.
    std::vector<qint64> perChannel{in.empty() ? 1 : in[0]};
    perChannel.resize(std::max<size_t>(1, in.size()), 1);
    const QString channelShape = constant(QStringLiteral("/channel_shape"), perChannel);
    const QString scaled = graph.apply(QStringLiteral("Mul"), id + QStringLiteral("/scaled"),
                                       {restored, graph.apply(QStringLiteral("Reshape"), id + QStringLiteral("/weight_c"), {scale.value(), channelShape})});
    return graph.apply(QStringLiteral("Add"), id, {scaled, graph.apply(QStringLiteral("Reshape"), id + QStringLiteral("/bias_c"), {shift.value(), channelShape})});
}

} // namespace

void addImageLayerExportRules(OnnxExportRules &rules)
{
    rules.add(QStringLiteral("layer.conv_transpose2d"), convTranspose2d);
    rules.add(QStringLiteral("layer.upsample"), upsample);
    rules.add(QStringLiteral("layer.adaptive_avgpool2d"), adaptiveAvgPool2d);
    rules.add(QStringLiteral("layer.group_norm"), groupNorm);
    rules.add(QStringLiteral("layer.dropout2d"), identityInEvaluation);
}

} // namespace ty
