// RunBrowser: run bundles (docs/run-database.md#run-bundles). Export Runs as Bundle… writes the selected ended runs (or a
// whole sweep) with their checkpoint files into one file; importBundle merges a bundle into the shown database and
// selects its runs. Both run on the browser's worker thread (a bundle of many runs takes seconds), each opening
// the database itself; the outcome goes to the status line, and to a message box when asked interactively.

#include "run_browser.h"

#include "run_bundle_export.h"
#include "run_bundle_file.h"
#include "run_bundle_import.h"
#include "run_database.h"
#include "runs_table_model.h"

#include "common/canvas_style.h"

#include <QDir>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QLocale>
#include <QPromise>
#include <QThreadPool>

#include <algorithm>
#include <memory>

namespace ty {

namespace {

using style::counted;

constexpr int kIdsInMessage = 20;

QString bundleSuffix() { return QString::fromLatin1(kRunBundleSuffix); }

// "#3, #7, #12"; past twenty, "… and 80 more".
QString idList(const QList<qint64> &ids)
{
    QStringList texts;
    for (qint64 id : ids.mid(0, kIdsInMessage))
        texts << QStringLiteral("#%1").arg(id);
    if (ids.size() > kIdsInMessage)
        texts << RunBrowser::tr("and %1 more").arg(ids.size() - kIdsInMessage);
    return texts.join(QStringLiteral(", "));
}

// The runs or sweeps of an import that were added (`added`) or already here, by their ids here; "#5 (#2 in the
// bundle)" for one renumbered because its id was taken.
QString itemList(const QList<RunBundleImportReport::Item> &items, bool added)
{
    QStringList texts;
    int listed = 0, more = 0;
    for (const RunBundleImportReport::Item &item : items) {
        if (item.added != added)
            continue;
        if (listed++ >= kIdsInMessage) {
            ++more;
            continue;
        }
        texts << (added && item.id != item.bundleId ? RunBrowser::tr("#%1 (#%2 in the bundle)").arg(item.id).arg(item.bundleId)
                                                    : QStringLiteral("#%1").arg(item.id));
    }
    if (more > 0)
        texts << RunBrowser::tr("and %1 more").arg(more);
    return texts.join(QStringLiteral(", "));
}

QString exportSummary(const RunBundleExportReport &r, const QString &path)
{
    const QLocale locale;  // the size as the system writes it
    const QString runs = (r.runIds.size() == 1 ? RunBrowser::tr("Run %1") : RunBrowser::tr("Runs %1")).arg(idList(r.runIds));
    const QString what = r.sweepIds.isEmpty() ? runs
        : (r.sweepIds.size() == 1 ? RunBrowser::tr("Sweep %1 with its trials (%2)") : RunBrowser::tr("Sweeps %1 with their trials (%2)"))
              .arg(idList(r.sweepIds), idList(r.runIds));
    QString message = RunBrowser::tr("%1 written to %2").arg(what, QDir::toNativeSeparators(path));
    message += QStringLiteral(": ") + counted(r.runIds.size(), RunBrowser::tr("run"), RunBrowser::tr("runs")) + QStringLiteral(", ")
        + counted(r.metricRows, RunBrowser::tr("metric row"), RunBrowser::tr("metric rows")) + QStringLiteral(", ")
        + counted(r.checkpoints, RunBrowser::tr("checkpoint"), RunBrowser::tr("checkpoints")) + QStringLiteral(", ")
        + counted(r.evaluations, RunBrowser::tr("evaluation"), RunBrowser::tr("evaluations")) + QStringLiteral(", ") + locale.formattedDataSize(r.bytes)
        + QLatin1Char('.');
    if (!r.skipped.isEmpty())
        message += QLatin1Char('\n')
            + RunBrowser::tr("Left out (%1): %2").arg(counted(r.skipped.size(), RunBrowser::tr("checkpoint"), RunBrowser::tr("checkpoints")),
                                                      r.skipped.join(QStringLiteral("; ")));
    return message;
}

QString importSummary(const RunBundleImportReport &r, const QString &path)
{
    const int runsHere = int(r.runs.size()) - r.runsAdded(), sweepsHere = int(r.sweeps.size()) - r.sweepsAdded();
    QStringList clauses;
    if (r.runsAdded() > 0)
        clauses << RunBrowser::tr("%1 added: %2").arg(counted(r.runsAdded(), RunBrowser::tr("run"), RunBrowser::tr("runs")), itemList(r.runs, true));
    if (runsHere > 0)
        clauses << RunBrowser::tr("%1 already here, left as they were: %2").arg(counted(runsHere, RunBrowser::tr("run"), RunBrowser::tr("runs")), itemList(r.runs, false));
    if (r.sweepsAdded() > 0)
        clauses << RunBrowser::tr("%1 added: %2").arg(counted(r.sweepsAdded(), RunBrowser::tr("sweep"), RunBrowser::tr("sweeps")), itemList(r.sweeps, true));
    if (sweepsHere > 0)
        clauses << RunBrowser::tr("%1 already here, left as they were: %2").arg(counted(sweepsHere, RunBrowser::tr("sweep"), RunBrowser::tr("sweeps")), itemList(r.sweeps, false));
    QString message = RunBrowser::tr("Imported %1 — %2.").arg(QDir::toNativeSeparators(path), clauses.join(QStringLiteral("; ")));
    if (r.runsAdded() > 0)
        message += QLatin1Char('\n')
            + RunBrowser::tr("With them: %1, %2, %3.")
                  .arg(counted(r.metricRows, RunBrowser::tr("metric row"), RunBrowser::tr("metric rows")),
                       counted(r.checkpoints, RunBrowser::tr("checkpoint"), RunBrowser::tr("checkpoints")),
                       counted(r.evaluations, RunBrowser::tr("evaluation"), RunBrowser::tr("evaluations")));
    return message;
}

} // namespace

QString RunBrowser::bundleRefusal(const QList<qint64> &ids) const
{
    for (qint64 id : ids) {
        if (m_source == RunSource::Both && RunDatabase::isTeamCopyId(id))  // not in this machine's database
            return tr("Run %1 is a teammate's (a copy of the team store's): its checkpoint files are on its machine.")
                .arg(m_model->displayedId(id));
        const int row = m_model->rowOfRun(id);
        if (row < 0)
            continue;
        const RunStatus status = m_model->runAt(row).status;
        if (status == RunStatus::Queued || status == RunStatus::Running)
            return tr("Run #%1 is %2: only runs that have ended can be exported as a bundle.").arg(id).arg(runStatusName(status));
    }
    return QString();
}

bool RunBrowser::exportBundle(const QList<qint64> &ids, const QString &path, const QList<qint64> &sweepIds)
{
    return startBundleExport(ids, sweepIds, path, false);
}

void RunBrowser::exportBundleInteractively()
{
    QList<qint64> ids = selectedRunIds();
    std::sort(ids.begin(), ids.end());
    if (ids.isEmpty() || m_exportingBundle)
        return;
    if (const QString refusal = bundleRefusal(ids); !refusal.isEmpty()) {  // the action is disabled then
        setStatus(refusal);
        return;
    }
    const QString path = chooseExportFile(tr("Export %1 as a run bundle").arg(counted(ids.size(), tr("run"), tr("runs"))),
                                          suggestedExportName(ids, bundleSuffix()), bundleSuffix(),
                                          tr("Run bundles (*.tybundle);;All files (*)"));
    if (!path.isEmpty())
        startBundleExport(ids, {}, path, true);
}

void RunBrowser::exportSweepBundleInteractively(qint64 sweepId)
{
    if (sweepId <= 0 || m_exportingBundle)
        return;
    const QString path = chooseExportFile(tr("Export sweep #%1 and all its trials as a run bundle").arg(sweepId),
                                          QStringLiteral("sweep-%1.%2").arg(sweepId).arg(bundleSuffix()), bundleSuffix(),
                                          tr("Run bundles (*.tybundle);;All files (*)"));
    if (!path.isEmpty())
        startBundleExport({}, {sweepId}, path, true);
}

bool RunBrowser::startBundleExport(QList<qint64> ids, QList<qint64> sweepIds, const QString &path, bool interactive)
{
    for (QList<qint64> *list : {&ids, &sweepIds}) {
        std::sort(list->begin(), list->end());
        list->erase(std::unique(list->begin(), list->end()), list->end());
    }
    const QString refusal = !database()                          ? tr("Cannot export a bundle: no run database is open.")
                            : ids.isEmpty() && sweepIds.isEmpty() ? tr("Cannot export a bundle: no run is selected.")
                            : m_exportingBundle                   ? tr("Cannot export a bundle: the previous one is still being written.")
                                                                  : QString();
    if (!refusal.isEmpty()) {
        setStatus(refusal);
        return false;
    }
    m_exportingBundle = true;
    updateActions();
    setStatus(sweepIds.isEmpty() ? tr("Writing %1 into a bundle…").arg(counted(ids.size(), tr("run"), tr("runs")))
                                 : (sweepIds.size() == 1 ? tr("Writing sweep %1 into a bundle…") : tr("Writing sweeps %1 into a bundle…")).arg(idList(sweepIds)));

    RunBundleExportRequest request;
    request.database = database()->path();
    request.runIds = ids;
    request.sweepIds = sweepIds;
    request.bundle = path;
    using Outcome = Result<RunBundleExportReport>;
    auto promise = std::make_shared<QPromise<Outcome>>();
    auto *watcher = new QFutureWatcher<Outcome>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, path, interactive] {
        watcher->deleteLater();
        m_exportingBundle = false;
        updateActions();
        const Outcome report = watcher->future().resultCount() > 0 ? watcher->future().result() : Outcome(Error(tr("the export stopped")));
        const QString message = report ? exportSummary(report.value(), path) : tr("The bundle was not written: %1").arg(report.error().toString());
        setStatus(message);
        if (interactive && (!report || !report.value().skipped.isEmpty()))
            showMessageBox(tr("Export Bundle"), message, true);
        Q_EMIT bundleExported(path, report.ok(), message);
    });
    watcher->setFuture(promise->future());
    m_exportThread->start([promise, request] {
        promise->start();
        promise->addResult(exportRunBundle(request));
        promise->finish();
    });
    return true;
}

bool RunBrowser::importBundle(const QString &path, bool interactive)
{
    if (!database()) {
        setStatus(tr("Cannot import %1: no run database is open.").arg(QDir::toNativeSeparators(path)));
        return false;
    }
    if (isTeamView()) {
        setStatus(tr("Cannot import %1 into the team's runs: switch to This machine.").arg(QDir::toNativeSeparators(path)));
        return false;
    }
    m_importQueue.append({path, interactive});
    if (m_importQueue.size() == 1)
        startNextImport();
    return true;
}

void RunBrowser::startNextImport()
{
    if (m_importQueue.isEmpty())
        return;
    const PendingImport next = m_importQueue.first();
    if (!database())  // closed meanwhile
        return finishImport(next.path, next.interactive, tr("Cannot import %1: no run database is open.").arg(QDir::toNativeSeparators(next.path)), {}, false);
    setStatus(tr("Importing %1…").arg(QDir::toNativeSeparators(next.path)));

    using Outcome = Result<RunBundleImportReport>;
    auto promise = std::make_shared<QPromise<Outcome>>();
    auto *watcher = new QFutureWatcher<Outcome>(this);
    const QString databasePath = database()->path();
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, next, databasePath] {
        watcher->deleteLater();
        const Outcome report = watcher->future().resultCount() > 0 ? watcher->future().result() : Outcome(Error(tr("the import stopped")));
        if (!report) {
            finishImport(next.path, next.interactive,
                         tr("%1 was not imported; nothing was changed.\n%2").arg(QDir::toNativeSeparators(next.path), report.error().toString()),
                         {}, false);
            return;
        }
        QList<qint64> ids;
        for (const RunBundleImportReport::Item &run : report.value().runs)
            ids << run.id;
        if (database() && database()->path() == databasePath) {  // still the database it went into
            refresh();  // at once, rather than at the watcher's next look
            showRuns(ids);
        }
        finishImport(next.path, next.interactive, importSummary(report.value(), next.path), ids, true);
    });
    watcher->setFuture(promise->future());
    m_exportThread->start([promise, databasePath, path = next.path] {
        promise->start();
        promise->addResult(importRunBundle(databasePath, path));
        promise->finish();
    });
}

void RunBrowser::finishImport(const QString &path, bool interactive, const QString &message, const QList<qint64> &runIds, bool ok)
{
    m_importQueue.removeFirst();
    setStatus(message);
    if (interactive)
        showMessageBox(tr("Import Runs"), message, !ok);
    Q_EMIT bundleImported(path, ok, runIds, message);
    startNextImport();
}

} // namespace ty
