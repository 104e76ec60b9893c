// Builders of the image layers beyond convolution and pooling: transposed convolution, upsampling, adaptive
// average pooling, group norm and channel dropout.

#include "detail/block_ops.h"

namespace ty::detail {

namespace {

BuiltOp buildConvTranspose2d(const QJsonObject &params, const Shape &in)
{
    const SlidingWindow w = slidingWindow(params);
    auto conv = torch::nn::ConvTranspose2d(torch::nn::ConvTranspose2dOptions(in[0], intParam(params, "out_channels"), w.kernel)
                                               .stride(w.stride).padding(w.padding).output_padding(intParam(params, "output_padding"))
                                               .bias(params.value(QStringLiteral("bias")).toBool()));
    return unaryOp([conv](const torch::Tensor &x, bool) mutable { return conv->forward(x); }, conv.ptr());
}

BuiltOp buildUpsample(const QJsonObject &params, const Shape &)
{
    const double scale = double(intParam(params, "scale"));
    auto options = torch::nn::functional::InterpolateFuncOptions().scale_factor(std::vector<double>{scale, scale});
    if (params.value(QStringLiteral("mode")).toString() == QStringLiteral("bilinear"))
        options.mode(torch::kBilinear).align_corners(false);
    else
        options.mode(torch::kNearest);
    return unaryOp([options](const torch::Tensor &x, bool) { return torch::nn::functional::interpolate(x, options); });
}

BuiltOp buildAdaptiveAvgPool2d(const QJsonObject &params, const Shape &)
{
    const int64_t h = intParam(params, "output_height"), w = intParam(params, "output_width");
    return unaryOp([h, w](const torch::Tensor &x, bool) { return torch::adaptive_avg_pool2d(x, {h, w}); });
}

BuiltOp buildGroupNorm(const QJsonObject &params, const Shape &in)
{
    auto norm = torch::nn::GroupNorm(torch::nn::GroupNormOptions(intParam(params, "groups"), in[0]).eps(floatParam(params, "eps")));
    return unaryOp([norm](const torch::Tensor &x, bool) mutable { return norm->forward(x); }, norm.ptr());
}

// Zeroes whole channels while training.
BuiltOp buildDropout2d(const QJsonObject &params, const Shape &)
{
    const double p = floatParam(params, "p");
    return unaryOp([p](const torch::Tensor &x, bool training) {
        return torch::nn::functional::dropout2d(x, torch::nn::functional::Dropout2dFuncOptions().p(p).training(training));
    });
}

} // namespace

void addImageLayerBuilders(KindTable<OpBuilder> &builders)
{
    builders.add(QStringLiteral("layer.conv_transpose2d"), buildConvTranspose2d);
    builders.add(QStringLiteral("layer.upsample"), buildUpsample);
    builders.add(QStringLiteral("layer.adaptive_avgpool2d"), buildAdaptiveAvgPool2d);
    builders.add(QStringLiteral("layer.group_norm"), buildGroupNorm);
    builders.add(QStringLiteral("layer.dropout2d"), buildDropout2d);
}

} // namespace ty::detail
