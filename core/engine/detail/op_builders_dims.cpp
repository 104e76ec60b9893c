// Builders of the blocks that rearrange a sample's dimensions, and of the learned positional embedding. A
// sample's dimension d is the batch's d + 1.

#include "detail/block_ops.h"

#include <QJsonArray>

namespace ty::detail {

namespace {

BuiltOp buildPermute(const QJsonObject &params, const Shape &)
{
    std::vector<int64_t> order{0};
    for (const QJsonValue &v : params.value(QStringLiteral("dims")).toArray())
        order.push_back(int64_t(v.toDouble()) + 1);
    return unaryOp([order](const torch::Tensor &x, bool) { return x.permute(order); });
}

BuiltOp buildSqueeze(const QJsonObject &params, const Shape &)
{
    const int64_t dim = intParam(params, "dim") + 1;
    return unaryOp([dim](const torch::Tensor &x, bool) { return x.squeeze(dim); });
}

BuiltOp buildUnsqueeze(const QJsonObject &params, const Shape &)
{
    const int64_t dim = intParam(params, "dim") + 1;
    return unaryOp([dim](const torch::Tensor &x, bool) { return x.unsqueeze(dim); });
}

// One learned value per step and feature, added to every sample; starts small (normal, standard deviation 0.02).
BuiltOp buildPositionalEmbedding(const QJsonObject &, const Shape &in)
{
    // The handle follows Module::to() and loaded weights, which both change the tensor in place.
    auto table = std::make_shared<torch::nn::Module>();
    const torch::Tensor weight = table->register_parameter("weight", torch::randn({in[0], in[1]}) * 0.02);
    return unaryOp([weight](const torch::Tensor &x, bool) { return x + weight; }, table);
}

} // namespace

void addDimensionBuilders(KindTable<OpBuilder> &builders)
{
    builders.add(QStringLiteral("layer.permute"), buildPermute);
    builders.add(QStringLiteral("layer.squeeze"), buildSqueeze);
    builders.add(QStringLiteral("layer.unsqueeze"), buildUnsqueeze);
    builders.add(QStringLiteral("layer.positional_embedding"), buildPositionalEmbedding);
}

} // namespace ty::detail
