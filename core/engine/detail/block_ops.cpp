#include "detail/block_ops.h"

#include <QJsonArray>
#include <QStringList>

#include <optional>

namespace ty::detail {

namespace {

int64_t intParam(const QJsonObject &params, const char *key)
{
    return static_cast<int64_t>(params.value(QString::fromLatin1(key)).toDouble());
}

double floatParam(const QJsonObject &params, const char *key)
{
    return params.value(QString::fromLatin1(key)).toDouble();
}

// A module that only holds buffers (normalisation statistics) so they follow the model to its device.
struct BufferHolder : torch::nn::Module {};

BuiltOp unary(std::function<torch::Tensor(const torch::Tensor &, bool)> fn,
              std::shared_ptr<torch::nn::Module> module = nullptr)
{
    BuiltOp op;
    op.module = std::move(module);
    op.forward = [fn = std::move(fn)](const std::vector<torch::Tensor> &in, bool training) { return fn(in[0], training); };
    return op;
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

BuiltOp buildPool(const QString &type, const QJsonObject &params)
{
    const SlidingWindow w = slidingWindow(params);
    const int64_t k = w.kernel, s = w.stride, p = w.padding;
    if (type == QStringLiteral("layer.maxpool2d"))
        return unary([k, s, p](const torch::Tensor &x, bool) { return torch::max_pool2d(x, {k, k}, {s, s}, {p, p}); });
    return unary([k, s, p](const torch::Tensor &x, bool) { return torch::avg_pool2d(x, {k, k}, {s, s}, {p, p}); });
}

// Normalisation statistics as buffers of a module, so they follow the model to its device.
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
    return unary([meanT, stdT](const torch::Tensor &x, bool) { return (x - meanT) / stdT; }, holder);
}

std::optional<BuiltOp> buildTransform(const QString &type, const QJsonObject &params, const Shape &in)
{
    if (type == QStringLiteral("transform.normalize"))
        return buildNormalize(params, in);
    if (type == QStringLiteral("transform.random_hflip")) {
        const double p = floatParam(params, "p");
        return unary([p](const torch::Tensor &x, bool training) {
            if (!training || p <= 0.0)
                return x;
            Shape maskShape(x.dim(), 1);
            maskShape[0] = x.size(0);
            const torch::Tensor flip = torch::rand({x.size(0)}, x.options()).lt(p).view(maskShape);
            return torch::where(flip, x.flip({-1}), x);
        });
    }
    if (type == QStringLiteral("transform.random_crop")) {
        const int64_t pad = intParam(params, "padding");
        return unary([pad](const torch::Tensor &x, bool training) { return training && pad > 0 ? randomCrop(x, pad) : x; });
    }
    if (type == QStringLiteral("transform.gaussian_noise")) {
        const double sd = floatParam(params, "std");
        return unary([sd](const torch::Tensor &x, bool training) {
            return training && sd > 0 ? x + torch::randn_like(x) * sd : x;
        });
    }
    return std::nullopt;
}

std::optional<BuiltOp> buildLayer(const QString &type, const QJsonObject &params, const Shape &in)
{
    const bool bias = params.value(QStringLiteral("bias")).toBool();
    if (type == QStringLiteral("layer.linear")) {
        auto linear = torch::nn::Linear(torch::nn::LinearOptions(in.back(), intParam(params, "out_features")).bias(bias));
        return unary([linear](const torch::Tensor &x, bool) mutable { return linear->forward(x); }, linear.ptr());
    }
    if (type == QStringLiteral("layer.conv2d")) {
        const SlidingWindow w = slidingWindow(params);
        auto conv = torch::nn::Conv2d(torch::nn::Conv2dOptions(in[0], intParam(params, "out_channels"), w.kernel)
                                          .stride(w.stride).padding(w.padding).bias(bias));
        return unary([conv](const torch::Tensor &x, bool) mutable { return conv->forward(x); }, conv.ptr());
    }
    const double momentum = floatParam(params, "momentum"), eps = floatParam(params, "eps");
    if (type == QStringLiteral("layer.batchnorm2d")) {
        auto bn = torch::nn::BatchNorm2d(torch::nn::BatchNorm2dOptions(in[0]).momentum(momentum).eps(eps));
        return unary([bn](const torch::Tensor &x, bool) mutable { return bn->forward(x); }, bn.ptr());
    }
    if (type == QStringLiteral("layer.batchnorm1d")) {
        auto bn = torch::nn::BatchNorm1d(torch::nn::BatchNorm1dOptions(in[0]).momentum(momentum).eps(eps));
        return unary([bn](const torch::Tensor &x, bool) mutable { return bn->forward(x); }, bn.ptr());
    }
    if (type == QStringLiteral("layer.dropout")) {
        const double p = floatParam(params, "p");
        return unary([p](const torch::Tensor &x, bool training) { return torch::dropout(x, p, training); });
    }
    if (type == QStringLiteral("layer.maxpool2d") || type == QStringLiteral("layer.avgpool2d"))
        return buildPool(type, params);
    if (type == QStringLiteral("layer.global_avgpool"))
        return unary([](const torch::Tensor &x, bool) { return x.mean({2, 3}); });
    if (type == QStringLiteral("layer.flatten"))
        return unary([](const torch::Tensor &x, bool) { return x.flatten(1); });
    if (type == QStringLiteral("layer.relu"))
        return unary([](const torch::Tensor &x, bool) { return torch::relu(x); });
    if (type == QStringLiteral("layer.leaky_relu")) {
        const double slope = floatParam(params, "negative_slope");
        return unary([slope](const torch::Tensor &x, bool) { return torch::leaky_relu(x, slope); });
    }
    if (type == QStringLiteral("layer.gelu"))
        return unary([](const torch::Tensor &x, bool) { return torch::gelu(x); });
    if (type == QStringLiteral("layer.tanh"))
        return unary([](const torch::Tensor &x, bool) { return torch::tanh(x); });
    if (type == QStringLiteral("layer.sigmoid"))
        return unary([](const torch::Tensor &x, bool) { return torch::sigmoid(x); });
    BuiltOp op;
    if (type == QStringLiteral("layer.add")) {
        op.forward = [](const std::vector<torch::Tensor> &in, bool) { return in[0] + in[1]; };
        return op;
    }
    if (type == QStringLiteral("layer.concat")) {
        const int64_t dim = intParam(params, "dim") + 1;  // after the batch dimension
        op.forward = [dim](const std::vector<torch::Tensor> &in, bool) { return torch::cat({in[0], in[1]}, dim); };
        return op;
    }
    return std::nullopt;
}

} // namespace

Result<BuiltOp> buildOp(const PlannedOp &planned)
{
    const Shape in = planned.inputShapes.empty() ? Shape{} : planned.inputShapes[0];
    std::optional<BuiltOp> op = planned.blockType.startsWith(QStringLiteral("transform."))
        ? buildTransform(planned.blockType, planned.params, in)
        : buildLayer(planned.blockType, planned.params, in);
    if (op)
        return std::move(*op);
    Error e;
    e.node = planned.nodeId;
    e.field = QStringLiteral("block");
    e.message = QStringLiteral("no builder for block \"%1\"").arg(planned.blockType);
    return e;
}

} // namespace ty::detail
