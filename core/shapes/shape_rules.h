#pragma once
// The shape rules of every block kind, one registration per kind keyed by its type id: what a transform or
// layer node outputs and how many parameters it trains, what it computes (multiply-accumulates, receptive field),
// whether a loss or metric head can compare the predictions it is given with the dataset's targets, and how much
// state an optimizer keeps. The rules
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

// How a transform or layer changes the receptive field of what flows through it (cost_estimate.h).
struct FieldStep {
    enum Kind {
        Keep,    // position by position (activations, normalisation per channel, joins): the inputs' field, the largest
        Window,  // a sliding window of `kernel` and `stride` positions per spatial axis (convolution, pooling)
        End,     // mixes positions otherwise or leaves the grid (linear, flatten, attention): no field after it
    };
    Kind kind = End;
    std::vector<int64_t> kernel, stride;  // Window: one per spatial axis
};

// A transform or layer's cost for one sample in a forward pass.
struct OpCost {
    double macs = 0;  // multiply-accumulates: products with a weight, or of two activations in a matrix product
    FieldStep field;
};

// A transform.* or layer.* cost rule, from the node's effective parameters and the shapes inferOpShape found
// (called only for nodes whose shape rule succeeded).
using OpCostRule = OpCost (*)(const QJsonObject &params, const std::vector<SampleShape> &inputs, const SampleShape &output);

struct ShapeRules {
    KindTable<OpShapeRule> ops;      // transforms and layers
    KindTable<OpCostRule> costs;     // transforms and layers
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
void addCostRules(ShapeRules &rules);  // shape_rules_costs.cpp

} // namespace ty
