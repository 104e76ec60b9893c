#pragma once
// The learning-rate range test (trainyard-cli lrfind, docs/evaluation.md#learning-rate-finder): a prepared run's
// freshly initialised model trains for a few steps with the preset's own optimizer while its rate grows
// exponentially from minLr to maxLr, one rate per step set on the optimizer's parameter groups; the preset's
// schedule is not applied. The loss of each step goes into a RangeTestCurve (core/evaluation), which smooths it
// and stops the test when it runs away; the suggestions are read off the curve at the end.

#include "learning_rate_range.h"

#include <QString>

#include <cstdint>
#include <functional>

namespace ty {

struct LrFindOptions {
    double minLr = 1e-7;
    double maxLr = 10;
    int steps = 100;            // the rate reaches maxLr at the last one
    double beta = 0.98;         // of the smoothing
    double divergeFactor = 4.0; // the test stops once the smoothed loss exceeds this many times its minimum
};

struct LrFindResult {
    bool failed = false;        // an error in a step (message says which); the points before it are kept
    bool stoppedByRequest = false;
    QString message;
    RangeTestCurve curve;
    RateSuggestions suggestions;  // from suggestionPoints(curve)
    QString optimizerNode, optimizerType;
    QString scheduleNode;       // the preset's schedule, not applied during the test; empty without one
    int64_t batchSize = 0;
};

// Called after each step with its 0-based index and point; returning false stops the test (a stop request).
using LrFindProgress = std::function<bool(int step, const RangeTestPoint &point)>;

} // namespace ty
