// Shape and parameter-count rules of the attention blocks: multi-head self-attention and the transformer encoder
// layer, both over [steps, features] samples, keeping their shape.

#include "shape_rule_support.h"
#include "shape_rules.h"

namespace ty {

using namespace shaperules;

namespace {

// The input projections of queries, keys and values (weights and biases) and the output projection.
int64_t attentionParams(int64_t features) { return 4 * features * features + 4 * features; }

Result<SampleShape> attentionInput(const QString &nodeId, const QJsonObject &params, const std::vector<SampleShape> &inputs)
{
    const SampleShape in = firstInput(inputs);
    if (in.size() != 2)
        return Error::atNode(nodeId, QStringLiteral("expects [steps, features] samples, got %1 (an embedding or a permute gives them)")
                                         .arg(shapeText(in)), QStringLiteral("in"));
    const int64_t heads = intParam(params, "heads");
    if (in[1] % heads != 0)
        return Error::atNode(nodeId, QStringLiteral("%1 features do not divide into %2 heads").arg(in[1]).arg(heads), QStringLiteral("heads"));
    return in;
}

Result<OpShape> selfAttentionShape(const QString &nodeId, const QJsonObject &params, const std::vector<SampleShape> &inputs)
{
    const Result<SampleShape> in = attentionInput(nodeId, params, inputs);
    if (!in)
        return in.error();
    return OpShape{in.value(), attentionParams(in.value()[1])};
}

// Self-attention, then a feed-forward network of ff_dim, each followed by a residual sum and a layer norm.
Result<OpShape> transformerEncoderShape(const QString &nodeId, const QJsonObject &params, const std::vector<SampleShape> &inputs)
{
    const Result<SampleShape> in = attentionInput(nodeId, params, inputs);
    if (!in)
        return in.error();
    const int64_t e = in.value()[1], ff = intParam(params, "ff_dim");
    return OpShape{in.value(), attentionParams(e) + (e * ff + ff) + (ff * e + e) + 4 * e};
}

} // namespace

void addAttentionShapeRules(ShapeRules &rules)
{
    rules.ops.add(QStringLiteral("layer.self_attention"), selfAttentionShape);
    rules.ops.add(QStringLiteral("layer.transformer_encoder"), transformerEncoderShape);
}

} // namespace ty
