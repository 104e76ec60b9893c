#pragma once
// Scores of a regression model from its outputs: mean absolute error, root mean squared error and R² over every
// target column, and per-sample residuals. Plain arrays in, no LibTorch.

#include "evaluation_report.h"

#include <cstdint>
#include <vector>

namespace ty {

// `predictions` and `targets`: count x width, row-major. Fills the regression fields and the samples of `report`
// (label and predicted: the first column; confidence: the residual's Euclidean norm); keeps split, step and
// metrics. R² is 1 - SS_res / SS_tot with SS_tot about each column's mean (0 when the targets are constant).
void scoreRegression(const std::vector<float> &predictions, const std::vector<float> &targets, int64_t width,
                     EvaluationReport *report);

} // namespace ty
