#pragma once
// Which of a sweep's searched parameters mattered for its metric (issue 42): the permutation importance of a small
// random forest with its spread, and the Spearman correlation, of every searched key over the sweep's finished
// trials (core/evaluation/parameter_importance.h has the method). `sweeps show` (text and --json), the app's sweep
// view and reports use it. Below kMinImportanceTrials finished trials there is no importance, and `absentReason`
// says why ("importance needs at least 20 finished trials; this sweep has 12").
//
// A key's scale: numbers on a log scale when the sweep drew them from loguniform(...) or, as the sweep view's
// charts do, when they are all positive and span more than a decade; numbers on a linear scale otherwise; any
// value that is not a number makes the key categorical (block swaps, choices of words).
// Plain functions; thread-safe.

#include "parameter_importance.h"
#include "run_records.h"
#include "sweep_trial_rows.h"

#include <QJsonObject>

namespace ty {

struct SweepImportance {
    int finishedTrials = 0;                  // trials whose run finished with a value of the metric
    QString absentReason;                    // set when `parameters` is empty
    QList<ParameterImportance> parameters;   // most important first
};

// The seed of the forest is fixed (0), so the figures of a sweep do not change from one look to the next.
SweepImportance sweepImportance(const SweepRecord &sweep, const QList<SweepTrialRow> &rows);

// {"trials": N, "parameters": [{"key", "scale", "importance", "spread", "spearman"}, ...]} or, when absent,
// {"trials": N, "absent": "why"}.
QJsonObject sweepImportanceJson(const SweepImportance &importance);

} // namespace ty
