#pragma once
// The importance of a sweep's searched parameters in its report (issue 42, point 5): the hook where the sweep
// report asks for it. Internal to core/reports.

#include "run_records.h"
#include "sweep_trial_rows.h"

#include <QJsonObject>
#include <QString>

namespace ty {

// The markup of the sweep report's importance section, and its figures in `data`; an empty string when the
// section has nothing to show.
QString importanceSectionBody(const SweepRecord &sweep, const QList<SweepTrialRow> &rows, QJsonObject *data);

} // namespace ty
