#include "sweep_pruning.h"

#include <QList>

#include <algorithm>
#include <cmath>

namespace ty {

namespace {

bool better(double a, double b, bool maximize) { return maximize ? a > b : a < b; }

// Linear interpolation between the closest ranks, as numpy's default percentile.
// Callers pass at least one value.
double quantile(QList<double> values, double q)
{
    if (values.isEmpty())
        return qQNaN();
    std::sort(values.begin(), values.end());
    const double position = q * double(values.size() - 1);
    const int below = int(std::floor(position));
    const int above = qMin(below + 1, int(values.size()) - 1);
    return values.at(below) + (values.at(above) - values.at(below)) * (position - below);
}

QString figure(double value) { return QString::number(value, 'g', 4); }

PruningDecision medianRule(const PruningSettings &settings, const TrialCurves &curves, int trial, int epoch,
                           const QString &metric)
{
    if (epoch <= settings.warmupEpochs)
        return {};
    const std::optional<double> own = bestSoFar(curves.value(trial), epoch, settings.maximize);
    if (!own)
        return {};
    QList<double> others;
    for (auto it = curves.cbegin(); it != curves.cend(); ++it) {
        if (it.key() == trial || !it.value().contains(epoch))
            continue;
        if (const std::optional<double> best = bestSoFar(it.value(), epoch, settings.maximize))
            others.append(*best);
    }
    if (others.isEmpty() || others.size() < settings.minTrials)
        return {};
    const double median = quantile(others, 0.5);
    if (!better(median, *own, settings.maximize))
        return {};
    return {true, QStringLiteral("the median rule at epoch %1: %2 %3 is worse than the median %4 of %5 other trials")
                      .arg(epoch).arg(metric, figure(*own), figure(median)).arg(others.size())};
}

bool isRung(const PruningSettings &settings, int epoch)
{
    for (qint64 rung = qMax(1, settings.minEpochs); rung <= epoch; rung *= qMax(2, settings.reduction))
        if (rung == epoch)
            return true;
    return false;
}

PruningDecision ashaRule(const PruningSettings &settings, const TrialCurves &curves, int trial, int epoch,
                         const QString &metric)
{
    if (!isRung(settings, epoch))
        return {};
    const std::optional<double> own = bestSoFar(curves.value(trial), epoch, settings.maximize);
    if (!own)
        return {};
    QList<double> atRung;
    for (auto it = curves.cbegin(); it != curves.cend(); ++it)
        if (it.value().contains(epoch))
            if (const std::optional<double> best = bestSoFar(it.value(), epoch, settings.maximize))
                atRung.append(*best);
    const int reduction = qMax(2, settings.reduction);
    if (atRung.size() < reduction)
        return {};
    // The best 1/reduction go on: above the (1 - 1/reduction) quantile when higher is better, below 1/reduction else.
    const double share = 1.0 / reduction;
    const double cutoff = quantile(atRung, settings.maximize ? 1.0 - share : share);
    if (!better(cutoff, *own, settings.maximize))
        return {};
    return {true, QStringLiteral("ASHA at the epoch-%1 rung: %2 %3 is not in the best 1/%4 of %5 trials (cut-off %6)")
                      .arg(epoch).arg(metric, figure(*own)).arg(reduction).arg(atRung.size()).arg(figure(cutoff))};
}

} // namespace

std::optional<PruningRule> pruningRuleFromName(const QString &name)
{
    if (name == QLatin1String("none"))
        return PruningRule::None;
    if (name == QLatin1String("median"))
        return PruningRule::Median;
    if (name == QLatin1String("asha"))
        return PruningRule::Asha;
    return std::nullopt;
}

std::optional<double> bestSoFar(const TrialCurve &curve, int epoch, bool maximize)
{
    std::optional<double> best;
    for (auto it = curve.cbegin(); it != curve.cend() && (epoch < 0 || it.key() <= epoch); ++it)
        if (std::isfinite(it.value()) && (!best || better(it.value(), *best, maximize)))
            best = it.value();
    return best;
}

PruningDecision decidePruning(const PruningSettings &settings, const TrialCurves &curves, int trial, int epoch,
                              const QString &metric)
{
    switch (settings.rule) {
    case PruningRule::Median:
        return medianRule(settings, curves, trial, epoch, metric);
    case PruningRule::Asha:
        return ashaRule(settings, curves, trial, epoch, metric);
    case PruningRule::None:
        break;
    }
    return {};
}

} // namespace ty
