// MainWindow: files dropped on the window, and run bundles. A preset (*.json) dropped anywhere opens (the canvas
// takes its own drops); a run bundle (*.tybundle, or any file that begins like one) dropped in any mode, or chosen
// with File ▸ Import Runs…, is merged into the app's run database by the run browser on its worker thread, which
// then shows and selects its runs in Experiments ▸ Runs. File ▸ Export Runs as Bundle… is the run browser's action
// on its selected runs; Experiments ▸ Sweeps' Export Bundle… writes a sweep.

#include "main_window.h"

#include "runs/run_browser.h"
#include "sweeps/sweep_view.h"
#include "training/training_panel.h"

#include "run_bundle_file.h"

#include <QAction>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QMimeData>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>

namespace ty {

namespace {

// The local files of a drop that this window takes: run bundles, and the first preset.
struct DroppedFiles {
    QStringList bundles;
    QString preset;
    bool isEmpty() const { return bundles.isEmpty() && preset.isEmpty(); }
};

DroppedFiles droppedFiles(const QMimeData *mime)
{
    DroppedFiles files;
    for (const QUrl &url : mime->urls()) {
        if (!url.isLocalFile())
            continue;
        const QString path = url.toLocalFile();
        if (path.endsWith(QStringLiteral(".json"))) {
            if (files.preset.isEmpty())
                files.preset = path;
        } else if (looksLikeRunBundle(path)) {
            files.bundles << path;
        }
    }
    return files;
}

QString firstLine(const QString &text) { return text.section(QLatin1Char('\n'), 0, 0); }

} // namespace

void MainWindow::createBundleActions()
{
    QAction *import = addAction(QStringLiteral("import-runs"), tr("&Import Runs…"), QString(), {});
    import->setToolTip(tr("Merge a run bundle (.tybundle: File ▸ Export Runs as Bundle…, or trainyard-cli runs export "
                          "--bundle) into the run database; dropping the file on the window does the same"));
    connect(import, &QAction::triggered, this, &MainWindow::importRunsInteractively);
    // The run browser's action, beside it: the result shows in the browser's status line.
    QAction *exportRuns = m_training->browser()->bundleAction();
    QWidget::addAction(exportRuns);
    m_actions.insert(QStringLiteral("export-runs"), exportRuns);
    connect(exportRuns, &QAction::triggered, this, &MainWindow::showTraining);
    // The browser's own status line says it in full; the window's status bar says it in every tab and mode.
    RunBrowser *browser = m_training->browser();
    connect(browser, &RunBrowser::bundleImported, this,
            [this](const QString &, bool, const QList<qint64> &, const QString &message) { statusBar()->showMessage(firstLine(message), 15000); });
    connect(browser, &RunBrowser::bundleExported, this,
            [this](const QString &, bool, const QString &message) { statusBar()->showMessage(firstLine(message), 15000); });
    connect(m_sweepView, &SweepView::exportRequested, browser, &RunBrowser::exportSweepBundleInteractively);

    QAction *report = addAction(QStringLiteral("export-report"), tr("Export &Report…"), QString(), {});
    report->setToolTip(tr("Write the selected run's report, or in Experiments ▸ Sweeps the sweep's, as one HTML file that opens "
                          "in any browser without the app or the network (trainyard-cli report does the same)"));
    connect(report, &QAction::triggered, this, &MainWindow::exportReportInteractively);
    connect(browser, &RunBrowser::reportExported, this,
            [this](const QString &, bool, const QString &message) { statusBar()->showMessage(firstLine(message), 15000); });
}

void MainWindow::exportReportInteractively()
{
    RunBrowser *browser = m_training->browser();
    if (m_experiments && m_experiments->currentWidget() == m_sweepView && mode() == WindowMode::Experiments) {
        if (m_sweepView->currentSweep() > 0)
            browser->exportSweepReportInteractively(m_sweepView->currentSweep());
        else
            statusBar()->showMessage(tr("Select a sweep to write its report."), 8000);
        return;
    }
    if (browser->selectedRunIds().isEmpty()) {
        statusBar()->showMessage(tr("Select a run in Experiments ▸ Runs to write its report."), 8000);
        return;
    }
    browser->exportReportInteractively();
}

bool MainWindow::importRunBundle(const QString &path)
{
    if (showsTeamRuns())
        (void)showTeamRuns(false);  // into this machine's run database
    if (m_training->databasePath().isEmpty())
        openRunDatabase(preferredRunDatabase());  // a failure shows below
    showTraining();
    if (m_training->browser()->importBundle(path, m_interactive))
        return true;
    showError(tr("Cannot import runs"), m_training->browser()->statusText());
    return false;
}

void MainWindow::importRunsInteractively()
{
    const QString folder = QSettings().value(QStringLiteral("runs/exportFolder"), QDir::homePath()).toString();
    const QString path = QFileDialog::getOpenFileName(this, tr("Import runs from a run bundle"), folder,
                                                      tr("Run bundles (*.tybundle);;All files (*)"));
    if (!path.isEmpty())
        importRunBundle(path);
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (droppedFiles(event->mimeData()).isEmpty())
        event->ignore();
    else
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    const DroppedFiles files = droppedFiles(event->mimeData());
    if (files.isEmpty())
        return;
    event->acceptProposedAction();
    // After the drop has returned to the source (a message box may follow).
    QTimer::singleShot(0, this, [this, files] {
        for (const QString &bundle : files.bundles)
            importRunBundle(bundle);
        if (!files.preset.isEmpty())
            openFile(files.preset);
    });
}

} // namespace ty
