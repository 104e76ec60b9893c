#pragma once
// Early stopping of sweep trials on their per-epoch validation metric (docs/sweeps.md): the median rule and
// ASHA. Pure functions of the curves recorded so far, so the same decision comes out of a live sweep and of a
// resumed one, and the rules are tested on synthetic curves. Thread-safe.

#include <QMap>
#include <QString>

#include <optional>

namespace ty {

enum class PruningRule { None, Median, Asha };

// "none", "median", "asha"; nullopt for anything else.
std::optional<PruningRule> pruningRuleFromName(const QString &name);

struct PruningSettings {
    PruningRule rule = PruningRule::None;
    bool maximize = false;
    // Median: no decision in the first `warmupEpochs` epochs, nor before `minTrials` other trials reached the epoch.
    int warmupEpochs = 1;
    int minTrials = 3;
    // ASHA: rungs at minEpochs * reduction^k epochs; at a rung a trial goes on only if it is in the best
    // 1/reduction of the trials that reached the rung, judged once at least `reduction` trials are there.
    int minEpochs = 1;
    int reduction = 3;
};

// A trial's metric by epoch (1-based); each trial of a sweep by its index.
using TrialCurve = QMap<int, double>;
using TrialCurves = QMap<int, TrialCurve>;

struct PruningDecision {
    bool prune = false;
    QString reason;   // why, with the figures: "val/loss 0.61 is worse than the median 0.48 of 4 trials at epoch 2"
};

// Whether `trial`, which has just recorded `epoch`, stops now. `metric` only names it in the reason.
PruningDecision decidePruning(const PruningSettings &settings, const TrialCurves &curves, int trial, int epoch,
                              const QString &metric);

// The best value of a curve up to and including `epoch` (all of it when epoch < 0); nullopt when it has none.
std::optional<double> bestSoFar(const TrialCurve &curve, int epoch, bool maximize);

} // namespace ty
