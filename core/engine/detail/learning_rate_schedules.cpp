// The learning-rate function of every schedule.* block, one registration per kind. Each is a pure function of
// the step, so a resumed run continues its schedule exactly. Every one may start with a linear warm-up
// (warmup_steps). Reduce on plateau also registers an epoch function, whose state checkpoints carry.

#include "detail/optimization.h"

#include <QJsonArray>

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

// Multiplies by gamma at each milestone epoch reached (milestones in any order).
double multiStep(const QJsonObject &p, double baseLr, int64_t step, int64_t stepsPerEpoch, int64_t)
{
    const int64_t epoch = epochOf(step, stepsPerEpoch);
    int passed = 0;
    for (const QJsonValue &milestone : p.value(QStringLiteral("milestones")).toArray())
        passed += double(epoch) >= milestone.toDouble() ? 1 : 0;
    return baseLr * std::pow(num(p, "gamma"), double(passed));
}

// From `start` to `end` along a half cosine, as `t` goes from 0 to 1.
double cosineBetween(double start, double end, double t)
{
    return end + (start - end) * 0.5 * (1.0 + std::cos(kPi * std::clamp(t, 0.0, 1.0)));
}

// Smith's one cycle, by the formula of PyTorch's OneCycleLR (cosine annealing) with the optimizer's rate as the peak: from
// lr / div_factor up to lr over the first pct_start of the steps, then down to lr / div_factor / final_div_factor.
double oneCycle(const QJsonObject &p, double baseLr, int64_t step, int64_t, int64_t totalSteps)
{
    const double initial = baseLr / num(p, "div_factor");
    const double final = initial / num(p, "final_div_factor");
    const double peakStep = num(p, "pct_start") * double(totalSteps) - 1.0, lastStep = double(totalSteps) - 1.0;
    if (double(step) <= peakStep)
        return cosineBetween(initial, baseLr, peakStep > 0 ? double(step) / peakStep : 1.0);
    return cosineBetween(baseLr, final, lastStep > peakStep ? (double(step) - peakStep) / (lastStep - peakStep) : 1.0);
}

// The rate of reduce on plateau between reductions: the optimizer's, times the scale the epochs set.
double constantRate(const QJsonObject &, double baseLr, int64_t, int64_t, int64_t)
{
    return baseLr;
}

// PyTorch's ReduceLROnPlateau in its relative threshold mode: a value improves on the best when it beats it by
// more than threshold * |best| (PyTorch multiplies by 1 -/+ threshold, which for a negative best, an R² below
// zero, would call an unchanged value better); after more than `patience` epochs without improvement the rate is multiplied by
// `factor` (never below min_lr), and then `cooldown` epochs pass before bad epochs count again.
bool reduceOnPlateau(const QJsonObject &p, const QMap<QString, double> &epochMetrics, double baseLr, bool maximize, PlateauState &state)
{
    const QString metric = p.value(QStringLiteral("metric")).toString();
    const auto found = epochMetrics.constFind(metric);
    if (found == epochMetrics.constEnd() || !std::isfinite(*found))
        return false;
    const double value = *found, threshold = num(p, "threshold");
    const double margin = threshold * std::abs(state.best);
    const bool improved = !state.hasBest || (maximize ? value > state.best + margin : value < state.best - margin);
    if (improved) {
        state.best = value;
        state.hasBest = true;
        state.badEpochs = 0;
    } else {
        ++state.badEpochs;
    }
    if (state.cooldown > 0) {
        --state.cooldown;
        state.badEpochs = 0;
    }
    if (state.badEpochs <= int64_t(num(p, "patience")))
        return false;
    state.badEpochs = 0;
    state.cooldown = int64_t(num(p, "cooldown"));
    const double floor = baseLr > 0 ? num(p, "min_lr") / baseLr : 0.0;
    const double lowered = std::max(state.scale * num(p, "factor"), floor);
    if (baseLr * (state.scale - lowered) <= 1e-8)  // as PyTorch's eps: too small a change is not made
        return false;
    state.scale = lowered;
    return true;
}

// Linear warm-up in front of any schedule: the first warmup_steps steps take (step + 1) / warmup_steps of the
// schedule's rate.
template <ScheduleFunction schedule>
double withWarmup(const QJsonObject &p, double baseLr, int64_t step, int64_t stepsPerEpoch, int64_t totalSteps)
{
    const double lr = schedule(p, baseLr, step, stepsPerEpoch, totalSteps);
    const int64_t warmup = int64_t(num(p, "warmup_steps"));
    return step < warmup ? lr * double(step + 1) / double(warmup) : lr;
}

} // namespace

const KindTable<ScheduleFunction> &scheduleFunctions()
{
    static const KindTable<ScheduleFunction> schedules = [] {
        KindTable<ScheduleFunction> t;
        t.add(QStringLiteral("schedule.step"), withWarmup<stepDecay>);
        t.add(QStringLiteral("schedule.exponential"), withWarmup<exponentialDecay>);
        t.add(QStringLiteral("schedule.cosine"), withWarmup<cosine>);
        t.add(QStringLiteral("schedule.warmup_cosine"), withWarmup<warmupCosine>);
        t.add(QStringLiteral("schedule.multi_step"), withWarmup<multiStep>);
        t.add(QStringLiteral("schedule.one_cycle"), withWarmup<oneCycle>);
        t.add(QStringLiteral("schedule.reduce_on_plateau"), withWarmup<constantRate>);
        return t;
    }();
    return schedules;
}

const KindTable<EpochScheduleFunction> &epochScheduleFunctions()
{
    static const KindTable<EpochScheduleFunction> schedules = [] {
        KindTable<EpochScheduleFunction> t;
        t.add(QStringLiteral("schedule.reduce_on_plateau"), reduceOnPlateau);
        return t;
    }();
    return schedules;
}

} // namespace ty::detail
