#include "detail/block_ops.h"

namespace ty::detail {

const KindTable<OpBuilder> &opBuilders()
{
    static const KindTable<OpBuilder> builders = [] {
        KindTable<OpBuilder> t;
        addTransformBuilders(t);
        addLayerBuilders(t);
        addSequenceBuilders(t);
        addImageLayerBuilders(t);
        addDimensionBuilders(t);
        addAttentionBuilders(t);
        return t;
    }();
    return builders;
}

BuiltOp unaryOp(std::function<torch::Tensor(const torch::Tensor &, bool)> fn, std::shared_ptr<torch::nn::Module> module)
{
    BuiltOp op;
    op.module = std::move(module);
    op.forward = [fn = std::move(fn)](const std::vector<torch::Tensor> &in, bool training) { return fn(in[0], training); };
    return op;
}

Result<BuiltOp> buildOp(const PlannedOp &planned)
{
    const OpBuilder *builder = opBuilders().find(planned.blockType);
    if (!builder) {
        return Error::atNode(planned.nodeId, QStringLiteral("no builder for block \"%1\"").arg(planned.blockType), QStringLiteral("block"));
    }
    return (*builder)(planned.params, planned.inputShapes.empty() ? Shape{} : planned.inputShapes[0]);
}

} // namespace ty::detail
