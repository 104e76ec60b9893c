// Browsing results: which runs are plotted follows the selection, the comparison's layout (metrics as rows, runs
// as columns headed "#id", the metric names fixed while scrolling sideways), "paused" in the browser, renaming a
// run in its cell, and (with the real worker) a paused run shown paused everywhere and a resumed run listed once.

#include "test_suite.h"
#include "plots/metric_plot.h"
#include "plots/qcustomplot_include.h"
#include "plots/run_metrics_feed.h"
#include "runs/run_browser.h"
#include "runs/run_database_watcher.h"
#include "runs/run_comparison_view.h"
#include "runs/runs_filter_proxy_model.h"
#include "runs/runs_table_model.h"
#include "training/active_runs_view.h"
#include "training/training_panel.h"
#include "training_ui_support.h"
#include "run_liveness.h"
#include "evaluation/split_samples.h"

#include <QHeaderView>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTableView>
#include <QTreeWidget>
#include <QtTest>

#include <csignal>

using namespace ty;
using tytest::RunsFixture;

namespace {

constexpr int kBrowsingRunTimeoutMs = 120000;

QString statusCell(RunBrowser *browser, qint64 id)
{
    RunsTableModel *model = browser->model();
    return model->data(model->index(model->rowOfRun(id), RunsTableModel::StatusColumn)).toString();
}

QString nameCell(RunBrowser *browser, qint64 id)
{
    RunsTableModel *model = browser->model();
    return model->data(model->index(model->rowOfRun(id), RunsTableModel::NameColumn)).toString();
}

QList<qint64> sorted(QList<qint64> ids)
{
    std::sort(ids.begin(), ids.end());
    return ids;
}

} // namespace

class TestResultsBrowsing : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void plotFollowsTheSelection();
    void comparisonHasMetricRowsAndRunColumns();
    void pinnedBaselineIsPlottedWhenTheDatabaseOpens();
    void pausedRunsReadPausedInTheBrowser();
    void renameInPlace();
    void pausedEverywhereAndResumedOnce();
    void textSamplesReadAsText();
};

void TestResultsBrowsing::plotFollowsTheSelection()
{
    RunsFixture f;
    QVERIFY(f.open());
    const qint64 a = f.addRun(QStringLiteral("a"), RunStatus::Finished, 20);
    const qint64 b = f.addRun(QStringLiteral("b"), RunStatus::Finished, 30);
    const qint64 c = f.addRun(QStringLiteral("c"), RunStatus::Stopped, 10);
    TrainingPanel panel;
    QVERIFY(panel.openDatabase(f.path).ok());
    QVERIFY(panel.plottedRuns().isEmpty());
    panel.browser()->selectRuns({a, b});
    QCOMPARE(sorted(panel.plottedRuns()), (QList<qint64>{a, b}));
    QCOMPARE(sorted(panel.lossPlot()->runIds()), (QList<qint64>{a, b}));
    QCOMPARE(panel.lossPlot()->graphPointCount(b, QStringLiteral("train/loss")), 30);
    panel.browser()->selectRuns({a});  // b deselected: gone from both plots
    QCOMPARE(panel.plottedRuns(), QList<qint64>{a});
    QCOMPARE(panel.lossPlot()->runIds(), QList<qint64>{a});
    QCOMPARE(panel.metricPlot()->runIds(), QList<qint64>{a});
    panel.browser()->setBaseline(c);   // the baseline stays plotted, selected or not
    panel.browser()->selectRuns({});
    QCOMPARE(panel.plottedRuns(), QList<qint64>{c});
    QCOMPARE(panel.lossPlot()->graphPointCount(c, QStringLiteral("train/loss")), 10);
    panel.browser()->setBaseline(0);
    QVERIFY(panel.plottedRuns().isEmpty());
    QVERIFY(panel.lossPlot()->runIds().isEmpty());
    // Nothing to clear by hand any more.
    for (QPushButton *button : panel.activeRuns()->findChildren<QPushButton *>())
        QVERIFY2(!button->text().contains(QStringLiteral("Clear"), Qt::CaseInsensitive), qPrintable(button->text()));
}

// The baseline pinned in an earlier session comes back as the database opens: its curves are drawn like any
// overlaid run's, in its colour (it used to be announced before the plots could read the database, and stayed
// an empty legend entry).
void TestResultsBrowsing::pinnedBaselineIsPlottedWhenTheDatabaseOpens()
{
    RunsFixture f;
    QVERIFY(f.open());
    f.addRun(QStringLiteral("a"), RunStatus::Finished, 20);
    const qint64 pinned = f.addRun(QStringLiteral("b"), RunStatus::Finished, 30);
    {
        TrainingPanel earlier;
        QVERIFY(earlier.openDatabase(f.path).ok());
        earlier.browser()->setBaseline(pinned);
    }
    TrainingPanel panel;
    QVERIFY(panel.openDatabase(f.path).ok());
    QCOMPARE(panel.browser()->baselineRunId(), pinned);
    QCOMPARE(panel.plottedRuns(), QList<qint64>{pinned});
    QCOMPARE(panel.lossPlot()->graphPointCount(pinned, QStringLiteral("train/loss")), 30);
    QCOMPARE(panel.metricPlot()->graphPointCount(pinned, QStringLiteral("val/accuracy")), 3);
    // A graph of the plot draws it, named after the run, in the run's colour.
    QCustomPlot *plot = panel.lossPlot()->customPlot();
    bool drawn = false;
    for (int g = 0; g < plot->graphCount(); ++g)
        if (plot->graph(g)->name().startsWith(QStringLiteral("#%1").arg(pinned)) && plot->graph(g)->dataCount() == 30) {
            drawn = true;
            QCOMPARE(plot->graph(g)->pen().color().rgb(), panel.lossPlot()->runColor(pinned).rgb());
        }
    QVERIFY(drawn);
    panel.browser()->setBaseline(0);
}

void TestResultsBrowsing::comparisonHasMetricRowsAndRunColumns()
{
    RunsFixture f;
    QVERIFY(f.open());
    QList<qint64> ids;
    for (int i = 0; i < 12; ++i)
        ids << f.addRun(QStringLiteral("Fashion-MNIST MLP · fc1.out_features=%1").arg(16 << (i % 4)), RunStatus::Finished, 20 + i);
    RunComparisonView view;
    view.resize(420, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(view.setRuns(f.db.get(), ids, ids.at(3)));
    // Columns: one per run, the baseline first, each headed "#id" with the whole name as its tooltip.
    QCOMPARE(view.columnCount(), 12);
    QCOMPARE(view.shownRuns().first(), ids.at(3));
    for (int c = 0; c < view.columnCount(); ++c) {
        const qint64 id = view.shownRuns().at(c);
        QCOMPARE(view.horizontalHeaderItem(c)->text(), QStringLiteral("#%1").arg(id));
        QVERIFY2(view.horizontalHeaderItem(c)->toolTip().startsWith(
                     QStringLiteral("#%1 %2").arg(id).arg(f.db->run(id).value().name)),
                 qPrintable(view.horizontalHeaderItem(c)->toolTip()));
    }
    QVERIFY(view.horizontalHeaderItem(0)->toolTip().contains(QStringLiteral("baseline")));
    // Rows: each metric's best, then min, max, last and count under it.
    QCOMPARE(view.rowCount(), 2 * 5);
    // The task's metric (val/*) first, then train/*.
    QCOMPARE(view.verticalHeaderItem(0)->text(), QStringLiteral("val/accuracy"));
    QCOMPARE(view.verticalHeaderItem(1)->text().trimmed(), QStringLiteral("min"));
    QCOMPARE(view.verticalHeaderItem(5)->text(), QStringLiteral("train/loss"));
    QCOMPARE(view.rowOf(QStringLiteral("train/loss"), QStringLiteral("count")), 9);
    QCOMPARE(view.cellText(QStringLiteral("train/loss"), QStringLiteral("count"), ids.at(0)), QStringLiteral("20"));
    QCOMPARE(view.cellText(QStringLiteral("train/loss"), QStringLiteral("best"), ids.at(3)), QStringLiteral("0.043478"));  // 1/23
    // Twelve runs do not fit in 420 pixels: scrolled to the last run, the metric names stay where they were.
    QCoreApplication::processEvents();  // laid out
    QScrollBar *sideways = view.horizontalScrollBar();
    QVERIFY(sideways->maximum() > 0);
    const QRect namesBefore = view.verticalHeader()->geometry();
    const int firstRunX = view.columnViewportPosition(0);
    sideways->setValue(sideways->maximum());
    QCoreApplication::processEvents();
    QVERIFY(view.columnViewportPosition(0) < firstRunX);  // the runs moved
    QCOMPARE(view.verticalHeader()->geometry(), namesBefore);
    QVERIFY(view.verticalHeader()->isVisible());
    QVERIFY(view.verticalHeader()->geometry().right() < view.viewport()->geometry().left());
}

void TestResultsBrowsing::pausedRunsReadPausedInTheBrowser()
{
    RunsFixture f;
    QVERIFY(f.open());
    const qint64 running = f.addRun(QStringLiteral("running"), RunStatus::Running, 10);
    const qint64 done = f.addRun(QStringLiteral("done"), RunStatus::Finished, 10);
    RunBrowser browser;
    QVERIFY(browser.openDatabase(f.path).ok());
    QSignalSpy changed(browser.model(), &QAbstractItemModel::dataChanged);
    QCOMPARE(statusCell(&browser, running), QStringLiteral("running"));
    browser.model()->setPausedRuns({running, done});
    QCOMPARE(statusCell(&browser, running), QStringLiteral("paused"));
    QCOMPARE(statusCell(&browser, done), QStringLiteral("finished"));  // only a running run can be paused
    QVERIFY(changed.size() >= 1);
    browser.model()->setPausedRuns({});
    QCOMPARE(statusCell(&browser, running), QStringLiteral("running"));

    // A run suspended in its terminal (Ctrl-Z) by a process on this host: paused too, from the process table,
    // though the database does not change.
    QProcess worker;
    worker.start(QStringLiteral("sleep"), {QStringLiteral("60")});
    QVERIFY(worker.waitForStarted());
    {
        QSqlDatabase raw = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("suspended-run"));
        raw.setDatabaseName(f.path);
        QVERIFY(raw.open());
        QSqlQuery update(raw);
        update.prepare(QStringLiteral("UPDATE runs SET host = ?, pid = ? WHERE id = ?"));
        update.addBindValue(thisHostName());
        update.addBindValue(worker.processId());
        update.addBindValue(running);
        QVERIFY(update.exec());
        raw.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("suspended-run"));
    browser.model()->reload();
    browser.watcher()->setPollInterval(20);
    QCOMPARE(statusCell(&browser, running), QStringLiteral("running"));
    ::kill(static_cast<pid_t>(worker.processId()), SIGSTOP);
    QTRY_COMPARE(statusCell(&browser, running), QStringLiteral("paused"));
    ::kill(static_cast<pid_t>(worker.processId()), SIGCONT);
    QTRY_COMPARE(statusCell(&browser, running), QStringLiteral("running"));
    worker.kill();
    worker.waitForFinished();
}

void TestResultsBrowsing::renameInPlace()
{
    RunsFixture f;
    QVERIFY(f.open());
    const qint64 id = f.addRun(QStringLiteral("before"), RunStatus::Finished, 10);
    RunBrowser browser;
    browser.resize(900, 600);
    QVERIFY(browser.openDatabase(f.path).ok());
    browser.show();
    QVERIFY(QTest::qWaitForWindowExposed(&browser));
    browser.selectRuns({id});
    QTableView *view = browser.view();
    const QModelIndex cell = browser.proxy()->mapFromSource(
        browser.model()->index(browser.model()->rowOfRun(id), RunsTableModel::NameColumn));
    QVERIFY(cell.flags() & Qt::ItemIsEditable);
    QVERIFY(!(browser.proxy()->index(cell.row(), RunsTableModel::StatusColumn).flags() & Qt::ItemIsEditable));
    const auto editor = [view]() { return view->findChild<QLineEdit *>(); };
    // F2 edits the name in its cell; Enter keeps it, in the database too.
    view->setCurrentIndex(cell);
    view->setFocus();
    QTest::keyClick(view, Qt::Key_F2);
    QTRY_VERIFY(editor() && editor()->isVisible());
    QCOMPARE(editor()->text(), QStringLiteral("before"));
    editor()->selectAll();
    QTest::keyClicks(editor(), QStringLiteral("after"));
    QTest::keyClick(editor(), Qt::Key_Return);
    QTRY_COMPARE(nameCell(&browser, id), QStringLiteral("after"));
    QCOMPARE(f.db->run(id).value().name, QStringLiteral("after"));
    // Escape cancels.
    QTest::keyClick(view, Qt::Key_F2);
    QTRY_VERIFY(editor() && editor()->isVisible());
    editor()->selectAll();
    QTest::keyClicks(editor(), QStringLiteral("never"));
    QTest::keyClick(editor(), Qt::Key_Escape);
    QTRY_VERIFY(!editor() || !editor()->isVisible());
    QCOMPARE(nameCell(&browser, id), QStringLiteral("after"));
    QCOMPARE(f.db->run(id).value().name, QStringLiteral("after"));
    // An empty name is refused, with the reason in the status line.
    QVERIFY(!browser.model()->setData(browser.model()->index(browser.model()->rowOfRun(id), RunsTableModel::NameColumn),
                                      QStringLiteral("   ")));
    QCOMPARE(f.db->run(id).value().name, QStringLiteral("after"));
    QVERIFY2(browser.statusText().contains(QStringLiteral("empty")), qPrintable(browser.statusText()));
    // The Rename button opens the same editor, no dialog.
    QPushButton *rename = nullptr;
    for (QPushButton *button : browser.findChildren<QPushButton *>())
        if (button->text() == QStringLiteral("Rename"))
            rename = button;
    QVERIFY(rename);
    rename->click();
    QTRY_VERIFY(editor() && editor()->isVisible());
    QCOMPARE(editor()->text(), QStringLiteral("after"));
    QTest::keyClick(editor(), Qt::Key_Escape);
}

void TestResultsBrowsing::pausedEverywhereAndResumedOnce()
{
    QTemporaryDir dir;
    TrainingPanel panel;
    panel.resize(1400, 900);
    panel.setWorkerPath(tytest::workerPath());
    QVERIFY(panel.openDatabase(dir.filePath(QStringLiteral("runs.sqlite"))).ok());
    QSignalSpy started(&panel, &TrainingPanel::runStarted);
    QSignalSpy finished(&panel, &TrainingPanel::runFinished);
    QSignalSpy spe(panel.feed(), &RunMetricsFeed::stepsPerEpochRead);
    QVERIFY(panel.startTraining(tytest::tinyPreset(5000)).ok());
    QVERIFY(started.wait(kBrowsingRunTimeoutMs));
    const qint64 id = started.at(0).at(0).toLongLong();
    TrainingRunController *controller = panel.controllers().value(0);
    QVERIFY(controller);
    QVERIFY(panel.browser()->selectedRunIds().contains(id));  // selected, so it stays plotted once it ends
    QVERIFY(panel.plottedRuns().contains(id));
    // The epoch length the feed reads from the database is the worker's.
    QTRY_VERIFY_WITH_TIMEOUT(!spe.isEmpty(), 20000);
    QCOMPARE(spe.at(0).at(1).toLongLong(), controller->startInfo().stepsPerEpoch);

    controller->pause();
    QTreeWidget *active = panel.activeRuns()->tree();
    QCOMPARE(active->topLevelItemCount(), 1);
    QCOMPARE(active->topLevelItem(0)->text(1), QStringLiteral("paused"));
    QCOMPARE(statusCell(panel.browser(), id), QStringLiteral("paused"));
    controller->continueRun();
    QCOMPARE(statusCell(panel.browser(), id), QStringLiteral("running"));
    controller->stop();
    QVERIFY(finished.wait(kBrowsingRunTimeoutMs));
    QCOMPARE(finished.at(0).at(1).toString(), QStringLiteral("stopped"));
    QVERIFY(panel.plottedRuns().contains(id));  // still selected

    QVERIFY(panel.resumeRun(id).ok());
    QCOMPARE(active->topLevelItemCount(), 1);  // the resumed run replaces its ended row
    QTRY_VERIFY_WITH_TIMEOUT(started.size() == 2, kBrowsingRunTimeoutMs);
    QCOMPARE(active->topLevelItemCount(), 1);
    QVERIFY(active->topLevelItem(0)->text(0).startsWith(QStringLiteral("#%1 ").arg(id)));
    panel.controllers().value(0)->stop();
    QTRY_VERIFY_WITH_TIMEOUT(finished.size() == 2, kBrowsingRunTimeoutMs);
    // Deselected, the ended run leaves the plots.
    panel.browser()->selectRuns({});
    QVERIFY(!panel.plottedRuns().contains(id));
    QVERIFY(!panel.lossPlot()->hasRun(id));
}

TY_TEST_CLASS(TestResultsBrowsing)

#include "test_results_browsing.moc"

// The Evaluate view lists a text run's samples as the characters of their windows, not as ids.
void TestResultsBrowsing::textSamplesReadAsText()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("words.txt"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("ab\ncab\n");
    file.close();
    const QJsonObject preset = QJsonDocument::fromJson(QStringLiteral(R"({"format": "trainyard-preset", "version": 1, "name": "t",
        "nodes": [{"id": "data", "block": "dataset.text", "params": {"path": "%1", "window": 3, "test_fraction": 0.0, "val_fraction": 0.0}}],
        "edges": []})").arg(path).toUtf8()).object();
    const Result<std::shared_ptr<const SplitSamples>> samples = readSplitSamples(preset, dir.filePath(QStringLiteral("t.trainyard.json")), QStringLiteral("train"));
    QVERIFY2(samples, samples ? "" : qPrintable(samples.error().toString()));
    QCOMPARE(samples.value()->samples.count, qint64(4));
    QCOMPARE(samples.value()->rowText(0), QStringLiteral("“ab⏎”"));
    QCOMPARE(samples.value()->rowText(1), QStringLiteral("“b⏎c”"));
    QVERIFY(!samples.value()->isImage());
}
