// Shape rules of the layer.* blocks: output shapes and trainable parameter counts, which the engine's
// builders must reproduce exactly (checked at every compile and by tests/engine's shape-rule test).

#include "shape_rule_support.h"
#include "shape_rules.h"

#include <QJsonArray>

#include <algorithm>
#include <cmath>

namespace ty {

using namespace shaperules;

namespace {

const QString kInPort = QStringLiteral("in");

Result<OpShape> linearShape(const QString &nodeId, const QJsonObject &params, const std::vector<SampleShape> &inputs)
{
    const SampleShape in = firstInput(inputs);
    if (in.empty())
        return Error::atNode(nodeId, QStringLiteral("needs samples with at least one dimension"), kInPort);
    const int64_t outFeatures = intParam(params, "out_features");
    SampleShape out = in;
    out.back() = outFeatures;
    const int64_t bias = boolParam(params, "bias") ? outFeatures : 0;
    return OpShape{out, in.back() * outFeatures + bias, weightAndBias({outFeatures, in.back()}, bias)};
}

Result<OpShape> conv2dShape(const QString &nodeId, const QJsonObject &params, const std::vector<SampleShape> &inputs)
{
    const SampleShape in = firstInput(inputs);
    if (in.size() != 3)
        return Error::atNode(nodeId, QStringLiteral("expects %1 samples, got %2 (add a reshape or use layer.linear)").arg(imageSamples(), shapeText(in)), kInPort);
    const SlidingWindow w = slidingWindow(params);
    const int64_t outChannels = intParam(params, "out_channels");
    const int64_t groups = std::max<int64_t>(1, intParam(params, "groups"));
    if (in[0] % groups != 0 || outChannels % groups != 0)
        return Error::atNode(nodeId, QStringLiteral("groups %1 must divide both the %2 input channels and the %3 output channels")
                                         .arg(groups).arg(in[0]).arg(outChannels), QStringLiteral("groups"));
    if (w.kernel > in[1] + 2 * w.padding || w.kernel > in[2] + 2 * w.padding)
        return Error::atNode(nodeId, QStringLiteral("kernel %1 is larger than the padded input %2").arg(w.kernel).arg(shapeText(in)), QStringLiteral("kernel_size"));
    const int64_t bias = boolParam(params, "bias") ? outChannels : 0;
    // Each output channel sees only its group's in_channels / groups input channels.
    const int64_t inPerGroup = in[0] / groups;
    return OpShape{{outChannels, windows(in[1], w), windows(in[2], w)}, outChannels * inPerGroup * w.kernel * w.kernel + bias,
                   weightAndBias({outChannels, inPerGroup, w.kernel, w.kernel}, bias)};
}

// Batch normalisation trains a scale and a shift per channel, and keeps each channel's running mean and variance.
Result<OpShape> batchNormShape(const QString &nodeId, const SampleShape &in, bool twoD)
{
    if (twoD ? in.size() != 3 : (in.empty() || in.size() > 2))
        return Error::atNode(nodeId, QStringLiteral("expects %1 samples, got %2")
                                         .arg(twoD ? imageSamples() : QStringLiteral("[features] or [channels, length]"), shapeText(in)), kInPort);
    std::vector<LayerTensor> tensors = weightAndBias({in[0]}, in[0]);
    tensors.push_back({QStringLiteral("running_mean"), {in[0]}});
    tensors.push_back({QStringLiteral("running_var"), {in[0]}});
    return OpShape{in, 2 * in[0], tensors};
}

Result<OpShape> batchNorm1dShape(const QString &nodeId, const QJsonObject &, const std::vector<SampleShape> &inputs)
{
    return batchNormShape(nodeId, firstInput(inputs), false);
}

Result<OpShape> batchNorm2dShape(const QString &nodeId, const QJsonObject &, const std::vector<SampleShape> &inputs)
{
    return batchNormShape(nodeId, firstInput(inputs), true);
}

// Max and average pooling share their window arithmetic.
Result<OpShape> poolShape(const QString &nodeId, const QJsonObject &params, const std::vector<SampleShape> &inputs)
{
    const SampleShape in = firstInput(inputs);
    if (in.size() != 3)
        return Error::atNode(nodeId, QStringLiteral("expects %1 samples, got %2").arg(imageSamples(), shapeText(in)), kInPort);
    const SlidingWindow w = slidingWindow(params);
    if (2 * w.padding > w.kernel)
        return Error::atNode(nodeId, QStringLiteral("padding %1 is more than half the kernel size %2").arg(w.padding).arg(w.kernel), QStringLiteral("padding"));
    if (w.kernel > in[1] + 2 * w.padding || w.kernel > in[2] + 2 * w.padding)
        return Error::atNode(nodeId, QStringLiteral("kernel %1 is larger than the padded input %2").arg(w.kernel).arg(shapeText(in)), QStringLiteral("kernel_size"));
    return OpShape{{in[0], windows(in[1], w), windows(in[2], w)}, 0};
}

Result<OpShape> globalAvgPoolShape(const QString &nodeId, const QJsonObject &, const std::vector<SampleShape> &inputs)
{
    const SampleShape in = firstInput(inputs);
    if (in.size() != 3)
        return Error::atNode(nodeId, QStringLiteral("expects %1 samples, got %2").arg(imageSamples(), shapeText(in)), kInPort);
    return OpShape{{in[0]}, 0};
}

Result<OpShape> flattenShape(const QString &nodeId, const QJsonObject &, const std::vector<SampleShape> &inputs)
{
    const SampleShape in = firstInput(inputs);
    if (in.empty())
        return Error::atNode(nodeId, QStringLiteral("needs samples with at least one dimension"), kInPort);
    int64_t size = 1;
    for (int64_t d : in)
        size *= d;
    return OpShape{{size}, 0};
}

Result<OpShape> conv1dShape(const QString &nodeId, const QJsonObject &params, const std::vector<SampleShape> &inputs)
{
    const SampleShape in = firstInput(inputs);
    if (in.size() != 2)
        return Error::atNode(nodeId, QStringLiteral("expects [channels, length] samples, got %1 (add a reshape)").arg(shapeText(in)), kInPort);
    const SlidingWindow w = slidingWindow(params);
    const int64_t outChannels = intParam(params, "out_channels");
    if (w.kernel > in[1] + 2 * w.padding)
        return Error::atNode(nodeId, QStringLiteral("kernel %1 is longer than the padded input %2").arg(w.kernel).arg(shapeText(in)), QStringLiteral("kernel_size"));
    const int64_t bias = boolParam(params, "bias") ? outChannels : 0;
    return OpShape{{outChannels, windows(in[1], w)}, outChannels * in[0] * w.kernel + bias,
                   weightAndBias({outChannels, in[0], w.kernel}, bias)};
}

// A learned scale and shift per value of the last dimension.
Result<OpShape> layerNormShape(const QString &nodeId, const QJsonObject &, const std::vector<SampleShape> &inputs)
{
    const SampleShape in = firstInput(inputs);
    if (in.empty())
        return Error::atNode(nodeId, QStringLiteral("needs samples with at least one dimension"), kInPort);
    return OpShape{in, 2 * in.back(), weightAndBias({in.back()}, in.back())};
}

Result<OpShape> reshapeShape(const QString &nodeId, const QJsonObject &params, const std::vector<SampleShape> &inputs)
{
    const SampleShape in = firstInput(inputs);
    int64_t size = 1;
    for (int64_t d : in)
        size *= d;
    const QString field = QStringLiteral("shape");
    SampleShape out;
    int free = -1;
    int64_t known = 1;
    for (const QJsonValue &v : params.value(field).toArray()) {
        const double d = v.toDouble();
        if (d != std::floor(d) || (d < 1 && d != -1) || d > 1e9)
            return Error::atNode(nodeId, QStringLiteral("dimensions are whole numbers of at least 1, or -1"), field);
        if (d == -1) {
            if (free >= 0)
                return Error::atNode(nodeId, QStringLiteral("only one dimension may be -1"), field);
            free = int(out.size());
        } else {
            known *= int64_t(d);
        }
        out.push_back(int64_t(d));
    }
    if (out.empty())
        return Error::atNode(nodeId, QStringLiteral("needs at least one dimension"), field);
    if (free >= 0 && known > 0 && size % known == 0)
        out[size_t(free)] = size / known;
    int64_t outSize = 1;
    for (int64_t d : out)
        outSize *= d;
    if (outSize != size)
        return Error::atNode(nodeId, QStringLiteral("cannot give the %1 values of a %2 sample the shape %3")
                                         .arg(size).arg(shapeText(in), shapeText(out)), field);
    return OpShape{out, 0};
}

// Activations and dropout act element by element.
Result<OpShape> elementWiseShape(const QString &, const QJsonObject &, const std::vector<SampleShape> &inputs)
{
    return OpShape{firstInput(inputs), 0};
}

// The port of the i-th connected input of add or concat (a, b, then the optional ones in order).
QString joinedPort(size_t i)
{
    return QString(QChar(u'a' + int(std::min<size_t>(i, 7))));
}

Result<OpShape> addShape(const QString &nodeId, const QJsonObject &, const std::vector<SampleShape> &inputs)
{
    if (inputs.size() < 2)
        return Error::atNode(nodeId, QStringLiteral("needs at least two inputs"), QStringLiteral("b"));
    const SampleShape &a = inputs[0];
    for (size_t i = 1; i < inputs.size(); ++i)
        if (inputs[i] != a)
            return Error::atNode(nodeId, QStringLiteral("inputs must have the same shape, got %1 and %2").arg(shapeText(a), shapeText(inputs[i])),
                                 joinedPort(i));
    return OpShape{a, 0};
}

Result<OpShape> concatShape(const QString &nodeId, const QJsonObject &params, const std::vector<SampleShape> &inputs)
{
    if (inputs.size() < 2)
        return Error::atNode(nodeId, QStringLiteral("needs at least two inputs"), QStringLiteral("b"));
    const SampleShape &a = inputs[0];
    const int64_t dim = intParam(params, "dim");
    SampleShape out = a;
    for (size_t k = 1; k < inputs.size(); ++k) {
        const SampleShape &b = inputs[k];
        if (a.size() != b.size() || dim >= int64_t(a.size()))
            return Error::atNode(nodeId, QStringLiteral("cannot join %1 and %2 along dimension %3").arg(shapeText(a), shapeText(b)).arg(dim), QStringLiteral("dim"));
        for (size_t i = 0; i < a.size(); ++i)
            if (int64_t(i) != dim && a[i] != b[i])
                return Error::atNode(nodeId, QStringLiteral("inputs %1 and %2 differ outside dimension %3").arg(shapeText(a), shapeText(b)).arg(dim),
                                     joinedPort(k));
        out[size_t(dim)] += b[size_t(dim)];
    }
    return OpShape{out, 0};
}

} // namespace

void addLayerShapeRules(ShapeRules &rules)
{
    rules.ops.add(QStringLiteral("layer.linear"), linearShape);
    rules.ops.add(QStringLiteral("layer.conv2d"), conv2dShape);
    rules.ops.add(QStringLiteral("layer.batchnorm1d"), batchNorm1dShape);
    rules.ops.add(QStringLiteral("layer.batchnorm2d"), batchNorm2dShape);
    rules.ops.add(QStringLiteral("layer.maxpool2d"), poolShape);
    rules.ops.add(QStringLiteral("layer.avgpool2d"), poolShape);
    rules.ops.add(QStringLiteral("layer.global_avgpool"), globalAvgPoolShape);
    rules.ops.add(QStringLiteral("layer.flatten"), flattenShape);
    rules.ops.add(QStringLiteral("layer.conv1d"), conv1dShape);
    rules.ops.add(QStringLiteral("layer.layer_norm"), layerNormShape);
    rules.ops.add(QStringLiteral("layer.reshape"), reshapeShape);
    for (const char *elementWise : {"layer.dropout", "layer.relu", "layer.leaky_relu", "layer.gelu", "layer.tanh", "layer.sigmoid",
                                    "layer.softmax", "layer.log_softmax", "layer.silu", "layer.elu", "layer.relu6"})
        rules.ops.add(QString::fromLatin1(elementWise), elementWiseShape);
    rules.ops.add(QStringLiteral("layer.add"), addShape);
    rules.ops.add(QStringLiteral("layer.concat"), concatShape);
}

} // namespace ty
