#pragma once
// The plan of a pipeline: the preset's graph walked in topological order with every node's shapes, the
// network nodes to execute, the loss and metric heads, the optimizer and its schedule, and every issue found.
// No LibTorch: the engine's graph compiler turns a plan into modules, and validation stops at the plan.

#include "block_shapes.h"
#include "preset.h"

#include <QStringList>

namespace ty {

// One transform or layer node, in execution order.
struct PlannedOp {
    QString nodeId, blockType;
    QJsonObject params;                // effective parameters
    QStringList inputs;                // source node ids, in the order of the block's tensor ports
    std::vector<SampleShape> inputShapes;
    OpShape shape;
};

// A loss or metric node whose input matches the dataset's targets.
struct PlannedHead {
    QString nodeId, blockType;
    QJsonObject params;                // effective parameters
    QString input;                     // the node whose output it reads
    bool optimized = true;             // a loss feeding the optimizer
};

struct PipelinePlan {
    QString datasetNode;
    DatasetShape datasetShape;
    std::vector<PlannedOp> ops;
    std::vector<PlannedHead> losses, metrics;
    QString optimizerNode, optimizerType;
    QJsonObject optimizerParams;
    QString scheduleNode, scheduleType;
    QJsonObject scheduleParams;
    ShapeReport report;                // shapes, parameter counts and every issue found
};

// Plans `preset` for data of `datasetShape` (from describeDataset). The plan is complete, and the preset
// trainable, only when report.ok().
PipelinePlan planPipeline(const Preset &preset, const DatasetShape &datasetShape);
// The same, with the issues of validateGraph and validateTraining already found for `preset`.
PipelinePlan planPipeline(const Preset &preset, const DatasetShape &datasetShape, Issues structuralIssues);

} // namespace ty
