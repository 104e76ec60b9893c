// The learning-rate function of every schedule.* block, one registration per kind. Each is a pure function of
// the step, so a resumed run continues its schedule exactly.

#include "detail/optimization.h"

#include <algorithm>
#include <cmath>

namespace ty::detail {

namespace {

constexpr double kPi = 3.14159265358979323846;

double num(const QJsonObject &params, const char *key)
{
    return params.value(QString::fromLatin1(key)).toDouble();
}

int64_t epochOf(int64_t step, int64_t stepsPerEpoch)
{
    return stepsPerEpoch > 0 ? step / stepsPerEpoch : 0;
}

double stepDecay(const QJsonObject &p, double baseLr, int64_t step, int64_t stepsPerEpoch, int64_t)
{
    const int64_t epoch = epochOf(step, stepsPerEpoch);
    return baseLr * std::pow(num(p, "gamma"), double(epoch / std::max<int64_t>(1, int64_t(num(p, "step_size")))));
}

double exponentialDecay(const QJsonObject &p, double baseLr, int64_t step, int64_t stepsPerEpoch, int64_t)
{
    return baseLr * std::pow(num(p, "gamma"), double(epochOf(step, stepsPerEpoch)));
}

double cosine(const QJsonObject &p, double baseLr, int64_t step, int64_t, int64_t totalSteps)
{
    const double minLr = num(p, "min_lr");
    const double t = totalSteps > 1 ? double(step) / double(totalSteps - 1) : 1.0;
    return minLr + (baseLr - minLr) * 0.5 * (1.0 + std::cos(kPi * std::min(1.0, t)));
}

double warmupCosine(const QJsonObject &p, double baseLr, int64_t step, int64_t, int64_t totalSteps)
{
    const double minLr = num(p, "min_lr");
    const int64_t warmup = int64_t(std::llround(num(p, "warmup_fraction") * double(totalSteps)));
    if (step < warmup)
        return baseLr * double(step + 1) / double(warmup);
    const int64_t rest = std::max<int64_t>(1, totalSteps - warmup - 1);
    const double t = std::min(1.0, double(step - warmup) / double(rest));
    return minLr + (baseLr - minLr) * 0.5 * (1.0 + std::cos(kPi * t));
}

} // namespace

const KindTable<ScheduleFunction> &scheduleFunctions()
{
    static const KindTable<ScheduleFunction> schedules = [] {
        KindTable<ScheduleFunction> t;
        t.add(QStringLiteral("schedule.step"), stepDecay);
        t.add(QStringLiteral("schedule.exponential"), exponentialDecay);
        t.add(QStringLiteral("schedule.cosine"), cosine);
        t.add(QStringLiteral("schedule.warmup_cosine"), warmupCosine);
        return t;
    }();
    return schedules;
}

} // namespace ty::detail
