#pragma once
// Scores of a classifier from its outputs: accuracy, top-k accuracy, the confusion matrix, per-class precision,
// recall, F1 and support with their macro and weighted averages, per-sample predictions with confidences, and the
// one-vs-rest ROC and precision-recall curves with their areas (classifier_curves.h).
// Plain arrays in, no LibTorch.

#include "evaluation_report.h"

#include <cstdint>
#include <vector>

namespace ty {

// `logits`: count x classes, row-major (any real scores; the softmax gives the confidences). `labels`: count class
// indices in [0, classes). Fills every classification field and the samples of `report`; keeps split, step and
// metrics. `classNames` may be shorter than `classes` (missing names become the index). `topK` is clamped to
// [1, classes].
void scoreClassification(const std::vector<float> &logits, const std::vector<int64_t> &labels, int64_t classes,
                         const QStringList &classNames, int topK, EvaluationReport *report);

} // namespace ty
