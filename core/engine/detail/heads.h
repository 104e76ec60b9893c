#pragma once
// Internal to ty_engine (includes LibTorch). The loss and metric heads of a compiled pipeline. Each loss and
// metric kind registers one function keyed by its type id (loss_functions.cpp, metric_functions.cpp); the
// compiler stores it in the head, so a training step calls through a resolved pointer and never compares
// type ids.

#include "kind_table.h"

#include <QString>
#include <torch/torch.h>

namespace ty::detail {

struct LossHead;
struct MetricHead;

// Mean loss of a head over the batch.
using LossFunction = torch::Tensor (*)(const LossHead &head, const torch::Tensor &prediction, const torch::Tensor &target);
// Sum over the batch of a metric (correct predictions for accuracies, absolute error for MAE): divide by the
// number of samples for the mean.
using MetricFunction = torch::Tensor (*)(const MetricHead &head, const torch::Tensor &prediction, const torch::Tensor &target);

struct LossHead {
    QString nodeId, type;
    int slot = -1;
    double weight = 1.0;
    double labelSmoothing = 0.0;
    double delta = 1.0;
    bool optimized = true;  // feeds the optimizer
    LossFunction loss = nullptr;
};

struct MetricHead {
    QString nodeId, type;
    int slot = -1;
    int64_t k = 1;
    MetricFunction sum = nullptr;
};

// Every built-in loss and metric function, registered once on first use.
const KindTable<LossFunction> &lossFunctions();
const KindTable<MetricFunction> &metricFunctions();

inline torch::Tensor headLoss(const LossHead &head, const torch::Tensor &prediction, const torch::Tensor &target)
{
    return head.loss(head, prediction, target);
}

inline torch::Tensor metricSum(const MetricHead &head, const torch::Tensor &prediction, const torch::Tensor &target)
{
    return head.sum(head, prediction, target);
}

// Regression targets as [B, width] in the prediction's dtype (a single target column arrives as [B]).
inline torch::Tensor regressionTargets(const torch::Tensor &prediction, const torch::Tensor &target)
{
    return target.dim() == 1 ? target.view({-1, 1}).to(prediction.dtype()) : target;
}

} // namespace ty::detail
