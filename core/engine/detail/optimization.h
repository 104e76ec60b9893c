#pragma once
// Internal to ty_engine (includes LibTorch). Optimizers and learning-rate schedules from their nodes.

#include <QJsonObject>
#include <QString>
#include <torch/torch.h>

#include <memory>

namespace ty::detail {

std::unique_ptr<torch::optim::Optimizer> makeOptimizer(const QString &type, const QJsonObject &params,
                                                       const std::vector<torch::Tensor> &parameters);

// The learning rate for `step` (0-based) of a run of `totalSteps` steps with `stepsPerEpoch` steps per
// epoch. A pure function of the step, so a resumed run continues the schedule exactly.
double scheduledLearningRate(const QString &scheduleType, const QJsonObject &scheduleParams, double baseLr,
                             int64_t step, int64_t stepsPerEpoch, int64_t totalSteps);

void setLearningRate(torch::optim::Optimizer &optimizer, double lr);

} // namespace ty::detail
