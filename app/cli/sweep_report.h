#pragma once
// A sweep's trials as `sweeps show` and the end of `sweep` print them: one row per trial with its overrides,
// run, status and best value of the sweep's metric, best first; as text or JSON.

#include "cli.h"
#include "error.h"
#include "run_records.h"

#include <QJsonObject>
#include <QStringList>

#include <optional>

namespace ty {
class RunDatabase;
}

namespace ty::cli {

struct SweepTrialRow {
    int trial = 0;
    QStringList sets;
    qint64 runId = 0;              // 0 while the trial waits
    QString status;                // the run's status, or "queued"
    std::optional<double> value;   // the best value of the metric the run recorded
};

// Trials with a value first, best first; then the others in trial order.
Result<QList<SweepTrialRow>> sweepTrialRows(const RunDatabase &db, const SweepRecord &sweep);

// Trials whose run has ended for good (finished, pruned, diverged, failed), of all.
int endedTrials(const QList<SweepTrialRow> &rows);

void printSweepTable(Io &io, const SweepRecord &sweep, const QList<SweepTrialRow> &rows);
QJsonObject sweepJson(const SweepRecord &sweep, const QList<SweepTrialRow> &rows);

} // namespace ty::cli
