#pragma once
// Plain types of shape inference: per-sample shapes, a node's output shape, parameter count, memory and compute
// cost, the report of a whole preset.

#include "issue.h"

#include <QHash>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <vector>

namespace ty {

using SampleShape = std::vector<int64_t>;  // per sample, without the batch dimension

// Bytes a node holds while it trains, float32 (memory_estimate.h states the model).
struct NodeMemory {
    qint64 parameters = 0;   // its trainable weights
    qint64 gradients = 0;    // one gradient per weight
    qint64 optimizer = 0;    // the optimizer's state for its weights
    qint64 activations = 0;  // its output for one training batch, kept for the backward pass
    qint64 data = 0;         // a dataset node: every split, resident on the training device
    qint64 total() const { return parameters + gradients + optimizer + activations + data; }
};

// Bytes a whole run holds on its training device at its peak, estimated from the plan (memory_estimate.h).
struct MemoryEstimate {
    bool known = false;      // false until the whole preset plans without errors
    qint64 parameters = 0, gradients = 0, optimizer = 0;
    qint64 activations = 0;  // the larger of a training step and an evaluation step
    qint64 batchSize = 0;    // the batch of that step
    bool evaluationPeak = false;  // the evaluation step (training.eval_batch_size) needs more than training's
    qint64 data = 0;         // as on dataOnCpu's device: dataBytesOnCpu or dataBytesOnGpu
    // Every split held in memory on the CPU, where byte samples stay one byte a value, and on a GPU, where every
    // sample value is a float32; targets alike on both.
    qint64 dataBytesOnCpu = 0, dataBytesOnGpu = 0;
    bool dataOnCpu = false;  // training.device cpu, or placed there by placeDataOn
    qint64 dataSamples = -1; // train + validation + test samples resident; -1 when the dataset does not say
    qint64 total() const { return parameters + gradients + optimizer + activations + data; }
};

// The receptive field of a node's output along each spatial axis (height and width of [channels, height, width]
// samples, the length of [channels, length] ones): how many positions of the input one output value sees (size)
// and how many positions apart the fields of two neighbouring output values are (stride). Positions are those of
// the input where the chain of windows starts (cost_estimate.h). Empty when not tracked.
struct ReceptiveField {
    std::vector<qint64> size, stride;
    bool known() const { return !size.empty(); }
};

// What a node computes, in multiply-accumulates (1 MAC = 2 FLOPs), as cost_estimate.h counts them.
struct NodeCost {
    bool known = false;           // a transform or layer with a shape (a composite: all of its inner ones)
    qint64 forwardMacs = 0;       // per sample, one forward pass
    qint64 trainingStepMacs = 0;  // one training step: 3 x forward x training.batch_size
    ReceptiveField receptiveField;
    bool window = false;          // a convolution or pooling, or a composite holding one: where the field is shown
};

// The whole pipeline's multiply-accumulates (cost_estimate.h).
struct CostEstimate {
    bool known = false;           // false until the whole preset plans without errors
    qint64 forwardMacs = 0;       // per sample
    qint64 trainingStepMacs = 0;  // per training step, of batchSize samples
    qint64 batchSize = 0;
};

struct NodeShape {
    std::vector<qint64> outputShape;  // per sample, without the batch dimension; empty when not known
    qint64 paramCount = 0;            // trainable parameters of this node
    NodeMemory memory;
    NodeCost cost;
    bool known = false;
};

// One training stage as validation reports it (core/shapes/stage_inspection.h).
struct StageSummary {
    QString name;
    int epochs = 0;
    qint64 trainableParams = 0, frozenParams = 0;
    QStringList frozenNodes;   // in graph order
    QStringList overrides;     // the stage's own KEY=VALUE settings
    bool resetOptimizer = false;
};

struct ShapeReport {
    QHash<QString, NodeShape> nodes;  // by node id
    qint64 totalParams = 0;
    QList<StageSummary> stages;       // empty for a preset without training.stages
    MemoryEstimate memory;
    CostEstimate cost;
    Issues issues;                    // structural and shape issues together
    bool ok() const { return !hasErrors(issues); }
};

QString shapeText(const SampleShape &shape);            // "[1, 28, 28]"
QString shapeToText(const std::vector<qint64> &shape);  // the same for NodeShape::outputShape

} // namespace ty
