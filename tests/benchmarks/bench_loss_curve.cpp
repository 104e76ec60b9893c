#include "bench_loss_curve.h"

#include <algorithm>
#include <cmath>

namespace ty::bench {

MetricSamples noisyLossSamples(qint64 firstStep, qint64 count, qint64 totalSteps, std::mt19937_64 &rng)
{
    std::normal_distribution<double> noise(0.0, 1.0);
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    const qint64 stepsPerEpoch = std::max<qint64>(1, totalSteps / 50);
    MetricSamples samples;
    samples.reserve(size_t(count));
    for (qint64 step = firstStep; step < firstStep + count; ++step) {
        const double progress = double(step) / double(totalSteps);
        const double expected = 0.12 + 1.9 * std::exp(-6.0 * progress) + 0.4 * std::exp(-60.0 * progress);
        double value = expected * std::max(0.05, 1.0 + 0.25 * noise(rng));
        if (uniform(rng) < 1e-4)
            value *= 4.0;  // a bad batch
        samples.steps.push_back(step);
        samples.epochs.push_back(qint32(1 + (step - 1) / stepsPerEpoch));
        samples.times.push_back(double(step) * 0.004);
        samples.values.push_back(value);
    }
    return samples;
}

} // namespace ty::bench
