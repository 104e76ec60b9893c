// Run bundles dropped on the real main window: a .tybundle dropped on the canvas (Design) or on the run browser
// (Experiments) is imported into the window's run database, Experiments ▸ Runs shows and selects its runs and the
// status bar says how many were added; a bundle is known by its content whatever its name; a damaged one is refused,
// changing nothing; a preset dropped on the run browser still opens; the sweep view's Export Bundle… (disabled while
// the sweep runs) writes the sweep; File ▸ Import Runs… and ▸ Export Runs as Bundle… are there. The drops are
// sent as a drag would send them, DragEnter then Drop to the widget under the cursor, which lets them through to
// the window.

#include "training_ui_support.h"

#include "main_window.h"

#include "canvas/canvas_view.h"
#include "document/pipeline_document.h"
#include "preset_format.h"
#include "runs/run_browser.h"
#include "training/training_panel.h"

#include "run_bundle_export.h"
#include "run_bundle_import.h"
#include "sweeps/sweep_view.h"

#include <QAction>
#include <QApplication>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QJsonDocument>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <memory>

using namespace ty;

namespace {

// What a drag of `paths` onto `target` and a drop there do; whether the drop was taken.
bool dropFiles(QWidget *target, const QStringList &paths)
{
    QMimeData mime;
    QList<QUrl> urls;
    for (const QString &path : paths)
        urls << QUrl::fromLocalFile(path);
    mime.setUrls(urls);
    const QPoint at = target->rect().center();
    QDragEnterEvent enter(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &enter);
    if (!enter.isAccepted())
        return false;
    QDropEvent drop(QPointF(at), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &drop);
    return drop.isAccepted();
}

int runCount(RunDatabase &db)
{
    RunSummaryQuery all;
    all.limit = 1000;
    return int(db.runSummaries(all).value().size());
}

QList<qint64> sorted(QList<qint64> ids)
{
    std::sort(ids.begin(), ids.end());
    return ids;
}

} // namespace

class TestAppBundles : public QObject {
    Q_OBJECT
    tytest::RunsFixture source;
    QString bundle;

    // A window on a database that holds one run of its own.
    std::unique_ptr<MainWindow> openWindow(tytest::RunsFixture &target)
    {
        if (!target.open() || !target.addRun(QStringLiteral("own"), RunStatus::Finished, 5))
            return nullptr;
        auto window = std::make_unique<MainWindow>();
        window->setInteractive(false);
        window->resize(1280, 720);
        window->show();
        if (!QTest::qWaitForWindowExposed(window.get()) || !window->openRunDatabase(target.path).ok())
            return nullptr;
        window->document()->setPreset(tytest::tinyPreset(1, 256));
        QApplication::processEvents();
        return window;
    }

    static RunBrowser *browser(MainWindow *window) { return window->training()->browser(); }

    // Drops `path` on `target` and waits for the import's report: [path, ok, run ids, message].
    static QList<QVariant> dropAndWait(MainWindow *window, QWidget *target, const QString &path)
    {
        QSignalSpy imported(browser(window), &RunBrowser::bundleImported);
        if (!dropFiles(target, {path}) || !imported.wait(20000))
            return {};
        return imported.first();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(source.open());
        const qint64 a = source.addRun(QStringLiteral("a"), RunStatus::Finished, 20);
        const qint64 b = source.addRun(QStringLiteral("b"), RunStatus::Finished, 30);
        bundle = source.dir.filePath(QStringLiteral("two.tybundle"));
        const Result<RunBundleExportReport> exported = exportRunBundle(RunBundleExportRequest{source.path, {a, b}, {}, bundle, true});
        QVERIFY2(exported.ok(), qPrintable(exported.ok() ? QString() : exported.error().toString()));
    }

    void bundleDroppedOnTheCanvasIsImportedAndSelected()
    {
        tytest::RunsFixture target;
        auto window = openWindow(target);
        QVERIFY(window);
        window->setMode(WindowMode::Design);
        const QList<QVariant> report = dropAndWait(window.get(), window->view()->viewport(), bundle);
        QVERIFY(!report.isEmpty());
        QVERIFY2(report.at(1).toBool(), qPrintable(report.at(3).toString()));
        const QList<qint64> ids = report.at(2).value<QList<qint64>>();
        QCOMPARE(ids.size(), 2);
        QCOMPARE(runCount(*target.db), 3);
        QCOMPARE(window->mode(), WindowMode::Experiments);
        QCOMPARE(sorted(browser(window.get())->selectedRunIds()), sorted(ids));
        const QString message = window->statusBar()->currentMessage();
        QVERIFY2(message.contains(QStringLiteral("2 runs added")) && message.contains(bundle), qPrintable(message));
    }

    void bundleIsKnownByItsContentInExperiments()
    {
        const QString renamed = source.dir.filePath(QStringLiteral("runs from the lab.bin"));
        QFile::remove(renamed);
        QVERIFY(QFile::copy(bundle, renamed));
        tytest::RunsFixture target;
        auto window = openWindow(target);
        QVERIFY(window);
        window->showTraining();
        const QList<QVariant> report = dropAndWait(window.get(), browser(window.get())->view()->viewport(), renamed);
        QVERIFY(!report.isEmpty());
        QVERIFY2(report.at(1).toBool(), qPrintable(report.at(3).toString()));
        QCOMPARE(runCount(*target.db), 3);
        QCOMPARE(sorted(browser(window.get())->selectedRunIds()), sorted(report.at(2).value<QList<qint64>>()));
    }

    void damagedBundleChangesNothing()
    {
        const QString damaged = source.dir.filePath(QStringLiteral("damaged.tybundle"));
        QFile::remove(damaged);
        QVERIFY(QFile::copy(bundle, damaged));
        QFile file(damaged);
        QVERIFY(file.open(QIODevice::ReadWrite));
        QVERIFY(file.seek(100));
        char byte = 0;
        QVERIFY(file.getChar(&byte));
        QVERIFY(file.seek(100));
        QVERIFY(file.putChar(char(byte ^ 0x40)));
        file.close();
        tytest::RunsFixture target;
        auto window = openWindow(target);
        QVERIFY(window);
        window->setMode(WindowMode::Design);
        const QList<QVariant> report = dropAndWait(window.get(), window->view()->viewport(), damaged);
        QVERIFY(!report.isEmpty());
        QVERIFY(!report.at(1).toBool());
        QCOMPARE(runCount(*target.db), 1);
        const QString message = window->statusBar()->currentMessage();
        QVERIFY2(message.contains(damaged) && message.contains(QStringLiteral("nothing was changed")), qPrintable(message));
    }

    void presetDroppedOnTheRunBrowserStillOpens()
    {
        const QString preset = source.dir.filePath(QStringLiteral("dropped.trainyard.json"));
        QFile out(preset);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QJsonDocument(presetToJson(tytest::tinyPreset(1, 128))).toJson());
        out.close();
        tytest::RunsFixture target;
        auto window = openWindow(target);
        QVERIFY(window);
        window->showTraining();
        QSignalSpy imported(browser(window.get()), &RunBrowser::bundleImported);
        QVERIFY(dropFiles(browser(window.get())->view()->viewport(), {preset}));
        QTRY_COMPARE(window->document()->fileName(), preset);
        QCOMPARE(imported.size(), 0);
        QCOMPARE(runCount(*target.db), 1);
    }

    void sweepViewExportsTheSweep()
    {
        tytest::RunsFixture target;
        auto window = openWindow(target);
        QVERIFY(window);
        NewSweep spec;
        spec.name = QStringLiteral("lr search");
        spec.preset = presetToJson(tytest::tinyPreset());
        spec.metric = QStringLiteral("val/accuracy");
        spec.maximize = true;
        const qint64 sweep = target.db->createSweep(spec).value();  // running, driven by this process
        window->showSweep(sweep);
        QPushButton *exportButton = window->sweepView()->exportButton();
        QVERIFY(!exportButton->isEnabled());
        QVERIFY(target.db->setSweepStatus(sweep, QStringLiteral("finished")).ok());
        window->sweepView()->refresh();
        QVERIFY(exportButton->isEnabled());

        QStringList asked;
        const QString chosen = source.dir.filePath(QStringLiteral("the sweep"));
        browser(window.get())->setSaveFileChooser([&](const QString &, const QString &suggestion, const QString &) {
            asked << suggestion;
            return chosen;
        });
        QSignalSpy exported(browser(window.get()), &RunBrowser::bundleExported);
        exportButton->click();
        QVERIFY(exported.wait(20000));
        QVERIFY2(exported.first().at(1).toBool(), qPrintable(exported.first().at(2).toString()));
        QCOMPARE(asked.value(0).section(QLatin1Char('/'), -1), QStringLiteral("sweep-%1.tybundle").arg(sweep));
        const QString written = chosen + QStringLiteral(".tybundle");
        QCOMPARE(exported.first().at(0).toString(), written);
        const QString message = window->statusBar()->currentMessage();
        QVERIFY2(message.contains(QStringLiteral("Sweep #%1").arg(sweep)) && message.contains(written), qPrintable(message));

        QTemporaryDir elsewhere;
        const Result<RunBundleImportReport> report = importRunBundle(elsewhere.filePath(QStringLiteral("runs.sqlite")), written);
        QVERIFY2(report.ok(), qPrintable(report.ok() ? QString() : report.error().toString()));
        QCOMPARE(report.value().sweeps.size(), 1);
        QCOMPARE(report.value().sweeps.first().uuid, target.db->sweep(sweep).value().uuid);
    }

    void importRunsIsInTheFileMenu()
    {
        tytest::RunsFixture target;
        auto window = openWindow(target);
        QVERIFY(window);
        QAction *import = window->action(QStringLiteral("import-runs"));
        QVERIFY(import);
        QMenu *file = window->menuBar()->actions().first()->menu();
        QVERIFY(file);
        QVERIFY(file->actions().contains(import));
        QCOMPARE(window->action(QStringLiteral("export-runs")), browser(window.get())->bundleAction());
        QVERIFY(file->actions().contains(browser(window.get())->bundleAction()));
    }

    // File ▸ Export Report…: the run selected in Experiments ▸ Runs, or the sweep shown in Experiments ▸ Sweeps.
    void exportReportIsInTheFileMenu()
    {
        tytest::RunsFixture target;
        auto window = openWindow(target);
        QVERIFY(window);
        QAction *report = window->action(QStringLiteral("export-report"));
        QVERIFY(report);
        QVERIFY(window->menuBar()->actions().first()->menu()->actions().contains(report));
        QStringList asked;
        const QString chosen = target.dir.filePath(QStringLiteral("report.html"));
        browser(window.get())->setSaveFileChooser([&](const QString &, const QString &suggestion, const QString &) {
            asked << suggestion;
            return chosen;
        });
        report->trigger();  // nothing selected: the status bar says what to do, no file
        QVERIFY2(window->statusBar()->currentMessage().contains(QStringLiteral("Select a run")),
                 qPrintable(window->statusBar()->currentMessage()));
        QVERIFY(asked.isEmpty());

        window->showTraining();
        browser(window.get())->selectRuns({1});
        report->trigger();
        QCOMPARE(asked.value(0).section(QLatin1Char('/'), -1), QStringLiteral("run-1.html"));
        QFile page(chosen);
        QVERIFY(page.open(QIODevice::ReadOnly));
        QVERIFY(page.readAll().contains("id=\"curves\""));
        QVERIFY2(window->statusBar()->currentMessage().contains(QStringLiteral("report.html")), qPrintable(window->statusBar()->currentMessage()));

        NewSweep spec;
        spec.name = QStringLiteral("lr search");
        spec.preset = presetToJson(tytest::tinyPreset());
        spec.metric = QStringLiteral("val/accuracy");
        const qint64 sweep = target.db->createSweep(spec).value();
        window->showSweep(sweep);
        report->trigger();
        QCOMPARE(asked.value(1).section(QLatin1Char('/'), -1), QStringLiteral("sweep-%1.html").arg(sweep));
        page.close();
        QVERIFY(page.open(QIODevice::ReadOnly));
        QVERIFY(page.readAll().contains("id=\"trials\""));
    }
};

QTEST_MAIN(TestAppBundles)
#include "test_app_bundles.moc"
