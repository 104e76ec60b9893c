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

} // namespace ty::detail
