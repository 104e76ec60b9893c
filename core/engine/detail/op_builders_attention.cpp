// Builders of the attention blocks. LibTorch's attention takes [steps, batch, features]; the samples are batch
// first, so each forward transposes in and out. With `causal` a step attends only to itself and earlier steps.

#include "detail/block_ops.h"

#include <limits>

namespace ty::detail {

namespace {

bool isCausal(const QJsonObject &params) { return params.value(QStringLiteral("causal")).toBool(); }

// LibTorch's attention adds its mask to the scores: -inf above the diagonal hides from each step the later ones
// (an undefined tensor when not causal).
torch::Tensor futureMask(bool causal, const torch::Tensor &stepsFirst)
{
    if (!causal)
        return {};
    const int64_t steps = stepsFirst.size(0);
    return torch::full({steps, steps}, -std::numeric_limits<float>::infinity(), stepsFirst.options()).triu(1);
}

BuiltOp buildSelfAttention(const QJsonObject &params, const Shape &in)
{
    auto attention = torch::nn::MultiheadAttention(torch::nn::MultiheadAttentionOptions(in[1], intParam(params, "heads")));
    const bool causal = isCausal(params);
    return unaryOp([attention, causal](const torch::Tensor &x, bool) mutable {
        const torch::Tensor steps = x.transpose(0, 1);
        return std::get<0>(attention->forward(steps, steps, steps, {}, false, futureMask(causal, steps))).transpose(0, 1);
    }, attention.ptr());
}

BuiltOp buildTransformerEncoder(const QJsonObject &params, const Shape &in)
{
    torch::nn::TransformerEncoderLayerOptions options(in[1], intParam(params, "heads"));
    options.dim_feedforward(intParam(params, "ff_dim")).dropout(floatParam(params, "dropout"));
    if (params.value(QStringLiteral("activation")).toString() == QStringLiteral("gelu"))
        options.activation(torch::kGELU);
    else
        options.activation(torch::kReLU);
    auto layer = torch::nn::TransformerEncoderLayer(options);
    const bool causal = isCausal(params);
    return unaryOp([layer, causal](const torch::Tensor &x, bool) mutable {
        const torch::Tensor steps = x.transpose(0, 1);
        return layer->forward(steps, futureMask(causal, steps)).transpose(0, 1);
    }, layer.ptr());
}

} // namespace

void addAttentionBuilders(KindTable<OpBuilder> &builders)
{
    builders.add(QStringLiteral("layer.self_attention"), buildSelfAttention);
    builders.add(QStringLiteral("layer.transformer_encoder"), buildTransformerEncoder);
}

} // namespace ty::detail
