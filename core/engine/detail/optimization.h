#pragma once
// Internal to ty_engine (includes LibTorch). Optimizers and learning-rate schedules from their nodes: each
// optimizer kind registers one factory and each schedule kind one function, keyed by the type id
// (optimizer_factories.cpp, learning_rate_schedules.cpp). The compiler resolves both once into the compiled
// pipeline, so a training step calls the schedule through a pointer.

#include "kind_table.h"

#include <QJsonObject>
#include <QMap>
#include <QString>
#include <torch/torch.h>

#include <memory>

namespace ty::detail {

using OptimizerFactory = std::unique_ptr<torch::optim::Optimizer> (*)(const QJsonObject &params,
                                                                       const std::vector<torch::Tensor> &parameters);
// The learning rate for `step` (0-based) of a run of `totalSteps` steps with `stepsPerEpoch` steps per
// epoch. A pure function of the step, so a resumed run continues the schedule exactly.
using ScheduleFunction = double (*)(const QJsonObject &params, double baseLr, int64_t step, int64_t stepsPerEpoch,
                                    int64_t totalSteps);

// A schedule that also reacts to an epoch's metrics (reduce on plateau) keeps this state, which checkpoints
// carry. The learning rate is the schedule function's times `scale`.
struct PlateauState {
    double scale = 1.0;         // of the base learning rate, lowered by each reduction
    double best = 0;            // the best metric value so far (when hasBest)
    bool hasBest = false;
    int64_t badEpochs = 0;      // epochs since the last improvement
    int64_t cooldown = 0;       // epochs left before bad epochs count again
};
// After an epoch: updates `state` from the epoch's metrics; true when it lowered the scale. `maximize` says
// whether a larger value of the watched metric is better.
using EpochScheduleFunction = bool (*)(const QJsonObject &params, const QMap<QString, double> &epochMetrics, double baseLr,
                                       bool maximize, PlateauState &state);

// Every built-in optimizer factory and schedule, registered once on first use; the schedules that react to
// epoch metrics also have an epoch function.
const KindTable<OptimizerFactory> &optimizerFactories();
const KindTable<ScheduleFunction> &scheduleFunctions();
const KindTable<EpochScheduleFunction> &epochScheduleFunctions();

// Looks the factory of `type` up and makes the optimizer; throws for a type without one.
std::unique_ptr<torch::optim::Optimizer> makeOptimizer(const QString &type, const QJsonObject &params,
                                                       const std::vector<torch::Tensor> &parameters);

// Looks the schedule of `scheduleType` up and evaluates it; baseLr for a type without one (no schedule).
double scheduledLearningRate(const QString &scheduleType, const QJsonObject &scheduleParams, double baseLr,
                             int64_t step, int64_t stepsPerEpoch, int64_t totalSteps);

void setLearningRate(torch::optim::Optimizer &optimizer, double lr);

// Gradient clipping before an optimizer step, over the parameters that have a gradient: each value clamped to
// [-maxValue, maxValue] (when maxValue > 0), then all of them scaled by min(1, maxNorm / total L2 norm) (when
// maxNorm > 0). Computed on the device without reading the norm back, so a step never waits for it.
void clipGradients(const std::vector<torch::Tensor> &parameters, double maxValue, double maxNorm);

} // namespace ty::detail
