#pragma once
// Synthetic metric samples for the plot benchmarks: a training loss as a long run writes it.

#include "plots/metric_series.h"

#include <random>

namespace ty::bench {

// Samples of steps firstStep .. firstStep + count - 1 (steps count from 1) of a run of `totalSteps` steps: a loss
// that decays with the progress through the run, with multiplicative noise and rare spikes; 4 ms a step and
// 50 epochs over the run.
MetricSamples noisyLossSamples(qint64 firstStep, qint64 count, qint64 totalSteps, std::mt19937_64 &rng);

} // namespace ty::bench
