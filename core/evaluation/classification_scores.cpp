#include "classification_scores.h"

#include <algorithm>

namespace ty {

namespace {

double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

// Precision, recall and F1 of class `c` from the confusion matrix (rows true, columns predicted).
ClassScore scoreOf(const std::vector<qint64> &confusion, int64_t classes, int64_t c, const QString &name)
{
    qint64 predicted = 0, actual = 0;
    for (int64_t k = 0; k < classes; ++k) {
        predicted += confusion[size_t(k * classes + c)];
        actual += confusion[size_t(c * classes + k)];
    }
    const double hits = double(confusion[size_t(c * classes + c)]);
    ClassScore s;
    s.name = name;
    s.precision = ratio(hits, double(predicted));
    s.recall = ratio(hits, double(actual));
    s.f1 = ratio(2 * s.precision * s.recall, s.precision + s.recall);
    s.support = actual;
    return s;
}

} // namespace

void scoreClassification(const std::vector<float> &logits, const std::vector<int64_t> &labels, int64_t classes,
                         const QStringList &classNames, int topK, EvaluationReport *report)
{
    EvaluationReport &r = *report;
    const int64_t count = int64_t(labels.size());
    r.classification = true;
    r.count = count;
    r.classes.clear();
    for (int64_t c = 0; c < classes; ++c)
        r.classes.append(c < classNames.size() && !classNames[int(c)].isEmpty() ? classNames[int(c)] : QString::number(c));
    r.topK = int(std::clamp<int64_t>(topK, 1, std::max<int64_t>(1, classes)));
    r.confusion.assign(size_t(classes * classes), 0);
    r.samples.clear();
    r.samples.reserve(size_t(count));

    // Softmax probabilities, computed stably from each row's maximum: the confidences and the curves' scores.
    const std::vector<double> probabilities = softmaxRows(logits, classes);
    qint64 correct = 0, inTopK = 0;
    for (int64_t i = 0; i < count; ++i) {
        const float *row = logits.data() + i * classes;
        const int64_t best = std::max_element(row, row + classes) - row;  // the first maximum, as argmax
        const int64_t label = labels[size_t(i)];
        // The label is in the top k when fewer than k classes score strictly higher, or tie before it.
        int64_t ahead = 0;
        for (int64_t c = 0; c < classes; ++c)
            if (row[c] > row[label] || (row[c] == row[label] && c < label))
                ++ahead;
        if (ahead < r.topK)
            ++inTopK;
        if (best == label)
            ++correct;
        if (label >= 0 && label < classes)
            ++r.confusion[size_t(label * classes + best)];
        r.samples.push_back(EvaluatedSample{i, double(label), double(best), probabilities[size_t(i * classes + best)]});
    }
    r.accuracy = ratio(double(correct), double(count));
    r.topKAccuracy = ratio(double(inTopK), double(count));

    r.perClass.clear();
    ClassScore macro, weighted;
    macro.name = QStringLiteral("macro avg");
    weighted.name = QStringLiteral("weighted avg");
    for (int64_t c = 0; c < classes; ++c) {
        const ClassScore s = scoreOf(r.confusion, classes, c, r.classes[int(c)]);
        r.perClass.append(s);
        macro.precision += s.precision / double(classes);
        macro.recall += s.recall / double(classes);
        macro.f1 += s.f1 / double(classes);
        const double w = ratio(double(s.support), double(count));
        weighted.precision += s.precision * w;
        weighted.recall += s.recall * w;
        weighted.f1 += s.f1 * w;
    }
    macro.support = weighted.support = count;
    r.macroAverage = macro;
    r.weightedAverage = weighted;
    r.curves = classifierCurves(probabilities, labels, classes, r.classes);
}

} // namespace ty
