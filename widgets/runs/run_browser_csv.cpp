// RunBrowser: the metric rows of the selected runs as one CSV file in long form (long_form_metrics.h), written on a
// worker thread so that a large selection (tens of runs of 10,000 rows) leaves the window responsive; and what every
// export of the browser shares: the suggested file name, the file dialog, the message box.

#include "run_browser.h"

#include "common/canvas_style.h"
#include "long_form_metrics.h"
#include "run_database.h"

#include <QDir>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QLocale>
#include <QMessageBox>
#include <QPromise>
#include <QPushButton>
#include <QSettings>
#include <QThreadPool>

#include <algorithm>

namespace ty {

namespace {

constexpr int kIdsInFileName = 5;

// On the export thread: a connection of its own (a connection belongs to the thread that opened it), with the
// team copy beside it in the Both view.
Result<qint64> writeMetricsFile(const QString &databasePath, const QString &teamCopy, const QList<qint64> &ids, const QString &path)
{
    Result<std::unique_ptr<RunDatabase>> db = RunDatabase::open(databasePath);
    if (!db)
        return db.error();
    if (!teamCopy.isEmpty())
        if (Status attached = db.value()->attachTeamCopy(teamCopy); !attached.ok())
            return attached.error();
    return writeLongFormMetricsCsv(*db.value(), ids, path);
}

} // namespace

bool RunBrowser::exportMetricsCsv(const QList<qint64> &ids, const QString &path) { return startMetricsExport(ids, path, false); }

void RunBrowser::exportMetricsCsvInteractively()
{
    QList<qint64> ids = selectedRunIds();
    std::sort(ids.begin(), ids.end());
    if (ids.isEmpty() || m_exportingMetrics)
        return;
    const QString path = chooseExportFile(tr("Export the metrics of %1 as CSV").arg(style::counted(ids.size(), tr("run"), tr("runs"))),
                                          suggestedExportName(ids, QStringLiteral("csv")), QStringLiteral("csv"),
                                          tr("CSV files (*.csv);;All files (*)"));
    if (!path.isEmpty())
        startMetricsExport(ids, path, true);
}

QString RunBrowser::suggestedExportName(const QList<qint64> &ids, const QString &suffix)
{
    QStringList parts;
    for (qint64 id : ids.mid(0, kIdsInFileName))
        parts << QString::number(id);
    const QString more = ids.size() > kIdsInFileName ? QStringLiteral("-and-%1-more").arg(ids.size() - kIdsInFileName) : QString();
    return QStringLiteral("runs-%1%2.%3").arg(parts.join(QLatin1Char('-')), more, suffix);
}

QString RunBrowser::chooseExportFile(const QString &title, const QString &suggestion, const QString &suffix, const QString &filter)
{
    QSettings settings;
    const QString folder = settings.value(QStringLiteral("runs/exportFolder"), QDir::homePath()).toString();
    QString path = m_chooseSaveFile(title, QDir(folder).filePath(suggestion), filter);
    if (path.isEmpty())
        return path;
    if (QFileInfo(path).suffix().isEmpty())
        path += QLatin1Char('.') + suffix;
    settings.setValue(QStringLiteral("runs/exportFolder"), QFileInfo(path).absolutePath());  // the dialog remembers its folder
    return path;
}

void RunBrowser::showMessageBox(const QString &title, const QString &message, bool warning)
{
    // Not modal: the window goes on.
    auto *box = new QMessageBox(warning ? QMessageBox::Warning : QMessageBox::Information, title, message, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setTextInteractionFlags(Qt::TextSelectableByMouse);
    box->open();
}

bool RunBrowser::startMetricsExport(QList<qint64> ids, const QString &path, bool interactive)
{
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    const QString refusal = !database()         ? tr("Cannot export metrics: no run database is open.")
                            : ids.isEmpty()      ? tr("Cannot export metrics: no run is selected.")
                            : m_exportingMetrics ? tr("Cannot export metrics: the previous export is still being written.")
                                                 : QString();
    if (!refusal.isEmpty()) {
        setStatus(refusal);
        return false;
    }
    m_exportingMetrics = true;
    updateActions();
    setStatus(tr("Exporting the metrics of %1…").arg(style::counted(ids.size(), tr("run"), tr("runs"))));

    auto promise = std::make_shared<QPromise<Result<qint64>>>();
    auto *watcher = new QFutureWatcher<Result<qint64>>(this);
    const int runs = int(ids.size());
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, path, runs, interactive] {
        watcher->deleteLater();
        m_exportingMetrics = false;
        updateActions();
        const Result<qint64> rows = watcher->future().resultCount() > 0 ? watcher->future().result()
                                                                        : Result<qint64>(Error(tr("the export stopped")));
        const QString shown = QDir::toNativeSeparators(path);
        const QString message = rows ? tr("Metrics of %1 exported to %2 (%3 rows).")
                                           .arg(style::counted(runs, tr("run"), tr("runs")), shown, QLocale().toString(rows.value()))
                                     : tr("The metrics were not exported: %1").arg(rows.error().toString());
        setStatus(message);
        if (!rows && interactive)
            showMessageBox(tr("Export Metrics as CSV"), message, true);
        Q_EMIT metricsExported(path, rows.ok(), rows ? rows.value() : 0, message);
    });
    watcher->setFuture(promise->future());
    m_exportThread->start([promise, databasePath = database()->path(), teamCopy = database()->teamCopyPath(), ids, path] {
        promise->start();
        promise->addResult(writeMetricsFile(databasePath, teamCopy, ids, path));
        promise->finish();
    });
    return true;
}

} // namespace ty
