#pragma once
// A sweep's trials as `sweeps show` and the end of `sweep` print them: one row per trial with its overrides,
// run, status and best value of the sweep's metric, best first; as text or JSON; and which parameters mattered.

#include "cli.h"
#include "run_records.h"
#include "sweep_importance.h"
#include "sweep_trial_rows.h"

#include <QJsonObject>

namespace ty::cli {

void printSweepTable(Io &io, const SweepRecord &sweep, const QList<SweepTrialRow> &rows);
QJsonObject sweepJson(const SweepRecord &sweep, const QList<SweepTrialRow> &rows);
// The importance of each searched key (sweep_importance.h) as a table, or the reason it is absent.
void printSweepImportance(Io &io, const SweepRecord &sweep, const SweepImportance &importance);
// `sweeps list`: one line per sweep (or a JSON array without the trials and spec), newest first as given.
void printSweepList(Io &io, const QList<QPair<SweepRecord, QList<SweepTrialRow>>> &sweeps, bool json);

} // namespace ty::cli
