// The metric of every metric.* block, one registration per kind: the statistics of a batch, which add up over
// batches, and the metric's value from summed statistics; or, for a metric of a whole pass, its value from the
// pass's outputs (see MetricFunction in heads.h).

#include "detail/heads.h"

#include "classifier_curves.h"

#include <cmath>
#include <limits>

namespace ty::detail {

namespace {

// Statistics that are one sum of per-sample values, whose metric is their mean.
double meanOfSum(const double *statistics, int64_t, double samples)
{
    return samples > 0 ? statistics[0] / samples : 0.0;
}

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

// Per class: true positives, predicted count and actual count, as [3, classes]. By comparison with every class
// rather than bincount, which on CUDA reads sizes back to the host (and is not deterministic in 1.13).
torch::Tensor classCounts(const MetricHead &, const torch::Tensor &prediction, const torch::Tensor &target)
{
    const torch::Tensor classes = torch::arange(prediction.size(1), target.options().dtype(torch::kLong)).unsqueeze(0);
    const torch::Tensor predicted = prediction.argmax(1).unsqueeze(1).eq(classes);  // [B, classes]
    const torch::Tensor actual = target.to(torch::kLong).unsqueeze(1).eq(classes);
    return torch::stack({predicted.logical_and(actual).sum(0), predicted.sum(0), actual.sum(0)});
}

// The macro average over the classes that occur among the labels or the predictions (as scikit-learn averages
// when not given the labels); a class never predicted has precision 0, one never present recall 0.
template <typename PerClass>
double macroAverage(const double *counts, int64_t count, PerClass perClass)
{
    const int64_t classes = count / 3;
    double sum = 0;
    int64_t seen = 0;
    for (int64_t c = 0; c < classes; ++c) {
        const double hits = counts[c], predicted = counts[classes + c], actual = counts[2 * classes + c];
        if (predicted + actual == 0)
            continue;
        sum += perClass(hits, predicted, actual);
        ++seen;
    }
    return seen > 0 ? sum / double(seen) : 0.0;
}

double macroPrecision(const double *counts, int64_t count, double)
{
    return macroAverage(counts, count, [](double hits, double predicted, double) { return predicted > 0 ? hits / predicted : 0.0; });
}

double macroRecall(const double *counts, int64_t count, double)
{
    return macroAverage(counts, count, [](double hits, double, double actual) { return actual > 0 ? hits / actual : 0.0; });
}

double macroF1(const double *counts, int64_t count, double)
{
    return macroAverage(counts, count, [](double hits, double predicted, double actual) { return 2 * hits / (predicted + actual); });
}

// Per sample, the mean over the target columns of the squared error; summed over the batch.
torch::Tensor squaredError(const MetricHead &, const torch::Tensor &prediction, const torch::Tensor &target)
{
    return (prediction - regressionTargets(prediction, target)).square().mean(1).sum();
}

double rootOfMean(const double *statistics, int64_t count, double samples)
{
    return std::sqrt(meanOfSum(statistics, count, samples));
}

// Per target column: the sums of targets, of squared targets and of squared residuals, as [3, columns], in
// double so that the total sum of squares keeps its digits.
torch::Tensor residualSums(const MetricHead &, const torch::Tensor &prediction, const torch::Tensor &target)
{
    const torch::Tensor y = regressionTargets(prediction, target).to(torch::kDouble);
    const torch::Tensor residual = prediction.to(torch::kDouble) - y;
    return torch::stack({y.sum(0), y.square().sum(0), residual.square().sum(0)});
}

// R² per target column, averaged over the columns. A constant target (no variance) scores 1 when predicted
// exactly and 0 otherwise, as scikit-learn's r2_score does.
double coefficientOfDetermination(const double *sums, int64_t count, double samples)
{
    const int64_t columns = count / 3;
    if (samples <= 0 || columns == 0)
        return 0.0;
    double total = 0;
    for (int64_t c = 0; c < columns; ++c) {
        const double sum = sums[c], squares = sums[columns + c], residual = sums[2 * columns + c];
        // A constant column leaves rounding residue of the order of squares * 1e-16 per addition, not zero.
        const double variation = squares - sum * sum / samples;
        if (variation > 1e-10 * squares)
            total += 1.0 - residual / variation;
        else
            total += residual == 0 ? 1.0 : 0.0;
    }
    return total / double(columns);
}

// One-vs-rest ROC AUC of the softmax of class logits over the pass (classifier_curves.h: the positive class's for
// two classes, else the macro average over the classes present), ties as scikit-learn's roc_auc_score counts them.
double rocAucOverPass(const torch::Tensor &outputs, const torch::Tensor &targets, QString *reason)
{
    const int64_t count = outputs.size(0);
    const int64_t classes = outputs.numel() / std::max<int64_t>(1, count);
    const torch::Tensor logits = outputs.to(torch::kCPU, torch::kFloat).contiguous();
    const torch::Tensor labels = targets.to(torch::kCPU, torch::kLong).contiguous();
    const std::vector<float> hostLogits(logits.data_ptr<float>(), logits.data_ptr<float>() + logits.numel());
    const std::vector<int64_t> hostLabels(labels.data_ptr<int64_t>(), labels.data_ptr<int64_t>() + labels.numel());
    const std::optional<double> auc = headlineRocAuc(softmaxRows(hostLogits, classes), hostLabels, classes, reason);
    return auc ? *auc : std::numeric_limits<double>::quiet_NaN();
}

} // namespace

const KindTable<MetricFunction> &metricFunctions()
{
    static const KindTable<MetricFunction> functions = [] {
        KindTable<MetricFunction> t;
        t.add(QStringLiteral("metric.accuracy"), {correctPredictions, meanOfSum});
        t.add(QStringLiteral("metric.top_k_accuracy"), {correctInTopK, meanOfSum});
        t.add(QStringLiteral("metric.mae"), {absoluteError, meanOfSum});
        t.add(QStringLiteral("metric.precision"), {classCounts, macroPrecision});
        t.add(QStringLiteral("metric.recall"), {classCounts, macroRecall});
        t.add(QStringLiteral("metric.f1"), {classCounts, macroF1});
        t.add(QStringLiteral("metric.rmse"), {squaredError, rootOfMean});
        t.add(QStringLiteral("metric.r2"), {residualSums, coefficientOfDetermination});
        t.add(QStringLiteral("metric.auc"), {nullptr, nullptr, rocAucOverPass});
        return t;
    }();
    return functions;
}

} // namespace ty::detail
