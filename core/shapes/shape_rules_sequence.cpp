// Shape and parameter-count rules of the sequence blocks: embedding, LSTM and GRU.

#include "shape_rule_support.h"
#include "shape_rules.h"

namespace ty {

using namespace shaperules;

namespace {
const QString kInPort = QStringLiteral("in");
}

namespace {

// A [length] sample of ids becomes [length, dim].
Result<OpShape> embeddingShape(const QString &nodeId, const QJsonObject &params, const std::vector<SampleShape> &inputs)
{
    const SampleShape in = firstInput(inputs);
    if (in.size() != 1)
        return Error::atNode(nodeId, QStringLiteral("expects [length] samples of ids, got %1").arg(shapeText(in)), kInPort);
    const int64_t dim = intParam(params, "dim");
    return OpShape{{in[0], dim}, intParam(params, "num_embeddings") * dim, weightAndBias({intParam(params, "num_embeddings"), dim}, 0)};
}

// LSTM (4 gates) and GRU (3 gates): per layer and direction an input and a recurrent weight and two biases.
Result<OpShape> recurrentShape(const QString &nodeId, const QJsonObject &params, const std::vector<SampleShape> &inputs,
                               int64_t gates)
{
    const SampleShape in = firstInput(inputs);
    if (in.size() != 2)
        return Error::atNode(nodeId, QStringLiteral("expects [steps, features] samples, got %1 (an embedding or a reshape gives them)")
                                         .arg(shapeText(in)), kInPort);
    const int64_t hidden = intParam(params, "hidden_size");
    const int64_t layers = intParam(params, "num_layers");
    const int64_t directions = boolParam(params, "bidirectional") ? 2 : 1;
    int64_t count = 0;
    for (int64_t layer = 0; layer < layers; ++layer) {
        const int64_t width = layer == 0 ? in[1] : hidden * directions;
        count += directions * gates * hidden * (width + hidden + 2);
    }
    const int64_t out = hidden * directions;
    const bool sequence = params.value(QStringLiteral("output")).toString() == QStringLiteral("sequence");
    return OpShape{sequence ? SampleShape{in[0], out} : SampleShape{out}, count};
}

Result<OpShape> lstmShape(const QString &nodeId, const QJsonObject &params, const std::vector<SampleShape> &inputs)
{
    return recurrentShape(nodeId, params, inputs, 4);
}

Result<OpShape> gruShape(const QString &nodeId, const QJsonObject &params, const std::vector<SampleShape> &inputs)
{
    return recurrentShape(nodeId, params, inputs, 3);
}

} // namespace

void addSequenceShapeRules(ShapeRules &rules)
{
    rules.ops.add(QStringLiteral("layer.embedding"), embeddingShape);
    rules.ops.add(QStringLiteral("layer.lstm"), lstmShape);
    rules.ops.add(QStringLiteral("layer.gru"), gruShape);
}

} // namespace ty
