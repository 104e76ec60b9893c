#pragma once
// Which hyper-parameters mattered: the permutation importance of each parameter in a small random forest that
// predicts a metric from the parameters' values, with its spread over bootstrap repeats, and each parameter's
// Spearman rank correlation with the metric. What `sweeps show`, the sweep view and reports print for a sweep
// (core/runs/sweep_importance.h builds the input from a sweep's trials).
//
// The forest (random_forest.h): `trees` regression trees, each grown on a bootstrap sample of the trials, at most
// `depth` deep, trying a random subset of the encoded columns at each split. A parameter on a log scale enters as
// its logarithm; a categorical one as one 0/1 column per category. A parameter's importance is the mean, over the
// trees, of how much the tree's squared error on its out-of-bag trials grows when that parameter's values are
// shuffled between trials (all its columns together), divided by the metric's variance: near 0 (it can be
// slightly negative) for a parameter that does not matter; it grows with the share of the metric's variance the
// parameter explains, and can pass 1 (shuffling a decisive parameter can more than double the error). The forest is grown `repeats` times from different seeds (new bootstraps, subsets and shuffles); the
// importance is the mean of the repeats and the spread their standard deviation.
//
// Seeded: the same input and seed give the same figures on every machine. Plain functions; thread-safe.

#include "error.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace ty {

// Fewer trials than this give no importance (too few for a forest to say anything).
inline constexpr int kMinImportanceTrials = 20;

enum class ParameterScale { Linear, Log, Categories };
QString parameterScaleName(ParameterScale scale);  // "linear", "log", "categories"

// One parameter's value in every trial.
struct ParameterColumn {
    QString name;                           // "opt.lr"
    ParameterScale scale = ParameterScale::Linear;
    std::vector<double> numbers;            // Linear and Log (all > 0): one per trial
    QStringList categories;                 // Categories: one per trial
};

struct ImportanceSettings {
    int trees = 100;
    int depth = 6;
    int minLeaf = 2;      // trials a leaf holds at least
    int repeats = 8;      // forests grown from different seeds, for the spread
    quint64 seed = 0;
};

struct ParameterImportance {
    QString name;
    ParameterScale scale = ParameterScale::Linear;
    double importance = 0;            // mean over the repeats (error growth over the metric's variance)
    double spread = 0;                // standard deviation over the repeats
    std::optional<double> spearman;   // none for categories, or when the parameter or metric is constant
};

// The importance of every column for `metric` (one value per trial, all finite), most important first.
// Errors: fewer than kMinImportanceTrials trials, a column of another length, a log value <= 0, no column.
// A constant metric gives importance 0 for every parameter.
Result<QList<ParameterImportance>> parameterImportance(const QList<ParameterColumn> &columns,
                                                       const std::vector<double> &metric,
                                                       const ImportanceSettings &settings = {});

// Spearman's rank correlation (ties get their mean rank); none when either side is constant or sizes differ.
std::optional<double> spearmanCorrelation(const std::vector<double> &a, const std::vector<double> &b);

} // namespace ty
