#include "detail/sync_batch_norm.h"

#include "detail/collectives.h"

#include <stdexcept>

namespace ty::detail {

namespace {

// The tensors and options of a batch norm layer, whichever of LibTorch's dimensions it has.
struct BatchNormParts {
    torch::Tensor weight, bias, runningMean, runningVar, batchesTracked;
    double momentum = 0.1, eps = 1e-5;
};

template <typename Impl>
bool partsOf(torch::nn::Module &module, BatchNormParts *parts)
{
    auto *bn = dynamic_cast<Impl *>(&module);
    if (!bn)
        return false;
    parts->weight = bn->weight;
    parts->bias = bn->bias;
    parts->runningMean = bn->running_mean;
    parts->runningVar = bn->running_var;
    parts->batchesTracked = bn->num_batches_tracked;
    parts->momentum = bn->options.momentum().value_or(0.1);
    parts->eps = bn->options.eps();
    return true;
}

// Every dimension but the channels (dimension 1).
std::vector<int64_t> reducedDims(const torch::Tensor &x)
{
    std::vector<int64_t> dims{0};
    for (int64_t d = 2; d < x.dim(); ++d)
        dims.push_back(d);
    return dims;
}

// [C] as [1, C, 1, ...] to broadcast over x.
torch::Tensor perChannel(const torch::Tensor &v, const torch::Tensor &x)
{
    std::vector<int64_t> shape(size_t(x.dim()), 1);
    shape[1] = v.size(0);
    return v.view(shape);
}

// The sums are taken and sent in float64: a variance as E[x²] - E[x]² needs the digits.
class SyncBatchNormFunction : public torch::autograd::Function<SyncBatchNormFunction> {
public:
    static torch::Tensor forward(torch::autograd::AutogradContext *ctx, const torch::Tensor &x, const torch::Tensor &weight,
                                 const torch::Tensor &bias, BatchNormParts parts, const BatchNormSync *sync)
    {
        const int64_t channels = x.size(1);
        const std::vector<int64_t> dims = reducedDims(x);
        // Values per channel over the whole part: its samples on every rank times the positions of one sample.
        const double count = double(sync->samples) * double(x.numel() / std::max<int64_t>(x.size(0) * channels, 1));
        if (count < 2)
            throw std::runtime_error("Expected more than 1 value per channel when training (synchronised batch norm: "
                                     "the whole batch holds one sample)");
        const torch::Tensor xf = x.to(torch::kFloat);
        // A stand-in adds nothing (zeros, not its sums times 0, which an infinite value would make NaN).
        const torch::Tensor local = sync->idle ? torch::zeros({2 * channels}, xf.options().dtype(torch::kDouble))
                                               : torch::cat({xf.sum(dims, false, torch::kDouble), (xf * xf).sum(dims, false, torch::kDouble)});
        sync->group->sum({local});
        const torch::Tensor mean = local.narrow(0, 0, channels) / count;
        const torch::Tensor var = (local.narrow(0, channels, channels) / count - mean * mean).clamp_min(0);
        const torch::Tensor invstd = (var + parts.eps).rsqrt();
        {
            torch::NoGradGuard noGrad;
            const double m = parts.momentum;
            parts.runningMean.mul_(1 - m).add_(mean.to(parts.runningMean.scalar_type()), m);
            parts.runningVar.mul_(1 - m).add_((var * (count / (count - 1))).to(parts.runningVar.scalar_type()), m);
            parts.batchesTracked.add_(1);
        }
        const torch::Tensor meanF = mean.to(torch::kFloat), invstdF = invstd.to(torch::kFloat);
        const torch::Tensor y = (xf - perChannel(meanF, x)) * perChannel(invstdF * weight.to(torch::kFloat), x)
                                + perChannel(bias.to(torch::kFloat), x);
        ctx->save_for_backward({x, weight, meanF, invstdF});
        ctx->saved_data["count"] = count;
        ctx->saved_data["keep"] = sync->idle ? 0.0 : 1.0;
        ctx->saved_data["group"] = reinterpret_cast<int64_t>(sync->group);
        return y.to(x.scalar_type());
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext *ctx, torch::autograd::variable_list grads)
    {
        const auto saved = ctx->get_saved_variables();
        const torch::Tensor &x = saved[0], &weight = saved[1], &mean = saved[2], &invstd = saved[3];
        const double count = ctx->saved_data["count"].toDouble();
        const double keep = ctx->saved_data["keep"].toDouble();
        auto *group = reinterpret_cast<Collectives *>(ctx->saved_data["group"].toInt());
        const int64_t channels = x.size(1);
        const std::vector<int64_t> dims = reducedDims(x);
        const torch::Tensor dy = grads[0].to(torch::kFloat);
        const torch::Tensor xmu = x.to(torch::kFloat) - perChannel(mean, x);
        const torch::Tensor sumDy = dy.sum(dims, false, torch::kDouble);
        const torch::Tensor sumDyXmu = (dy * xmu).sum(dims, false, torch::kDouble);
        // This rank's share of the affine parameters' gradients; the step's exchange sums them with the rest.
        const torch::Tensor gradWeight = (sumDyXmu.to(torch::kFloat) * invstd).to(weight.scalar_type());
        const torch::Tensor gradBias = sumDy.to(weight.scalar_type());
        const torch::Tensor total = torch::cat({sumDy, sumDyXmu});
        group->sum({total});
        const torch::Tensor meanDy = (total.narrow(0, 0, channels) / count).to(torch::kFloat);
        const torch::Tensor meanDyXmu = (total.narrow(0, channels, channels) / count).to(torch::kFloat);
        // An idle rank's stand-in is no part of the statistics, and its own loss weighs 0: no gradient.
        const torch::Tensor gradX = (dy - perChannel(meanDy, x) - xmu * perChannel(invstd * invstd * meanDyXmu, x))
                                    * perChannel(invstd * weight.to(torch::kFloat) * keep, x);
        return {gradX.to(x.scalar_type()), gradWeight, gradBias, torch::Tensor(), torch::Tensor()};
    }
};

} // namespace

std::function<torch::Tensor(const torch::Tensor &x)> synchronisedBatchNorm(torch::nn::Module &module,
                                                                           std::shared_ptr<const BatchNormSync> sync)
{
    BatchNormParts parts;
    if (!partsOf<torch::nn::BatchNorm1dImpl>(module, &parts) && !partsOf<torch::nn::BatchNorm2dImpl>(module, &parts))
        return {};
    return [parts, sync = std::move(sync)](const torch::Tensor &x) {
        return SyncBatchNormFunction::apply(x, parts.weight, parts.bias, parts, sync.get());
    };
}

} // namespace ty::detail
