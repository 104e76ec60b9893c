#pragma once
// The shape rules of every block kind, one registration per kind keyed by its type id: what a transform or
// layer node outputs and how many parameters it trains, whether a loss or metric head can compare the
// predictions it is given with the dataset's targets, and how much state an optimizer keeps. The rules
// themselves live in shape_rules_*.cpp, one file per family; inferOpShape and headProblem (block_shapes.h)
// look a node's rule up once when the pipeline is planned.

#include "block_shapes.h"
#include "kind_table.h"

namespace ty {

// A transform.* or layer.* rule. `inputs` are the shapes of the node's tensor inputs in the order of its ports;
// errors name the node and, where one is to blame, the parameter or the port. inferOpShape adds the check that
// no output dimension is empty, so a rule need not.
using OpShapeRule = Result<OpShape> (*)(const QString &nodeId, const QJsonObject &params,
                                        const std::vector<SampleShape> &inputs);
// A loss.* or metric.* rule: why it cannot compare `prediction` with the dataset's targets, or empty.
using HeadShapeRule = QString (*)(const SampleShape &prediction, const DatasetShape &data, const QJsonObject &params);

// An optimizer.* rule: how many values the optimizer keeps per trainable parameter (Adam's two moments, SGD's
// momentum buffer when momentum is above 0, ...), from the node's effective parameters. The memory estimate
// (memory_estimate.h) reads it; tests/engine checks it against the state LibTorch keeps.
using OptimizerStateRule = int (*)(const QJsonObject &params);

struct ShapeRules {
    KindTable<OpShapeRule> ops;      // transforms and layers
    KindTable<HeadShapeRule> heads;  // losses and metrics
    KindTable<OptimizerStateRule> optimizers;

    // Every built-in rule, registered once on first use.
    static const ShapeRules &builtin();
};

// The built-in rules, by family (defined in shape_rules_*.cpp).
void addTransformShapeRules(ShapeRules &rules);
void addLayerShapeRules(ShapeRules &rules);
void addSequenceShapeRules(ShapeRules &rules);
void addImageLayerShapeRules(ShapeRules &rules);
void addDimensionShapeRules(ShapeRules &rules);
void addAttentionShapeRules(ShapeRules &rules);
void addHeadShapeRules(ShapeRules &rules);
void addOptimizerStateRules(ShapeRules &rules);

} // namespace ty
