// Builders of the transform.* blocks. Random transforms act on the whole batch at once and only while
// training; evaluation sees the data unchanged.

#include "detail/block_ops.h"

#include <QJsonArray>

namespace ty::detail {

namespace {

// A module that only holds buffers (normalisation statistics) so they follow the model to its device.
struct BufferHolder : torch::nn::Module {};

BuiltOp buildNormalize(const QJsonObject &params, const Shape &in)
{
    std::vector<float> mean, stddev;
    for (const QJsonValue &v : params.value(QStringLiteral("mean")).toArray())
        mean.push_back(float(v.toDouble()));
    for (const QJsonValue &v : params.value(QStringLiteral("std")).toArray())
        stddev.push_back(float(v.toDouble()));
    Shape view(in.size() + 1, 1);
    if (!in.empty())
        view[1] = -1;
    auto holder = std::make_shared<BufferHolder>();
    const Shape single(view.size(), 1);
    torch::Tensor meanT = holder->register_buffer("mean", torch::tensor(mean).view(mean.size() == 1 ? single : view));
    torch::Tensor stdT = holder->register_buffer("std", torch::tensor(stddev).view(stddev.size() == 1 ? single : view));
    // Module::to() moves buffers in place (set_data), so the captured handles follow the device.
    return unaryOp([meanT, stdT](const torch::Tensor &x, bool) { return (x - meanT) / stdT; }, holder);
}

BuiltOp buildRandomHflip(const QJsonObject &params, const Shape &)
{
    const double p = floatParam(params, "p");
    return unaryOp([p](const torch::Tensor &x, bool training) {
        if (!training || p <= 0.0)
            return x;
        Shape maskShape(x.dim(), 1);
        maskShape[0] = x.size(0);
        const torch::Tensor flip = torch::rand({x.size(0)}, x.options()).lt(p).view(maskShape);
        return torch::where(flip, x.flip({-1}), x);
    });
}

// Pads each image by `pad` and crops it back at a per-sample random offset: two gathers, no per-sample loop.
torch::Tensor randomCrop(const torch::Tensor &x, int64_t pad)
{
    const int64_t b = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
    const torch::Tensor padded = torch::constant_pad_nd(x, {pad, pad, pad, pad}, 0);
    auto longOpts = torch::TensorOptions().dtype(torch::kLong).device(x.device());
    const torch::Tensor oy = torch::randint(0, 2 * pad + 1, {b}, longOpts);
    const torch::Tensor ox = torch::randint(0, 2 * pad + 1, {b}, longOpts);
    const torch::Tensor rows = (oy.view({b, 1}) + torch::arange(h, longOpts).view({1, h}))
                                   .view({b, 1, h, 1}).expand({b, c, h, w + 2 * pad});
    const torch::Tensor byRow = padded.gather(2, rows);
    const torch::Tensor cols = (ox.view({b, 1}) + torch::arange(w, longOpts).view({1, w}))
                                   .view({b, 1, 1, w}).expand({b, c, h, w});
    return byRow.gather(3, cols);
}

BuiltOp buildRandomCrop(const QJsonObject &params, const Shape &)
{
    const int64_t pad = intParam(params, "padding");
    return unaryOp([pad](const torch::Tensor &x, bool training) { return training && pad > 0 ? randomCrop(x, pad) : x; });
}

BuiltOp buildGaussianNoise(const QJsonObject &params, const Shape &)
{
    const double sd = floatParam(params, "std");
    return unaryOp([sd](const torch::Tensor &x, bool training) {
        return training && sd > 0 ? x + torch::randn_like(x) * sd : x;
    });
}

} // namespace

void addTransformBuilders(KindTable<OpBuilder> &builders)
{
    builders.add(QStringLiteral("transform.normalize"), buildNormalize);
    builders.add(QStringLiteral("transform.random_hflip"), buildRandomHflip);
    builders.add(QStringLiteral("transform.random_crop"), buildRandomCrop);
    builders.add(QStringLiteral("transform.gaussian_noise"), buildGaussianNoise);
}

} // namespace ty::detail
