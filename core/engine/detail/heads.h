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
// A metric in two parts. `statistics` gives the batch's sufficient statistics, a tensor of a fixed shape per head
// that adds up over batches (correct predictions for accuracy; true positives, predicted and actual counts per
// class for F1; sums of targets, squared targets and squared residuals per column for R²). `value` turns the
// statistics summed over `samples` samples into the metric, so a log interval, a validation pass and a test
// split all add statistics on the device and read one value at the end.
// A metric of a whole pass (ROC AUC, which ranks every sample of the split against every other) has no such
// statistics: `overPass` alone is set, and reads the pass's outputs [samples, width] and targets [samples], both on
// the host, at its end. It is NaN, with `reason`, where it is undefined. Such a head is a pass metric of the
// compiled pipeline (CompiledPipeline::passMetrics): validation and test passes give it, training steps do not.
struct MetricFunction {
    torch::Tensor (*statistics)(const MetricHead &head, const torch::Tensor &prediction, const torch::Tensor &target) = nullptr;
    double (*value)(const double *statistics, int64_t count, double samples) = nullptr;
    double (*overPass)(const torch::Tensor &outputs, const torch::Tensor &targets, QString *reason) = nullptr;
};

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
    MetricFunction metric;
};

// Every built-in loss and metric function, registered once on first use.
const KindTable<LossFunction> &lossFunctions();
const KindTable<MetricFunction> &metricFunctions();

inline torch::Tensor headLoss(const LossHead &head, const torch::Tensor &prediction, const torch::Tensor &target)
{
    return head.loss(head, prediction, target);
}

inline torch::Tensor metricStatistics(const MetricHead &head, const torch::Tensor &prediction, const torch::Tensor &target)
{
    return head.metric.statistics(head, prediction, target);
}

// The metric from statistics summed over `samples` samples (a double tensor on the host).
inline double metricValue(const MetricHead &head, const torch::Tensor &statistics, double samples)
{
    const torch::Tensor host = statistics.to(torch::kCPU, torch::kDouble).contiguous();
    return head.metric.value(host.data_ptr<double>(), host.numel(), samples);
}

// Regression targets as [B, width] in the prediction's dtype (a single target column arrives as [B]).
inline torch::Tensor regressionTargets(const torch::Tensor &prediction, const torch::Tensor &target)
{
    return target.dim() == 1 ? target.view({-1, 1}).to(prediction.dtype()) : target;
}

} // namespace ty::detail
