#pragma once
// A run's or a sweep's report as one self-contained HTML file (docs/reports.md): what `trainyard-cli report`
// and the app's File ▸ Export Report… write. Everything is read from the run database; nothing is recomputed
// but the preset's shapes and MACs (core/shapes). The page holds inline CSS and SVG only, runs no script and
// fetches nothing; every text from the database or the preset is escaped; the raw metric series and what the
// tables show are inside as JSON (<script type="application/json" id="trainyard-data">).
// Use on the database's thread.

#include "error.h"

#include <QByteArray>
#include <QString>

namespace ty {

class RunDatabase;

struct ReportOptions {
    int chartPointsPerSeries = 500;  // a drawn curve's points at most (the data keeps every row)
};

// The report of run `runId`: an error naming the run when it is not in the database.
Result<QByteArray> runReportHtml(const RunDatabase &db, qint64 runId, const ReportOptions &options = {});
// The report of sweep `sweepId`: its trials, the importance of its parameters when known, its base preset.
Result<QByteArray> sweepReportHtml(const RunDatabase &db, qint64 sweepId, const ReportOptions &options = {});

// Writes `html` to `path` through a temporary file renamed over it when complete: on an error (naming the file)
// nothing is left at `path`, and a file that was there is unchanged.
Status writeReportFile(const QString &path, const QByteArray &html);

} // namespace ty
