// Shape rules of the transform.* blocks: every transform keeps its input's shape and trains nothing; the
// rules check that the samples suit the transform and that its parameters fit them.

#include "shape_rule_support.h"
#include "shape_rules.h"

#include <QJsonArray>

namespace ty {

using namespace shaperules;

namespace {

Result<OpShape> normalizeShape(const QString &nodeId, const QJsonObject &params, const std::vector<SampleShape> &inputs)
{
    const SampleShape in = firstInput(inputs);
    const int64_t channels = in.empty() ? 1 : in[0];
    for (const QString &name : {QStringLiteral("mean"), QStringLiteral("std")}) {
        const QJsonArray list = params.value(name).toArray();
        if (list.size() != 1 && list.size() != channels)
            return Error::atNode(nodeId, QStringLiteral("needs 1 or %1 values (one per channel), got %2").arg(channels).arg(list.size()), name);
    }
    for (const QJsonValue &v : params.value(QStringLiteral("std")).toArray())
        if (v.toDouble() == 0.0)
            return Error::atNode(nodeId, QStringLiteral("a standard deviation of 0 would divide by zero"), QStringLiteral("std"));
    return OpShape{in, 0};
}

Result<OpShape> randomHflipShape(const QString &nodeId, const QJsonObject &, const std::vector<SampleShape> &inputs)
{
    const SampleShape in = firstInput(inputs);
    if (in.size() < 2)
        return Error::atNode(nodeId, QStringLiteral("expects image samples %1, got %2").arg(imageSamples(), shapeText(in)), QStringLiteral("in"));
    return OpShape{in, 0};
}

Result<OpShape> randomCropShape(const QString &nodeId, const QJsonObject &, const std::vector<SampleShape> &inputs)
{
    const SampleShape in = firstInput(inputs);
    if (in.size() != 3)
        return Error::atNode(nodeId, QStringLiteral("expects %1 samples, got %2").arg(imageSamples(), shapeText(in)), QStringLiteral("in"));
    return OpShape{in, 0};
}

Result<OpShape> randomAffineShape(const QString &nodeId, const QJsonObject &params, const std::vector<SampleShape> &inputs)
{
    if (params.value(QStringLiteral("scale_min")).toDouble() > params.value(QStringLiteral("scale_max")).toDouble())
        return Error::atNode(nodeId, QStringLiteral("scale_min %1 is above scale_max %2")
                                         .arg(params.value(QStringLiteral("scale_min")).toDouble())
                                         .arg(params.value(QStringLiteral("scale_max")).toDouble()), QStringLiteral("scale_min"));
    return randomCropShape(nodeId, params, inputs);
}

Result<OpShape> sameShape(const QString &, const QJsonObject &, const std::vector<SampleShape> &inputs)
{
    return OpShape{firstInput(inputs), 0};
}

} // namespace

void addTransformShapeRules(ShapeRules &rules)
{
    rules.ops.add(QStringLiteral("transform.normalize"), normalizeShape);
    rules.ops.add(QStringLiteral("transform.random_hflip"), randomHflipShape);
    rules.ops.add(QStringLiteral("transform.random_crop"), randomCropShape);
    rules.ops.add(QStringLiteral("transform.gaussian_noise"), sameShape);
    rules.ops.add(QStringLiteral("transform.random_affine"), randomAffineShape);
    rules.ops.add(QStringLiteral("transform.color_jitter"), sameShape);
    rules.ops.add(QStringLiteral("transform.cutout"), randomCropShape);
}

} // namespace ty
