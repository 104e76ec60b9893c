#include "block_shapes.h"

#include <QJsonArray>

namespace ty {

namespace {

Error opError(const QString &nodeId, const QString &message, const QString &field = {})
{
    Error e;
    e.node = nodeId;
    e.field = field;
    e.message = message;
    return e;
}

int64_t intParam(const QJsonObject &params, const char *key)
{
    return static_cast<int64_t>(params.value(QString::fromLatin1(key)).toDouble());
}

bool boolParam(const QJsonObject &params, const char *key)
{
    return params.value(QString::fromLatin1(key)).toBool();
}

// Output side of a sliding window (convolution, pooling without ceil mode).
int64_t windows(int64_t size, const SlidingWindow &w)
{
    return (size + 2 * w.padding - w.kernel) / w.stride + 1;
}

const QString kImageSamples = QStringLiteral("[channels, height, width]");

Result<OpShape> transformShape(const QString &type, const QString &nodeId, const QJsonObject &params, const SampleShape &in)
{
    if (type == QStringLiteral("transform.normalize")) {
        const int64_t channels = in.empty() ? 1 : in[0];
        for (const QString &name : {QStringLiteral("mean"), QStringLiteral("std")}) {
            const QJsonArray list = params.value(name).toArray();
            if (list.size() != 1 && list.size() != channels)
                return opError(nodeId, QStringLiteral("needs 1 or %1 values (one per channel), got %2").arg(channels).arg(list.size()), name);
        }
        for (const QJsonValue &v : params.value(QStringLiteral("std")).toArray())
            if (v.toDouble() == 0.0)
                return opError(nodeId, QStringLiteral("a standard deviation of 0 would divide by zero"), QStringLiteral("std"));
        return OpShape{in, 0};
    }
    if (type == QStringLiteral("transform.random_hflip")) {
        if (in.size() < 2)
            return opError(nodeId, QStringLiteral("expects image samples %1, got %2").arg(kImageSamples, shapeText(in)), QStringLiteral("in"));
        return OpShape{in, 0};
    }
    if (type == QStringLiteral("transform.random_crop")) {
        if (in.size() != 3)
            return opError(nodeId, QStringLiteral("expects %1 samples, got %2").arg(kImageSamples, shapeText(in)), QStringLiteral("in"));
        return OpShape{in, 0};
    }
    if (type == QStringLiteral("transform.gaussian_noise"))
        return OpShape{in, 0};
    return opError(nodeId, QStringLiteral("no shape rule for block \"%1\"").arg(type), QStringLiteral("block"));
}

Result<OpShape> poolShape(const QString &nodeId, const QJsonObject &params, const SampleShape &in)
{
    if (in.size() != 3)
        return opError(nodeId, QStringLiteral("expects %1 samples, got %2").arg(kImageSamples, shapeText(in)), QStringLiteral("in"));
    const SlidingWindow w = slidingWindow(params);
    if (2 * w.padding > w.kernel)
        return opError(nodeId, QStringLiteral("padding %1 is more than half the kernel size %2").arg(w.padding).arg(w.kernel),
                       QStringLiteral("padding"));
    if (w.kernel > in[1] + 2 * w.padding || w.kernel > in[2] + 2 * w.padding)
        return opError(nodeId, QStringLiteral("kernel %1 is larger than the padded input %2").arg(w.kernel).arg(shapeText(in)),
                       QStringLiteral("kernel_size"));
    return OpShape{{in[0], windows(in[1], w), windows(in[2], w)}, 0};
}

Result<OpShape> joinShape(const QString &type, const QString &nodeId, const QJsonObject &params, const SampleShape &a,
                          const SampleShape &b)
{
    if (type == QStringLiteral("layer.add")) {
        if (a != b)
            return opError(nodeId, QStringLiteral("inputs must have the same shape, got %1 and %2").arg(shapeText(a), shapeText(b)), QStringLiteral("b"));
        return OpShape{a, 0};
    }
    const int64_t dim = intParam(params, "dim");
    if (a.size() != b.size() || dim >= int64_t(a.size()))
        return opError(nodeId, QStringLiteral("cannot join %1 and %2 along dimension %3").arg(shapeText(a), shapeText(b)).arg(dim), QStringLiteral("dim"));
    for (size_t i = 0; i < a.size(); ++i)
        if (int64_t(i) != dim && a[i] != b[i])
            return opError(nodeId, QStringLiteral("inputs %1 and %2 differ outside dimension %3").arg(shapeText(a), shapeText(b)).arg(dim), QStringLiteral("b"));
    SampleShape out = a;
    out[size_t(dim)] += b[size_t(dim)];
    return OpShape{out, 0};
}

Result<OpShape> layerShape(const QString &type, const QString &nodeId, const QJsonObject &params,
                           const std::vector<SampleShape> &inputs)
{
    const SampleShape in = inputs.empty() ? SampleShape{} : inputs[0];
    const QString inPort = QStringLiteral("in");
    if (type == QStringLiteral("layer.linear")) {
        if (in.empty())
            return opError(nodeId, QStringLiteral("needs samples with at least one dimension"), inPort);
        const int64_t outFeatures = intParam(params, "out_features");
        SampleShape out = in;
        out.back() = outFeatures;
        return OpShape{out, in.back() * outFeatures + (boolParam(params, "bias") ? outFeatures : 0)};
    }
    if (type == QStringLiteral("layer.conv2d")) {
        if (in.size() != 3)
            return opError(nodeId, QStringLiteral("expects %1 samples, got %2 (add a reshape or use layer.linear)").arg(kImageSamples, shapeText(in)), inPort);
        const SlidingWindow w = slidingWindow(params);
        const int64_t outChannels = intParam(params, "out_channels");
        if (w.kernel > in[1] + 2 * w.padding || w.kernel > in[2] + 2 * w.padding)
            return opError(nodeId, QStringLiteral("kernel %1 is larger than the padded input %2").arg(w.kernel).arg(shapeText(in)),
                           QStringLiteral("kernel_size"));
        return OpShape{{outChannels, windows(in[1], w), windows(in[2], w)},
                       outChannels * in[0] * w.kernel * w.kernel + (boolParam(params, "bias") ? outChannels : 0)};
    }
    if (type == QStringLiteral("layer.batchnorm1d") || type == QStringLiteral("layer.batchnorm2d")) {
        const bool twoD = type.endsWith(QStringLiteral("2d"));
        if (twoD ? in.size() != 3 : (in.empty() || in.size() > 2))
            return opError(nodeId, QStringLiteral("expects %1 samples, got %2")
                                       .arg(twoD ? kImageSamples : QStringLiteral("[features] or [channels, length]"), shapeText(in)),
                           inPort);
        return OpShape{in, 2 * in[0]};  // scale and shift per channel
    }
    if (type == QStringLiteral("layer.maxpool2d") || type == QStringLiteral("layer.avgpool2d"))
        return poolShape(nodeId, params, in);
    if (type == QStringLiteral("layer.global_avgpool")) {
        if (in.size() != 3)
            return opError(nodeId, QStringLiteral("expects %1 samples, got %2").arg(kImageSamples, shapeText(in)), inPort);
        return OpShape{{in[0]}, 0};
    }
    if (type == QStringLiteral("layer.flatten")) {
        if (in.empty())
            return opError(nodeId, QStringLiteral("needs samples with at least one dimension"), inPort);
        int64_t size = 1;
        for (int64_t d : in)
            size *= d;
        return OpShape{{size}, 0};
    }
    static const QStringList elementWise{QStringLiteral("layer.dropout"), QStringLiteral("layer.relu"), QStringLiteral("layer.leaky_relu"),
                                         QStringLiteral("layer.gelu"), QStringLiteral("layer.tanh"), QStringLiteral("layer.sigmoid")};
    if (elementWise.contains(type))
        return OpShape{in, 0};
    if (type == QStringLiteral("layer.add") || type == QStringLiteral("layer.concat")) {
        if (inputs.size() != 2)
            return opError(nodeId, QStringLiteral("needs two inputs"), QStringLiteral("b"));
        return joinShape(type, nodeId, params, inputs[0], inputs[1]);
    }
    return opError(nodeId, QStringLiteral("no shape rule for block \"%1\"").arg(type), QStringLiteral("block"));
}

} // namespace

SlidingWindow slidingWindow(const QJsonObject &params)
{
    SlidingWindow w;
    w.kernel = intParam(params, "kernel_size");
    w.stride = intParam(params, "stride") > 0 ? intParam(params, "stride") : w.kernel;
    w.padding = intParam(params, "padding");
    return w;
}

Result<OpShape> inferOpShape(const QString &blockType, const QString &nodeId, const QJsonObject &params,
                             const std::vector<SampleShape> &inputs)
{
    Result<OpShape> shape = blockType.startsWith(QStringLiteral("transform."))
        ? transformShape(blockType, nodeId, params, inputs.empty() ? SampleShape{} : inputs[0])
        : layerShape(blockType, nodeId, params, inputs);
    if (!shape)
        return shape;
    for (int64_t d : shape.value().output)
        if (d <= 0)
            return opError(nodeId, QStringLiteral("the output would be empty (%1); the input %2 is too small")
                                       .arg(shapeText(shape.value().output), inputs.empty() ? QStringLiteral("[]") : shapeText(inputs[0])));
    return shape;
}

QString headProblem(const QString &type, const SampleShape &pred, const DatasetShape &data, const QJsonObject &params)
{
    const bool classLogits = type == QStringLiteral("loss.cross_entropy") || type == QStringLiteral("metric.accuracy")
        || type == QStringLiteral("metric.top_k_accuracy");
    if (classLogits) {
        if (!data.classification)
            return QStringLiteral("needs class labels, but the dataset has regression targets");
        if (pred != SampleShape{data.numClasses})
            return QStringLiteral("expects [%1] logits per sample (%1 classes), got %2").arg(data.numClasses).arg(shapeText(pred));
        if (type == QStringLiteral("metric.top_k_accuracy") && params.value(QStringLiteral("k")).toInt() > data.numClasses)
            return QStringLiteral("k is larger than the number of classes (%1)").arg(data.numClasses);
        return QString();
    }
    if (type == QStringLiteral("loss.bce_with_logits")) {
        if (data.classification && data.numClasses != 2)
            return QStringLiteral("needs two classes or 0/1 targets, but the dataset has %1 classes").arg(data.numClasses);
        const int64_t width = data.classification ? 1 : data.targetWidth;
        if (pred != SampleShape{width})
            return QStringLiteral("expects [%1] logits per sample, got %2").arg(width).arg(shapeText(pred));
        return QString();
    }
    // mse, l1, huber, mae
    if (data.classification)
        return QStringLiteral("needs regression targets, but the dataset has class labels (use loss.cross_entropy)");
    if (pred != SampleShape{data.targetWidth})
        return QStringLiteral("expects [%1] predictions per sample (the target width), got %2").arg(data.targetWidth).arg(shapeText(pred));
    return QString();
}

} // namespace ty
