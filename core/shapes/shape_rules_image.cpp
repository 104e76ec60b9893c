// Shape and parameter-count rules of the image layers beyond convolution and pooling: transposed convolution,
// upsampling, adaptive average pooling, group norm and channel dropout.

#include "shape_rule_support.h"
#include "shape_rules.h"

namespace ty {

using namespace shaperules;

namespace {

const QString kInPort = QStringLiteral("in");

Result<SampleShape> imageInput(const QString &nodeId, const std::vector<SampleShape> &inputs)
{
    const SampleShape in = firstInput(inputs);
    if (in.size() != 3)
        return Error::atNode(nodeId, QStringLiteral("expects %1 samples, got %2").arg(imageSamples(), shapeText(in)), kInPort);
    return in;
}

// Output side (in - 1) * stride - 2 * padding + kernel + output_padding, as torch's ConvTranspose2d.
Result<OpShape> convTranspose2dShape(const QString &nodeId, const QJsonObject &params, const std::vector<SampleShape> &inputs)
{
    const Result<SampleShape> in = imageInput(nodeId, inputs);
    if (!in)
        return in.error();
    const SlidingWindow w = slidingWindow(params);
    const int64_t extra = intParam(params, "output_padding");
    if (extra >= w.stride)
        return Error::atNode(nodeId, QStringLiteral("output_padding %1 must be smaller than the stride %2").arg(extra).arg(w.stride),
                             QStringLiteral("output_padding"));
    const auto side = [&](int64_t n) { return (n - 1) * w.stride - 2 * w.padding + w.kernel + extra; };
    const int64_t h = side(in.value()[1]), wd = side(in.value()[2]);
    if (h < 1 || wd < 1)
        return Error::atNode(nodeId, QStringLiteral("padding %1 leaves no output of a %2 input").arg(w.padding).arg(shapeText(in.value())),
                             QStringLiteral("padding"));
    const int64_t out = intParam(params, "out_channels");
    const int64_t bias = boolParam(params, "bias") ? out : 0;
    return OpShape{{out, h, wd}, in.value()[0] * out * w.kernel * w.kernel + bias,
                   weightAndBias({in.value()[0], out, w.kernel, w.kernel}, bias)};
}

Result<OpShape> upsampleShape(const QString &nodeId, const QJsonObject &params, const std::vector<SampleShape> &inputs)
{
    const Result<SampleShape> in = imageInput(nodeId, inputs);
    if (!in)
        return in.error();
    const int64_t scale = intParam(params, "scale");
    return OpShape{{in.value()[0], in.value()[1] * scale, in.value()[2] * scale}, 0};
}

// torch's adaptive pooling takes any input size; the ONNX export needs the input to be a whole multiple.
Result<OpShape> adaptiveAvgPoolShape(const QString &nodeId, const QJsonObject &params, const std::vector<SampleShape> &inputs)
{
    const Result<SampleShape> in = imageInput(nodeId, inputs);
    if (!in)
        return in.error();
    const int64_t h = intParam(params, "output_height"), w = intParam(params, "output_width");
    if (h > in.value()[1] || w > in.value()[2])
        return Error::atNode(nodeId, QStringLiteral("output %1 x %2 is larger than the input %3").arg(h).arg(w).arg(shapeText(in.value())),
                             h > in.value()[1] ? QStringLiteral("output_height") : QStringLiteral("output_width"));
    return OpShape{{in.value()[0], h, w}, 0};
}

// A scale and a shift per channel; the channels must divide into the groups.
Result<OpShape> groupNormShape(const QString &nodeId, const QJsonObject &params, const std::vector<SampleShape> &inputs)
{
    const SampleShape in = firstInput(inputs);
    if (in.size() < 2)
        return Error::atNode(nodeId, QStringLiteral("expects [channels, ...] samples, got %1").arg(shapeText(in)), kInPort);
    const int64_t groups = intParam(params, "groups");
    if (in[0] % groups != 0)
        return Error::atNode(nodeId, QStringLiteral("%1 channels do not divide into %2 groups").arg(in[0]).arg(groups), QStringLiteral("groups"));
    return OpShape{in, 2 * in[0], weightAndBias({in[0]}, in[0])};
}

Result<OpShape> dropout2dShape(const QString &nodeId, const QJsonObject &, const std::vector<SampleShape> &inputs)
{
    const Result<SampleShape> in = imageInput(nodeId, inputs);
    if (!in)
        return in.error();
    return OpShape{in.value(), 0};
}

} // namespace

void addImageLayerShapeRules(ShapeRules &rules)
{
    rules.ops.add(QStringLiteral("layer.conv_transpose2d"), convTranspose2dShape);
    rules.ops.add(QStringLiteral("layer.upsample"), upsampleShape);
    rules.ops.add(QStringLiteral("layer.adaptive_avgpool2d"), adaptiveAvgPoolShape);
    rules.ops.add(QStringLiteral("layer.group_norm"), groupNormShape);
    rules.ops.add(QStringLiteral("layer.dropout2d"), dropout2dShape);
}

} // namespace ty
