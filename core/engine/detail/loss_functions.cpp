// The loss function of every loss.* block, one registration per kind.

#include "detail/heads.h"

namespace ty::detail {

namespace {

namespace F = torch::nn::functional;

torch::Tensor crossEntropy(const LossHead &head, const torch::Tensor &prediction, const torch::Tensor &target)
{
    return F::cross_entropy(prediction, target, F::CrossEntropyFuncOptions().label_smoothing(head.labelSmoothing));
}

torch::Tensor meanSquaredError(const LossHead &, const torch::Tensor &prediction, const torch::Tensor &target)
{
    return F::mse_loss(prediction, regressionTargets(prediction, target));
}

torch::Tensor meanAbsoluteError(const LossHead &, const torch::Tensor &prediction, const torch::Tensor &target)
{
    return F::l1_loss(prediction, regressionTargets(prediction, target));
}

torch::Tensor huber(const LossHead &head, const torch::Tensor &prediction, const torch::Tensor &target)
{
    return F::huber_loss(prediction, regressionTargets(prediction, target), F::HuberLossFuncOptions().delta(head.delta));
}

torch::Tensor binaryCrossEntropyWithLogits(const LossHead &, const torch::Tensor &prediction, const torch::Tensor &target)
{
    return F::binary_cross_entropy_with_logits(prediction, regressionTargets(prediction, target));
}

torch::Tensor negativeLogLikelihood(const LossHead &, const torch::Tensor &prediction, const torch::Tensor &target)
{
    return F::nll_loss(prediction, target);
}

// Class labels stand for one-hot distributions; regression targets are the distributions themselves.
torch::Tensor klDivergence(const LossHead &, const torch::Tensor &prediction, const torch::Tensor &target)
{
    const torch::Tensor distribution = target.dim() == 1 && !target.is_floating_point()
                                           ? torch::one_hot(target, prediction.size(1)).to(prediction.dtype())
                                           : regressionTargets(prediction, target);
    return F::kl_div(prediction, distribution, F::KLDivFuncOptions().reduction(torch::kBatchMean));
}

} // namespace

const KindTable<LossFunction> &lossFunctions()
{
    static const KindTable<LossFunction> functions = [] {
        KindTable<LossFunction> t;
        t.add(QStringLiteral("loss.cross_entropy"), crossEntropy);
        t.add(QStringLiteral("loss.mse"), meanSquaredError);
        t.add(QStringLiteral("loss.l1"), meanAbsoluteError);
        t.add(QStringLiteral("loss.huber"), huber);
        t.add(QStringLiteral("loss.bce_with_logits"), binaryCrossEntropyWithLogits);
        t.add(QStringLiteral("loss.nll"), negativeLogLikelihood);
        t.add(QStringLiteral("loss.kl_div"), klDivergence);
        return t;
    }();
    return functions;
}

} // namespace ty::detail
