// Shape rules of the blocks that rearrange a sample's dimensions (permute, squeeze, unsqueeze) and of the learned
// positional embedding. Dimensions are counted within a sample, from 0; the batch dimension is not among them.

#include "shape_rule_support.h"
#include "shape_rules.h"

#include <QJsonArray>

namespace ty {

using namespace shaperules;

namespace {

const QString kInPort = QStringLiteral("in");

Result<OpShape> permuteShape(const QString &nodeId, const QJsonObject &params, const std::vector<SampleShape> &inputs)
{
    const SampleShape in = firstInput(inputs);
    const QJsonArray dims = params.value(QStringLiteral("dims")).toArray();
    const QString field = QStringLiteral("dims");
    if (dims.size() != qsizetype(in.size()))
        return Error::atNode(nodeId, QStringLiteral("lists %1 dimensions for a %2 sample of %3").arg(dims.size()).arg(shapeText(in)).arg(in.size()), field);
    SampleShape out;
    std::vector<bool> used(in.size(), false);
    for (const QJsonValue &v : dims) {
        const double d = v.toDouble();
        if (d < 0 || d >= double(in.size()) || d != double(int64_t(d)) || used[size_t(d)])
            return Error::atNode(nodeId, QStringLiteral("must list each of the dimensions 0 to %1 once").arg(in.size() - 1), field);
        used[size_t(d)] = true;
        out.push_back(in[size_t(d)]);
    }
    return OpShape{out, 0};
}

Result<OpShape> squeezeShape(const QString &nodeId, const QJsonObject &params, const std::vector<SampleShape> &inputs)
{
    SampleShape in = firstInput(inputs);
    const int64_t dim = intParam(params, "dim");
    if (dim >= int64_t(in.size()) || in[size_t(dim)] != 1)
        return Error::atNode(nodeId, QStringLiteral("dimension %1 of a %2 sample is not of size 1").arg(dim).arg(shapeText(in)), QStringLiteral("dim"));
    if (in.size() == 1)
        return Error::atNode(nodeId, QStringLiteral("would leave a sample without dimensions"), QStringLiteral("dim"));
    in.erase(in.begin() + dim);
    return OpShape{in, 0};
}

Result<OpShape> unsqueezeShape(const QString &nodeId, const QJsonObject &params, const std::vector<SampleShape> &inputs)
{
    SampleShape in = firstInput(inputs);
    const int64_t dim = intParam(params, "dim");
    if (dim > int64_t(in.size()))
        return Error::atNode(nodeId, QStringLiteral("a %1 sample has no position %2 for a new dimension (0 to %3)").arg(shapeText(in)).arg(dim).arg(in.size()),
                             QStringLiteral("dim"));
    in.insert(in.begin() + dim, 1);
    return OpShape{in, 0};
}

// A learned [steps, features] table added to each sample.
Result<OpShape> positionalEmbeddingShape(const QString &nodeId, const QJsonObject &, const std::vector<SampleShape> &inputs)
{
    const SampleShape in = firstInput(inputs);
    if (in.size() != 2)
        return Error::atNode(nodeId, QStringLiteral("expects [steps, features] samples, got %1").arg(shapeText(in)), kInPort);
    return OpShape{in, in[0] * in[1], weightAndBias({in[0], in[1]}, 0)};
}

} // namespace

void addDimensionShapeRules(ShapeRules &rules)
{
    rules.ops.add(QStringLiteral("layer.permute"), permuteShape);
    rules.ops.add(QStringLiteral("layer.squeeze"), squeezeShape);
    rules.ops.add(QStringLiteral("layer.unsqueeze"), unsqueezeShape);
    rules.ops.add(QStringLiteral("layer.positional_embedding"), positionalEmbeddingShape);
}

} // namespace ty
