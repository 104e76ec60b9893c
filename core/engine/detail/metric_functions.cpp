// The metric of every metric.* block, one registration per kind. Each returns a sum over the batch, so
// intervals and evaluation splits add sums and divide once by their sample count.

#include "detail/heads.h"

namespace ty::detail {

namespace {

torch::Tensor correctPredictions(const MetricHead &, const torch::Tensor &prediction, const torch::Tensor &target)
{
    return prediction.argmax(1).eq(target).sum();
}

torch::Tensor correctInTopK(const MetricHead &head, const torch::Tensor &prediction, const torch::Tensor &target)
{
    const torch::Tensor top = std::get<1>(prediction.topk(head.k, 1));
    return top.eq(target.view({-1, 1})).any(1).sum();
}

torch::Tensor absoluteError(const MetricHead &, const torch::Tensor &prediction, const torch::Tensor &target)
{
    return (prediction - regressionTargets(prediction, target)).abs().mean(1).sum();
}

} // namespace

const KindTable<MetricFunction> &metricFunctions()
{
    static const KindTable<MetricFunction> functions = [] {
        KindTable<MetricFunction> t;
        t.add(QStringLiteral("metric.accuracy"), correctPredictions);
        t.add(QStringLiteral("metric.top_k_accuracy"), correctInTopK);
        t.add(QStringLiteral("metric.mae"), absoluteError);
        return t;
    }();
    return functions;
}

} // namespace ty::detail
