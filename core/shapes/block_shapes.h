#pragma once
// The shape of every transform, layer, loss and metric node: what a node outputs and how many
// parameters it trains, computed from its parameters and the per-sample shapes of its inputs. The engine
// builds its torch modules from these results and checks, at every compile, that what it built agrees. Each
// block kind's rule is one registration in shape_rules_*.cpp (see shape_rules.h).

#include "dataset_arrays.h"
#include "error.h"
#include "shape_types.h"

#include <QJsonObject>

namespace ty {

// A tensor of a layer that weights are loaded into: a parameter, or a running statistic of batch norm.
struct LayerTensor {
    QString name;       // within the layer, as LibTorch and PyTorch name it: "weight", "bias", "running_mean"
    SampleShape shape;
};

struct OpShape {
    SampleShape output;
    qint64 params = 0;  // trainable parameters
    // Its parameters and running statistics, in the order LibTorch registers them (parameters first). Empty for a
    // layer without any, and for one whose rule does not list them (LSTM, GRU, attention: params > 0 then). The
    // engine checks a listed set against the layer it builds; warm-start checks before training use it.
    std::vector<LayerTensor> tensors;
};

// The window of a convolution or pooling node, from its parameters (a stride of 0 means the kernel size).
struct SlidingWindow {
    int64_t kernel = 1, stride = 1, padding = 0;
};
SlidingWindow slidingWindow(const QJsonObject &params);

// A transform.* or layer.* node. `params` are the effective parameters; `inputs` the shapes of its tensor
// inputs in the order of the block's ports. Errors name the node and, where one is to blame, the parameter or
// the port; a block type without a shape rule is an error on the node's "block" field.
Result<OpShape> inferOpShape(const QString &blockType, const QString &nodeId, const QJsonObject &params,
                             const std::vector<SampleShape> &inputs);

// Why a loss or metric node cannot compare predictions of shape `prediction` with the dataset's targets;
// empty when it can, and a sentence saying so for a block type without a shape rule.
QString headProblem(const QString &blockType, const SampleShape &prediction, const DatasetShape &data,
                    const QJsonObject &params);

} // namespace ty
