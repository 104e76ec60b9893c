#include "detail/optimization.h"

#include <stdexcept>

namespace ty::detail {

std::unique_ptr<torch::optim::Optimizer> makeOptimizer(const QString &type, const QJsonObject &params,
                                                       const std::vector<torch::Tensor> &parameters)
{
    const OptimizerFactory *factory = optimizerFactories().find(type);
    if (!factory)
        throw std::runtime_error("no optimizer " + type.toStdString());
    return (*factory)(params, parameters);
}

double scheduledLearningRate(const QString &type, const QJsonObject &params, double baseLr, int64_t step,
                             int64_t stepsPerEpoch, int64_t totalSteps)
{
    const ScheduleFunction *schedule = scheduleFunctions().find(type);
    return schedule ? (*schedule)(params, baseLr, step, stepsPerEpoch, totalSteps) : baseLr;
}

void setLearningRate(torch::optim::Optimizer &optimizer, double lr)
{
    for (auto &group : optimizer.param_groups())
        group.options().set_lr(lr);
}

void clipGradients(const std::vector<torch::Tensor> &parameters, double maxValue, double maxNorm)
{
    torch::NoGradGuard noGrad;
    std::vector<torch::Tensor> grads;
    for (const torch::Tensor &p : parameters)
        if (p.grad().defined())
            grads.push_back(p.grad());
    if (grads.empty())
        return;
    if (maxValue > 0)
        for (torch::Tensor &g : grads)
            g.clamp_(-maxValue, maxValue);
    if (maxNorm > 0) {
        std::vector<torch::Tensor> norms;
        norms.reserve(grads.size());
        for (const torch::Tensor &g : grads)
            norms.push_back(g.norm(2));
        const torch::Tensor total = torch::stack(norms).norm(2);
        const torch::Tensor scale = (maxNorm / (total + 1e-6)).clamp_max(1.0);
        for (torch::Tensor &g : grads)
            g.mul_(scale);
    }
}

} // namespace ty::detail
