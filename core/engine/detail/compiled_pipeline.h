#pragma once
// Internal to ty_engine (includes LibTorch). The graph compiler: a preset's graph becomes one module that
// executes the DAG in topological order, plus the loss, metric, optimizer and schedule nodes around it.

#include "dataset_arrays.h"
#include "detail/block_ops.h"
#include "detail/heads.h"
#include "detail/optimization.h"
#include "detail/sync_batch_norm.h"
#include "engine_types.h"
#include "preset.h"

#include <QHash>
#include <torch/torch.h>

namespace ty::detail {

// Executes the network part of the graph (transforms and layers). Slot 0 holds the dataset's samples;
// every network node writes one slot.
class GraphModule : public torch::nn::Module {
public:
    void addNode(const QString &id, BuiltOp op, std::vector<int> inputSlots);
    int slotOf(const QString &nodeId) const { return m_slots.value(nodeId, -1); }
    int slotCount() const { return int(m_nodes.size()) + 1; }

    // x: [B, ...] samples; returns every slot. Uses is_training() for random transforms and dropout.
    std::vector<torch::Tensor> forwardAll(const torch::Tensor &x);
    // The tensor at `slot` only.
    torch::Tensor forward(const torch::Tensor &x, int slot);

    // Freezes the nodes `ids` and unfreezes all others: a frozen node's parameters take no gradient, and the
    // node computes as in evaluation whatever the mode (batch norm uses and keeps its running statistics,
    // dropout is off).
    void setFrozen(const QStringList &ids);
    // Keeps frozen nodes in evaluation mode.
    void train(bool on = true) override;
    // The parameters that take gradients, for the optimizer.
    std::vector<torch::Tensor> trainableParameters() const;
    // Distributed runs with training.sync_batch_norm: every batch norm layer trains with the statistics of the
    // whole batch, over the ranks of `sync` (detail/sync_batch_norm.h); evaluation is unchanged.
    void synchronizeBatchNorm(const std::shared_ptr<BatchNormSync> &sync);

private:
    struct Step {
        QString id;
        std::function<torch::Tensor(const std::vector<torch::Tensor> &, bool)> forward;
        std::vector<int> inputs;
        bool frozen = false;
    };
    std::vector<Step> m_nodes;
    QHash<QString, int> m_slots;
};

struct CompiledPipeline {
    std::shared_ptr<GraphModule> model;
    std::vector<LossHead> losses;
    std::vector<MetricHead> metrics;      // metrics of sums over batches: a figure per training step and per pass
    std::vector<MetricHead> passMetrics;  // metrics of a whole pass (MetricFunction::overPass): per pass only
    PipelinePlan plan;   // what was compiled: the dataset, the optimizer and its schedule, with their parameters
    OptimizerFactory optimizerFactory = nullptr;  // of plan.optimizerType
    ScheduleFunction schedule = nullptr;          // of plan.scheduleType; null without a schedule
    EpochScheduleFunction epochSchedule = nullptr;  // of a schedule that reacts to epoch metrics; else null
    ShapeReport report;  // the plan's shapes, parameter counts and issues, plus any found while building
};

// Compiles `preset` for data of `datasetShape` (from describeDataset). Never throws; problems land in
// result.report.issues, and the result is usable for training only when report.ok(). Every node's builder,
// loss or metric function, the optimizer's factory and the schedule are looked up here, once; a kind missing
// one is an issue of its node.
CompiledPipeline compilePipeline(const Preset &preset, const DatasetShape &datasetShape);

} // namespace ty::detail
