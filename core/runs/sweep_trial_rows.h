#pragma once
// A sweep's trials with their runs and the best value of the sweep's metric each recorded, ranked: what
// `trainyard-cli sweeps show` prints and the app's sweep view shows. Reads the run database (metric summaries,
// no scan of metric rows); use on the database's thread.

#include "error.h"
#include "run_records.h"

#include <QList>
#include <QStringList>

#include <optional>

namespace ty {

class RunDatabase;

struct SweepTrialRow {
    int trial = 0;
    QStringList sets;              // "KEY=VALUE" overrides of the trial
    qint64 runId = 0;              // 0 while the trial waits
    QString status;                // the run's status name, or "queued"
    std::optional<double> value;   // the best value of the metric the run recorded
};

// Trials with a value first, best first; then the others in trial order.
Result<QList<SweepTrialRow>> sweepTrialRows(const RunDatabase &db, const SweepRecord &sweep);

// Sorts rows as sweepTrialRows returns them (also for a team store's trials, team_sweeps.h).
void rankSweepTrialRows(QList<SweepTrialRow> &rows, bool maximize);

// Trials whose run has ended for good (finished, pruned, diverged, failed).
int endedTrials(const QList<SweepTrialRow> &rows);

// The keys the trials set ("opt.lr" of "opt.lr=0.01"), in the order they first appear.
QStringList sweepKeys(const QList<SweepTrialRow> &rows);

// The value a trial's overrides give `key`, or an empty string.
QString sweepTrialValue(const QStringList &sets, const QString &key);

} // namespace ty
