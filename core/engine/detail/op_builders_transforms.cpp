// Builders of the transform.* blocks. Random transforms act on the whole batch at once and only while
// training; evaluation sees the data unchanged.

#include "detail/block_ops.h"

#include <QJsonArray>

#include <cmath>

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


// Rotation, scale and translation, one random draw per sample, by one affine grid and one bilinear sampling of the
// whole batch; what moves in from outside the image is 0. The rotation is in pixel space (a non-square image is
// not skewed): in the normalised coordinates of the grid, x and y are scaled by the image's aspect ratio.
torch::Tensor randomAffine(const torch::Tensor &x, double degrees, double translate, double scaleMin, double scaleMax)
{
    const int64_t b = x.size(0), h = x.size(2), w = x.size(3);
    const auto opts = x.options();
    const torch::Tensor angle = (torch::rand({b}, opts) * 2 - 1) * (degrees * M_PI / 180.0);
    const torch::Tensor scale = torch::rand({b}, opts) * (scaleMax - scaleMin) + scaleMin;
    const torch::Tensor tx = (torch::rand({b}, opts) * 2 - 1) * (2 * translate);
    const torch::Tensor ty = (torch::rand({b}, opts) * 2 - 1) * (2 * translate);
    const torch::Tensor c = torch::cos(angle) / scale, sn = torch::sin(angle) / scale;
    const double hw = double(h) / double(w), wh = double(w) / double(h);
    const torch::Tensor theta = torch::stack({c, -sn * hw, tx, sn * wh, c, ty}, 1).view({b, 2, 3});
    const torch::Tensor grid = torch::affine_grid_generator(theta, {b, x.size(1), h, w}, false);
    return torch::grid_sampler(x, grid, /*bilinear*/ 0, /*zeros*/ 0, false);
}

BuiltOp buildRandomAffine(const QJsonObject &params, const Shape &)
{
    const double degrees = floatParam(params, "degrees"), translate = floatParam(params, "translate");
    const double scaleMin = floatParam(params, "scale_min"), scaleMax = floatParam(params, "scale_max");
    const bool identity = degrees == 0 && translate == 0 && scaleMin == 1 && scaleMax == 1;
    return unaryOp([=](const torch::Tensor &x, bool training) {
        return training && !identity ? randomAffine(x, degrees, translate, scaleMin, scaleMax) : x;
    });
}

// Brightness then contrast, a factor per sample drawn from [1 - amount, 1 + amount]: x * brightness, then
// (x - the sample's mean) * contrast + the mean; optionally clamped to [0, 1] (data before normalisation).
BuiltOp buildColorJitter(const QJsonObject &params, const Shape &)
{
    const double brightness = floatParam(params, "brightness"), contrast = floatParam(params, "contrast");
    const bool clamp = params.value(QStringLiteral("clamp")).toBool();
    return unaryOp([=](const torch::Tensor &x, bool training) {
        if (!training || (brightness == 0 && contrast == 0))
            return x;
        std::vector<int64_t> view(size_t(x.dim()), 1);
        view[0] = x.size(0);
        const auto factor = [&](double amount) { return (torch::rand({x.size(0)}, x.options()) * 2 - 1).mul_(amount).add_(1).view(view); };
        torch::Tensor y = brightness > 0 ? x * factor(brightness) : x;
        if (contrast > 0) {
            const torch::Tensor mean = y.flatten(1).mean(1).view(view);
            y = (y - mean) * factor(contrast) + mean;
        }
        return clamp ? y.clamp(0.0, 1.0) : y;
    });
}

// Cutout: with probability p a square of `size` pixels, centred at a random pixel and cut by the border, is set
// to 0 in every channel: a mask from two comparisons per sample, no per-sample loop.
BuiltOp buildCutout(const QJsonObject &params, const Shape &)
{
    const int64_t size = intParam(params, "size");
    const double p = floatParam(params, "p");
    return unaryOp([=](const torch::Tensor &x, bool training) {
        if (!training || p <= 0 || size <= 0)
            return x;
        const int64_t b = x.size(0), h = x.size(2), w = x.size(3);
        const auto longOpts = torch::TensorOptions().dtype(torch::kLong).device(x.device());
        const torch::Tensor top = torch::randint(0, h, {b, 1}, longOpts) - size / 2;
        const torch::Tensor left = torch::randint(0, w, {b, 1}, longOpts) - size / 2;
        const torch::Tensor rows = torch::arange(h, longOpts).view({1, h}), cols = torch::arange(w, longOpts).view({1, w});
        const torch::Tensor inRows = rows.ge(top).logical_and(rows.lt(top + size)).view({b, 1, h, 1});
        const torch::Tensor inCols = cols.ge(left).logical_and(cols.lt(left + size)).view({b, 1, 1, w});
        const torch::Tensor chosen = torch::rand({b}, x.options()).lt(p).view({b, 1, 1, 1});
        return x.masked_fill(inRows.logical_and(inCols).logical_and(chosen), 0.0);
    });
}

} // namespace

void addTransformBuilders(KindTable<OpBuilder> &builders)
{
    builders.add(QStringLiteral("transform.normalize"), buildNormalize);
    builders.add(QStringLiteral("transform.random_hflip"), buildRandomHflip);
    builders.add(QStringLiteral("transform.random_crop"), buildRandomCrop);
    builders.add(QStringLiteral("transform.gaussian_noise"), buildGaussianNoise);
    builders.add(QStringLiteral("transform.random_affine"), buildRandomAffine);
    builders.add(QStringLiteral("transform.color_jitter"), buildColorJitter);
    builders.add(QStringLiteral("transform.cutout"), buildCutout);
}

} // namespace ty::detail
