#pragma once
// Internal to ty_engine (includes LibTorch). The builders that turn one planned network node (transform or
// layer, already checked and shaped by core/shapes) into a torch operation: one registration per block kind,
// keyed by its type id (op_builders_*.cpp), looked up once per node when the pipeline is compiled.

#include "kind_table.h"
#include "pipeline_plan.h"

#include <torch/torch.h>

#include <functional>
#include <vector>

namespace ty::detail {

using Shape = SampleShape;

struct BuiltOp {
    std::shared_ptr<torch::nn::Module> module;  // holds the parameters, if any
    // inputs: batches [B, ...]; training: whether random transforms and dropout are active.
    std::function<torch::Tensor(const std::vector<torch::Tensor> &inputs, bool training)> forward;
};

// Builds the op of one block kind from the node's effective parameters and its first input's sample shape
// (the shape rules have already accepted both).
using OpBuilder = BuiltOp (*)(const QJsonObject &params, const Shape &in);

// Every built-in builder, registered once on first use.
const KindTable<OpBuilder> &opBuilders();
// The built-in builders, by family (defined in op_builders_*.cpp).
void addTransformBuilders(KindTable<OpBuilder> &builders);
void addLayerBuilders(KindTable<OpBuilder> &builders);
void addSequenceBuilders(KindTable<OpBuilder> &builders);
void addImageLayerBuilders(KindTable<OpBuilder> &builders);
void addDimensionBuilders(KindTable<OpBuilder> &builders);
void addAttentionBuilders(KindTable<OpBuilder> &builders);

// Builds the op of a planned node. Fails only for a block type that has no builder.
Result<BuiltOp> buildOp(const PlannedOp &op);

// An op of one input; `module`, if any, holds its parameters or buffers.
BuiltOp unaryOp(std::function<torch::Tensor(const torch::Tensor &, bool training)> fn,
                std::shared_ptr<torch::nn::Module> module = nullptr);

inline int64_t intParam(const QJsonObject &params, const char *key)
{
    return static_cast<int64_t>(params.value(QString::fromLatin1(key)).toDouble());
}

inline double floatParam(const QJsonObject &params, const char *key)
{
    return params.value(QString::fromLatin1(key)).toDouble();
}

} // namespace ty::detail
