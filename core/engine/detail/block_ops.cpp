#include "detail/block_ops.h"

#include <QJsonArray>
#include <QStringList>

namespace ty::detail {

namespace {

namespace F = torch::nn::functional;

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

double floatParam(const QJsonObject &params, const char *key)
{
    return params.value(QString::fromLatin1(key)).toDouble();
}

// A module that only holds buffers (normalisation statistics) so they follow the model to its device.
struct BufferHolder : torch::nn::Module {};

using ForwardFn = std::function<torch::Tensor(const std::vector<torch::Tensor> &, bool)>;

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

Result<BuiltOp> buildPool(const QString &type, const QString &nodeId, const QJsonObject &params, const Shape &in)
{
    if (in.size() != 3)
        return opError(nodeId, QStringLiteral("expects [channels, height, width] samples, got %1").arg(shapeText(in)), QStringLiteral("in"));
    const int64_t k = intParam(params, "kernel_size");
    const int64_t s = intParam(params, "stride") > 0 ? intParam(params, "stride") : k;
    const int64_t p = intParam(params, "padding");
    if (2 * p > k)
        return opError(nodeId, QStringLiteral("padding %1 is more than half the kernel size %2").arg(p).arg(k), QStringLiteral("padding"));
    if (k > in[1] + 2 * p || k > in[2] + 2 * p)
        return opError(nodeId, QStringLiteral("kernel %1 is larger than the padded input %2").arg(k).arg(shapeText(in)),
                       QStringLiteral("kernel_size"));
    if (type == QStringLiteral("layer.maxpool2d"))
        return unary([k, s, p](const torch::Tensor &x, bool) { return torch::max_pool2d(x, {k, k}, {s, s}, {p, p}); });
    return unary([k, s, p](const torch::Tensor &x, bool) { return torch::avg_pool2d(x, {k, k}, {s, s}, {p, p}); });
}

Result<BuiltOp> buildTransform(const QString &type, const QString &nodeId, const QJsonObject &params, const Shape &in)
{
    if (type == QStringLiteral("transform.normalize")) {
        const QJsonArray mean = params.value(QStringLiteral("mean")).toArray();
        const QJsonArray stddev = params.value(QStringLiteral("std")).toArray();
        const int64_t channels = in.empty() ? 1 : in[0];
        for (const auto &[name, list] : {std::pair{QStringLiteral("mean"), mean}, std::pair{QStringLiteral("std"), stddev}})
            if (list.size() != 1 && list.size() != channels)
                return opError(nodeId, QStringLiteral("needs 1 or %1 values (one per channel), got %2").arg(channels).arg(list.size()), name);
        std::vector<float> m, sd;
        for (const QJsonValue &v : mean)
            m.push_back(float(v.toDouble()));
        for (const QJsonValue &v : stddev) {
            if (v.toDouble() == 0.0)
                return opError(nodeId, QStringLiteral("a standard deviation of 0 would divide by zero"), QStringLiteral("std"));
            sd.push_back(float(v.toDouble()));
        }
        Shape view(in.size() + 1, 1);
        view[0] = 1;
        if (!in.empty())
            view[1] = -1;
        auto holder = std::make_shared<BufferHolder>();
        torch::Tensor meanT = holder->register_buffer("mean", torch::tensor(m).view(m.size() == 1 ? Shape(view.size(), 1) : view));
        torch::Tensor stdT = holder->register_buffer("std", torch::tensor(sd).view(sd.size() == 1 ? Shape(view.size(), 1) : view));
        // Module::to() moves buffers in place (set_data), so the captured handles follow the device.
        return unary([meanT, stdT](const torch::Tensor &x, bool) { return (x - meanT) / stdT; }, holder);
    }
    if (type == QStringLiteral("transform.random_hflip")) {
        if (in.size() < 2)
            return opError(nodeId, QStringLiteral("expects image samples [channels, height, width], got %1").arg(shapeText(in)), QStringLiteral("in"));
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
        if (in.size() != 3)
            return opError(nodeId, QStringLiteral("expects [channels, height, width] samples, got %1").arg(shapeText(in)), QStringLiteral("in"));
        const int64_t pad = intParam(params, "padding");
        return unary([pad](const torch::Tensor &x, bool training) { return training && pad > 0 ? randomCrop(x, pad) : x; });
    }
    if (type == QStringLiteral("transform.gaussian_noise")) {
        const double sd = floatParam(params, "std");
        return unary([sd](const torch::Tensor &x, bool training) {
            return training && sd > 0 ? x + torch::randn_like(x) * sd : x;
        });
    }
    return opError(nodeId, QStringLiteral("no builder for block \"%1\"").arg(type), QStringLiteral("block"));
}

Result<BuiltOp> buildLayer(const QString &type, const QString &nodeId, const QJsonObject &params,
                           const std::vector<Shape> &inputs)
{
    const Shape in = inputs.empty() ? Shape{} : inputs[0];
    const QString inPort = QStringLiteral("in");
    if (type == QStringLiteral("layer.linear")) {
        if (in.empty())
            return opError(nodeId, QStringLiteral("needs samples with at least one dimension"), inPort);
        auto linear = torch::nn::Linear(torch::nn::LinearOptions(in.back(), intParam(params, "out_features"))
                                            .bias(params.value(QStringLiteral("bias")).toBool()));
        return unary([linear](const torch::Tensor &x, bool) mutable { return linear->forward(x); }, linear.ptr());
    }
    if (type == QStringLiteral("layer.conv2d")) {
        if (in.size() != 3)
            return opError(nodeId, QStringLiteral("expects [channels, height, width] samples, got %1 (add a reshape or use layer.linear)").arg(shapeText(in)), inPort);
        const int64_t k = intParam(params, "kernel_size"), p = intParam(params, "padding");
        if (k > in[1] + 2 * p || k > in[2] + 2 * p)
            return opError(nodeId, QStringLiteral("kernel %1 is larger than the padded input %2").arg(k).arg(shapeText(in)),
                           QStringLiteral("kernel_size"));
        auto conv = torch::nn::Conv2d(torch::nn::Conv2dOptions(in[0], intParam(params, "out_channels"), k)
                                          .stride(intParam(params, "stride")).padding(p)
                                          .bias(params.value(QStringLiteral("bias")).toBool()));
        return unary([conv](const torch::Tensor &x, bool) mutable { return conv->forward(x); }, conv.ptr());
    }
    if (type == QStringLiteral("layer.batchnorm1d") || type == QStringLiteral("layer.batchnorm2d")) {
        const bool twoD = type.endsWith(QStringLiteral("2d"));
        if (twoD ? in.size() != 3 : (in.empty() || in.size() > 2))
            return opError(nodeId, QStringLiteral("expects %1 samples, got %2")
                                       .arg(twoD ? QStringLiteral("[channels, height, width]") : QStringLiteral("[features] or [channels, length]"),
                                            shapeText(in)), inPort);
        const double momentum = floatParam(params, "momentum"), eps = floatParam(params, "eps");
        if (twoD) {
            auto bn = torch::nn::BatchNorm2d(torch::nn::BatchNorm2dOptions(in[0]).momentum(momentum).eps(eps));
            return unary([bn](const torch::Tensor &x, bool) mutable { return bn->forward(x); }, bn.ptr());
        }
        auto bn = torch::nn::BatchNorm1d(torch::nn::BatchNorm1dOptions(in[0]).momentum(momentum).eps(eps));
        return unary([bn](const torch::Tensor &x, bool) mutable { return bn->forward(x); }, bn.ptr());
    }
    if (type == QStringLiteral("layer.dropout")) {
        const double p = floatParam(params, "p");
        return unary([p](const torch::Tensor &x, bool training) { return torch::dropout(x, p, training); });
    }
    if (type == QStringLiteral("layer.maxpool2d") || type == QStringLiteral("layer.avgpool2d"))
        return buildPool(type, nodeId, params, in);
    if (type == QStringLiteral("layer.global_avgpool")) {
        if (in.size() != 3)
            return opError(nodeId, QStringLiteral("expects [channels, height, width] samples, got %1").arg(shapeText(in)), inPort);
        return unary([](const torch::Tensor &x, bool) { return x.mean({2, 3}); });
    }
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
    if (type == QStringLiteral("layer.add") || type == QStringLiteral("layer.concat")) {
        const Shape &a = inputs.at(0), &b = inputs.at(1);
        BuiltOp op;
        if (type == QStringLiteral("layer.add")) {
            if (a != b)
                return opError(nodeId, QStringLiteral("inputs must have the same shape, got %1 and %2").arg(shapeText(a), shapeText(b)), QStringLiteral("b"));
            op.forward = [](const std::vector<torch::Tensor> &in, bool) { return in[0] + in[1]; };
            return op;
        }
        const int64_t dim = intParam(params, "dim");
        if (a.size() != b.size() || dim >= int64_t(a.size()))
            return opError(nodeId, QStringLiteral("cannot join %1 and %2 along dimension %3").arg(shapeText(a), shapeText(b)).arg(dim), QStringLiteral("dim"));
        for (size_t i = 0; i < a.size(); ++i)
            if (int64_t(i) != dim && a[i] != b[i])
                return opError(nodeId, QStringLiteral("inputs %1 and %2 differ outside dimension %3").arg(shapeText(a), shapeText(b)).arg(dim), QStringLiteral("b"));
        op.forward = [dim](const std::vector<torch::Tensor> &in, bool) { return torch::cat({in[0], in[1]}, dim + 1); };
        return op;
    }
    return opError(nodeId, QStringLiteral("no builder for block \"%1\"").arg(type), QStringLiteral("block"));
}

} // namespace

QString shapeText(const Shape &shape)
{
    QStringList parts;
    for (int64_t d : shape)
        parts << QString::number(d);
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

Result<BuiltOp> buildOp(const QString &blockType, const QString &nodeId, const QJsonObject &params,
                        const std::vector<Shape> &inputShapes)
{
    Result<BuiltOp> built = blockType.startsWith(QStringLiteral("transform."))
        ? buildTransform(blockType, nodeId, params, inputShapes.empty() ? Shape{} : inputShapes[0])
        : buildLayer(blockType, nodeId, params, inputShapes);
    if (!built)
        return built;
    BuiltOp op = std::move(built).value();
    // The output shape comes from running the op once on a zero sample, so it is exactly what training sees.
    try {
        torch::NoGradGuard noGrad;
        if (op.module)
            op.module->eval();
        std::vector<torch::Tensor> probes;
        for (const Shape &shape : inputShapes) {
            Shape batched{1};
            batched.insert(batched.end(), shape.begin(), shape.end());
            probes.push_back(torch::zeros(batched));
        }
        const torch::Tensor out = op.forward(probes, false);
        if (op.module)
            op.module->train();
        op.outputShape.assign(out.sizes().begin() + 1, out.sizes().end());
    } catch (const std::exception &e) {
        const QString what = QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0);
        return opError(nodeId, QStringLiteral("cannot apply to input %1: %2")
                                   .arg(inputShapes.empty() ? QStringLiteral("[]") : shapeText(inputShapes[0]), what));
    }
    for (int64_t d : op.outputShape)
        if (d <= 0)
            return opError(nodeId, QStringLiteral("the output would be empty (%1); the input %2 is too small")
                                       .arg(shapeText(op.outputShape), shapeText(inputShapes.at(0))));
    return op;
}

} // namespace ty::detail
