// Builders of the layer.* blocks. Input sizes (in_features, in_channels) come from the planned input shape;
// the parameters each builder creates must match the count of its shape rule (core/shapes), which every
// compile checks.

#include "detail/block_ops.h"

#include <QJsonArray>

#include <algorithm>

namespace ty::detail {

namespace {

bool hasBias(const QJsonObject &params)
{
    return params.value(QStringLiteral("bias")).toBool();
}

BuiltOp buildLinear(const QJsonObject &params, const Shape &in)
{
    auto linear = torch::nn::Linear(torch::nn::LinearOptions(in.back(), intParam(params, "out_features")).bias(hasBias(params)));
    return unaryOp([linear](const torch::Tensor &x, bool) mutable { return linear->forward(x); }, linear.ptr());
}

BuiltOp buildConv2d(const QJsonObject &params, const Shape &in)
{
    const SlidingWindow w = slidingWindow(params);
    auto conv = torch::nn::Conv2d(torch::nn::Conv2dOptions(in[0], intParam(params, "out_channels"), w.kernel)
                                      .stride(w.stride).padding(w.padding).bias(hasBias(params))
                                      .groups(std::max<int64_t>(1, intParam(params, "groups"))));
    return unaryOp([conv](const torch::Tensor &x, bool) mutable { return conv->forward(x); }, conv.ptr());
}

BuiltOp buildBatchNorm2d(const QJsonObject &params, const Shape &in)
{
    auto bn = torch::nn::BatchNorm2d(torch::nn::BatchNorm2dOptions(in[0]).momentum(floatParam(params, "momentum"))
                                         .eps(floatParam(params, "eps")));
    return unaryOp([bn](const torch::Tensor &x, bool) mutable { return bn->forward(x); }, bn.ptr());
}

BuiltOp buildBatchNorm1d(const QJsonObject &params, const Shape &in)
{
    auto bn = torch::nn::BatchNorm1d(torch::nn::BatchNorm1dOptions(in[0]).momentum(floatParam(params, "momentum"))
                                         .eps(floatParam(params, "eps")));
    return unaryOp([bn](const torch::Tensor &x, bool) mutable { return bn->forward(x); }, bn.ptr());
}

BuiltOp buildDropout(const QJsonObject &params, const Shape &)
{
    const double p = floatParam(params, "p");
    return unaryOp([p](const torch::Tensor &x, bool training) { return torch::dropout(x, p, training); });
}

BuiltOp buildMaxPool2d(const QJsonObject &params, const Shape &)
{
    const SlidingWindow w = slidingWindow(params);
    const int64_t k = w.kernel, s = w.stride, p = w.padding;
    return unaryOp([k, s, p](const torch::Tensor &x, bool) { return torch::max_pool2d(x, {k, k}, {s, s}, {p, p}); });
}

BuiltOp buildAvgPool2d(const QJsonObject &params, const Shape &)
{
    const SlidingWindow w = slidingWindow(params);
    const int64_t k = w.kernel, s = w.stride, p = w.padding;
    return unaryOp([k, s, p](const torch::Tensor &x, bool) { return torch::avg_pool2d(x, {k, k}, {s, s}, {p, p}); });
}

BuiltOp buildGlobalAvgPool(const QJsonObject &, const Shape &)
{
    return unaryOp([](const torch::Tensor &x, bool) { return x.mean({2, 3}); });
}

BuiltOp buildFlatten(const QJsonObject &, const Shape &)
{
    return unaryOp([](const torch::Tensor &x, bool) { return x.flatten(1); });
}

BuiltOp buildRelu(const QJsonObject &, const Shape &)
{
    return unaryOp([](const torch::Tensor &x, bool) { return torch::relu(x); });
}

BuiltOp buildLeakyRelu(const QJsonObject &params, const Shape &)
{
    const double slope = floatParam(params, "negative_slope");
    return unaryOp([slope](const torch::Tensor &x, bool) { return torch::leaky_relu(x, slope); });
}

BuiltOp buildGelu(const QJsonObject &, const Shape &)
{
    return unaryOp([](const torch::Tensor &x, bool) { return torch::gelu(x); });
}

BuiltOp buildTanh(const QJsonObject &, const Shape &)
{
    return unaryOp([](const torch::Tensor &x, bool) { return torch::tanh(x); });
}

BuiltOp buildSigmoid(const QJsonObject &, const Shape &)
{
    return unaryOp([](const torch::Tensor &x, bool) { return torch::sigmoid(x); });
}

BuiltOp buildConv1d(const QJsonObject &params, const Shape &in)
{
    const SlidingWindow w = slidingWindow(params);
    auto conv = torch::nn::Conv1d(torch::nn::Conv1dOptions(in[0], intParam(params, "out_channels"), w.kernel)
                                      .stride(w.stride).padding(w.padding).bias(hasBias(params)));
    return unaryOp([conv](const torch::Tensor &x, bool) mutable { return conv->forward(x); }, conv.ptr());
}

BuiltOp buildLayerNorm(const QJsonObject &params, const Shape &in)
{
    auto norm = torch::nn::LayerNorm(torch::nn::LayerNormOptions({in.back()}).eps(floatParam(params, "eps")));
    return unaryOp([norm](const torch::Tensor &x, bool) mutable { return norm->forward(x); }, norm.ptr());
}

// The batch dimension, then the sample shape as given (torch resolves a -1 as the shape rule did).
BuiltOp buildReshape(const QJsonObject &params, const Shape &)
{
    std::vector<int64_t> dims{-1};
    for (const QJsonValue &v : params.value(QStringLiteral("shape")).toArray())
        dims.push_back(int64_t(v.toDouble()));
    return unaryOp([dims](const torch::Tensor &x, bool) {
        std::vector<int64_t> shape = dims;
        shape[0] = x.size(0);
        return x.reshape(shape);
    });
}

BuiltOp buildSoftmax(const QJsonObject &, const Shape &)
{
    return unaryOp([](const torch::Tensor &x, bool) { return torch::softmax(x, -1); });
}

BuiltOp buildLogSoftmax(const QJsonObject &, const Shape &)
{
    return unaryOp([](const torch::Tensor &x, bool) { return torch::log_softmax(x, -1); });
}

BuiltOp buildSilu(const QJsonObject &, const Shape &)
{
    return unaryOp([](const torch::Tensor &x, bool) { return torch::silu(x); });
}

BuiltOp buildRelu6(const QJsonObject &, const Shape &)
{
    return unaryOp([](const torch::Tensor &x, bool) { return torch::clamp(x, 0.0, 6.0); });
}

BuiltOp buildElu(const QJsonObject &params, const Shape &)
{
    const double alpha = floatParam(params, "alpha");
    return unaryOp([alpha](const torch::Tensor &x, bool) { return torch::elu(x, alpha); });
}

BuiltOp buildAdd(const QJsonObject &, const Shape &)
{
    BuiltOp op;
    op.forward = [](const std::vector<torch::Tensor> &in, bool) {
        torch::Tensor sum = in[0] + in[1];
        for (size_t i = 2; i < in.size(); ++i)
            sum = sum + in[i];
        return sum;
    };
    return op;
}

BuiltOp buildConcat(const QJsonObject &params, const Shape &)
{
    const int64_t dim = intParam(params, "dim") + 1;  // after the batch dimension
    BuiltOp op;
    op.forward = [dim](const std::vector<torch::Tensor> &in, bool) { return torch::cat(in, dim); };
    return op;
}

} // namespace

void addLayerBuilders(KindTable<OpBuilder> &builders)
{
    builders.add(QStringLiteral("layer.linear"), buildLinear);
    builders.add(QStringLiteral("layer.conv2d"), buildConv2d);
    builders.add(QStringLiteral("layer.batchnorm1d"), buildBatchNorm1d);
    builders.add(QStringLiteral("layer.batchnorm2d"), buildBatchNorm2d);
    builders.add(QStringLiteral("layer.dropout"), buildDropout);
    builders.add(QStringLiteral("layer.maxpool2d"), buildMaxPool2d);
    builders.add(QStringLiteral("layer.avgpool2d"), buildAvgPool2d);
    builders.add(QStringLiteral("layer.global_avgpool"), buildGlobalAvgPool);
    builders.add(QStringLiteral("layer.flatten"), buildFlatten);
    builders.add(QStringLiteral("layer.relu"), buildRelu);
    builders.add(QStringLiteral("layer.leaky_relu"), buildLeakyRelu);
    builders.add(QStringLiteral("layer.gelu"), buildGelu);
    builders.add(QStringLiteral("layer.tanh"), buildTanh);
    builders.add(QStringLiteral("layer.sigmoid"), buildSigmoid);
    builders.add(QStringLiteral("layer.conv1d"), buildConv1d);
    builders.add(QStringLiteral("layer.layer_norm"), buildLayerNorm);
    builders.add(QStringLiteral("layer.reshape"), buildReshape);
    builders.add(QStringLiteral("layer.softmax"), buildSoftmax);
    builders.add(QStringLiteral("layer.log_softmax"), buildLogSoftmax);
    builders.add(QStringLiteral("layer.silu"), buildSilu);
    builders.add(QStringLiteral("layer.elu"), buildElu);
    builders.add(QStringLiteral("layer.relu6"), buildRelu6);
    builders.add(QStringLiteral("layer.add"), buildAdd);
    builders.add(QStringLiteral("layer.concat"), buildConcat);
}

} // namespace ty::detail
