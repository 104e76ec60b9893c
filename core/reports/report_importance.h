#pragma once
// The importance of a sweep's searched parameters in its report (core/runs/sweep_importance.h, as `sweeps show`
// has it): a bar per parameter with its spread, and a table with its scale and Spearman correlation; below 20
// finished trials, why there is none. Internal to core/reports.

#include "run_records.h"
#include "sweep_trial_rows.h"

#include <QJsonObject>
#include <QString>

namespace ty {

// The markup of the sweep report's importance section, and its figures in `data` (sweepImportanceJson).
QString importanceSectionBody(const SweepRecord &sweep, const QList<SweepTrialRow> &rows, QJsonObject *data);

} // namespace ty
