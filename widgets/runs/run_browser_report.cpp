// RunBrowser: reports. "Export Report…" writes the selected run's report, and exportSweepReportInteractively a
// sweep's (Experiments ▸ Sweeps, File ▸ Export Report…), as one self-contained HTML file (core/reports).

#include "run_browser.h"

#include "run_database.h"
#include "run_report.h"

#include <QFileInfo>

namespace ty {

bool RunBrowser::exportReport(qint64 runId, const QString &path)
{
    if (!database()) {
        setStatus(tr("Cannot write a report: no run database is open."));
        return false;
    }
    return finishReport(path, runReportHtml(*database(), runId), false);
}

bool RunBrowser::exportSweepReport(qint64 sweepId, const QString &path)
{
    if (!database()) {
        setStatus(tr("Cannot write a report: no run database is open."));
        return false;
    }
    return finishReport(path, sweepReportHtml(*database(), sweepId), false);
}

void RunBrowser::exportReportInteractively()
{
    const QList<qint64> ids = selectedRunIds();
    if (ids.isEmpty() || !database()) {
        setStatus(tr("Select a run to write its report."));
        return;
    }
    const qint64 id = ids.first();
    const QString path = chooseExportFile(tr("Export the report of run #%1").arg(id), QStringLiteral("run-%1.html").arg(id),
                                          QStringLiteral("html"), tr("Web pages (*.html);;All files (*)"));
    if (!path.isEmpty())
        finishReport(path, runReportHtml(*database(), id), true);
}

void RunBrowser::exportSweepReportInteractively(qint64 sweepId)
{
    if (sweepId <= 0 || !database()) {
        setStatus(tr("Select a sweep to write its report."));
        return;
    }
    const QString path = chooseExportFile(tr("Export the report of sweep #%1").arg(sweepId), QStringLiteral("sweep-%1.html").arg(sweepId),
                                          QStringLiteral("html"), tr("Web pages (*.html);;All files (*)"));
    if (!path.isEmpty())
        finishReport(path, sweepReportHtml(*database(), sweepId), true);
}

bool RunBrowser::finishReport(const QString &path, const Result<QByteArray> &page, bool interactive)
{
    const Status written = page ? writeReportFile(path, page.value()) : Status(page.error());
    const QString message = written ? tr("Report written: %1 (%2 KiB)").arg(QFileInfo(path).fileName()).arg(page.value().size() / 1024)
                                    : tr("No report written: %1").arg(written.error().toString());
    setStatus(message);
    if (!written && interactive)
        showMessageBox(tr("Cannot write the report"), written.error().toString(), true);
    Q_EMIT reportExported(path, bool(written), message);
    return bool(written);
}

} // namespace ty
