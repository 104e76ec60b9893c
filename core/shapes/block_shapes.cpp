#include "block_shapes.h"

#include "shape_rule_support.h"
#include "shape_rules.h"

namespace ty {

using namespace shaperules;

SlidingWindow slidingWindow(const QJsonObject &params)
{
    SlidingWindow w;
    w.kernel = intParam(params, "kernel_size");
    w.stride = intParam(params, "stride") > 0 ? intParam(params, "stride") : w.kernel;
    w.padding = intParam(params, "padding");
    return w;
}

Result<OpShape> inferOpShape(const QString &blockType, const QString &nodeId, const QJsonObject &params,
                             const std::vector<SampleShape> &inputs)
{
    const OpShapeRule *rule = ShapeRules::builtin().ops.find(blockType);
    if (!rule)
        return Error::atNode(nodeId, QStringLiteral("no shape rule for block \"%1\"").arg(blockType), QStringLiteral("block"));
    Result<OpShape> shape = (*rule)(nodeId, params, inputs);
    if (!shape)
        return shape;
    for (int64_t d : shape.value().output)
        if (d <= 0)
            return Error::atNode(nodeId, QStringLiteral("the output would be empty (%1); the input %2 is too small")
                                             .arg(shapeText(shape.value().output), inputs.empty() ? QStringLiteral("[]") : shapeText(inputs[0])));
    return shape;
}

QString headProblem(const QString &blockType, const SampleShape &prediction, const DatasetShape &data, const QJsonObject &params)
{
    const HeadShapeRule *rule = ShapeRules::builtin().heads.find(blockType);
    if (!rule)
        return QStringLiteral("no shape rule for block \"%1\"").arg(blockType);
    return (*rule)(prediction, data, params);
}

} // namespace ty
