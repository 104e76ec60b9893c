#include "evaluation_report.h"

#include <algorithm>

namespace ty {

qint64 EvaluationReport::confusionAt(int trueClass, int predictedClass) const
{
    const qint64 n = classes.size();
    if (trueClass < 0 || predictedClass < 0 || trueClass >= n || predictedClass >= n || confusion.size() != size_t(n * n))
        return 0;
    return confusion[size_t(trueClass * n + predictedClass)];
}

QList<EvaluatedSample> EvaluationReport::worst(int limit) const
{
    std::vector<EvaluatedSample> chosen;
    for (const EvaluatedSample &s : samples)
        if (!classification || s.label != s.predicted)
            chosen.push_back(s);
    // Most confident mistakes (or largest residuals) first; ties by index so the order is stable.
    const auto byConfidence = [](const EvaluatedSample &a, const EvaluatedSample &b) {
        return a.confidence != b.confidence ? a.confidence > b.confidence : a.index < b.index;
    };
    const size_t keep = std::min(chosen.size(), size_t(std::max(0, limit)));
    std::partial_sort(chosen.begin(), chosen.begin() + ptrdiff_t(keep), chosen.end(), byConfidence);
    return QList<EvaluatedSample>(chosen.begin(), chosen.begin() + ptrdiff_t(keep));
}

QString EvaluationReport::className(double index) const
{
    const int i = int(index);
    return i >= 0 && i < classes.size() && double(i) == index ? classes[i] : QString::number(index);
}

} // namespace ty
