#include "regression_scores.h"

#include <cmath>

namespace ty {

void scoreRegression(const std::vector<float> &predictions, const std::vector<float> &targets, int64_t width,
                     EvaluationReport *report)
{
    EvaluationReport &r = *report;
    const int64_t count = width > 0 ? int64_t(targets.size()) / width : 0;
    r.classification = false;
    r.count = count;
    r.samples.clear();
    r.samples.reserve(size_t(count));
    std::vector<double> columnMean(size_t(width), 0.0);
    for (int64_t i = 0; i < count; ++i)
        for (int64_t j = 0; j < width; ++j)
            columnMean[size_t(j)] += double(targets[size_t(i * width + j)]) / double(count);
    double absolute = 0, squared = 0, total = 0;
    for (int64_t i = 0; i < count; ++i) {
        double norm = 0;
        for (int64_t j = 0; j < width; ++j) {
            const size_t at = size_t(i * width + j);
            const double residual = double(predictions[at]) - double(targets[at]);
            absolute += std::abs(residual);
            squared += residual * residual;
            norm += residual * residual;
            const double spread = double(targets[at]) - columnMean[size_t(j)];
            total += spread * spread;
        }
        r.samples.push_back(EvaluatedSample{i, double(targets[size_t(i * width)]), double(predictions[size_t(i * width)]),
                                            std::sqrt(norm)});
    }
    const double values = double(count * width);
    r.mae = values > 0 ? absolute / values : 0;
    r.rmse = values > 0 ? std::sqrt(squared / values) : 0;
    r.r2 = total > 0 ? 1.0 - squared / total : 0;
}

} // namespace ty
