// The run database watcher: the app's one read connection and one timer. It emits on a commit by another
// connection (a worker, a terminal) and by its own, says whether the runs changed (a heartbeat alone counts), stays
// quiet with one small query a poll while nothing changes, polls fast only while a run is active, and moves every
// view that follows it to another file; the panel's browser and live plots read through its connection, and a
// running run's new rows reach the plots with no poll of their own.

#include "test_suite.h"
#include "plots/run_metrics_feed.h"
#include "run_writer.h"
#include "runs/run_browser.h"
#include "runs/run_database_watcher.h"
#include "runs/run_queue_view.h"
#include "runs/runs_table_model.h"
#include "sweeps/sweep_view.h"
#include "training/run_speed_view.h"
#include "training/training_panel.h"
#include "training_ui_support.h"

#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QtTest>

using namespace ty;
using tytest::RunsFixture;

namespace {

constexpr int kShortPollMs = 10;

// The watcher's signals, counted.
struct Spies {
    explicit Spies(RunDatabaseWatcher *watcher)
        : changed(watcher, &RunDatabaseWatcher::changed), runsChanged(watcher, &RunDatabaseWatcher::runsChanged),
          ticked(watcher, &RunDatabaseWatcher::ticked)
    {
    }
    void clear()
    {
        changed.clear();
        runsChanged.clear();
        ticked.clear();
    }
    QSignalSpy changed, runsChanged, ticked;
};

QList<MetricPoint> lossRows(qint64 from, qint64 to)
{
    QList<MetricPoint> rows;
    for (qint64 step = from; step <= to; ++step)
        rows.append({QStringLiteral("train/loss"), step, 1, step * 0.1, 1.0 / double(step)});
    return rows;
}

} // namespace

class TestRunDatabaseWatcher : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void quietWhileNothingIsCommitted();
    void emitsOnACommitByAnotherConnection();
    void heartbeatAloneMovesTheRuns();
    void ownWritesCount();
    void pollsFastOnlyWhileARunIsActive();
    void anotherFileMovesItsViews();
    void oneConnectionServesEveryView();
    void liveRowsReachThePlotsWithoutAPollOfTheirOwn();
};

void TestRunDatabaseWatcher::quietWhileNothingIsCommitted()
{
    RunsFixture f;
    QVERIFY(f.open());
    f.addRun(QStringLiteral("done"), RunStatus::Finished, 20);
    RunDatabaseWatcher watcher;
    QVERIFY(watcher.open(f.path).ok());
    watcher.setPollInterval(kShortPollMs);
    Spies spies(&watcher);
    const qint64 queries = watcher.queryCount();
    const qint64 generation = watcher.generation();
    QVERIFY(f.db->listRuns().ok());  // another connection reading commits nothing
    QTRY_VERIFY(spies.ticked.size() >= 6);
    QCOMPARE(spies.changed.size(), 0);
    QCOMPARE(spies.runsChanged.size(), 0);
    QCOMPARE(watcher.generation(), generation);
    QVERIFY(!watcher.isPollingFast());
    // Idle, every poll is a tick and one query (the commit stamp); the runs' stamp is not read again.
    QCOMPARE(watcher.queryCount() - queries, qint64(spies.ticked.size()));
}

void TestRunDatabaseWatcher::emitsOnACommitByAnotherConnection()
{
    RunsFixture f;
    QVERIFY(f.open());
    RunDatabaseWatcher watcher;
    QVERIFY(watcher.open(f.path).ok());
    watcher.setPollInterval(kShortPollMs);
    Spies spies(&watcher);
    const qint64 generation = watcher.generation();
    const qint64 id = f.addRun(QStringLiteral("from a terminal"), RunStatus::Finished, 20);
    QTRY_VERIFY(spies.runsChanged.size() >= 1);
    QVERIFY(spies.changed.size() >= 1);
    QVERIFY(watcher.generation() > generation);
    QCOMPARE(watcher.runsStamp().maxId, id);
    // A commit to another table: changed(), but the runs did not change.
    QTRY_VERIFY(spies.ticked.size() >= 2);
    spies.clear();
    QVERIFY(f.db->setMaxRunning(3).ok());
    QTRY_VERIFY(spies.changed.size() == 1);
    QTRY_VERIFY(spies.ticked.size() >= 3);
    QCOMPARE(spies.changed.size(), 1);
    QCOMPARE(spies.runsChanged.size(), 0);
}

void TestRunDatabaseWatcher::heartbeatAloneMovesTheRuns()
{
    RunsFixture f;
    QVERIFY(f.open());
    const qint64 id = f.createRun(QStringLiteral("live"));
    RunWriter writer(f.path, id, 3600 * 1000);
    QVERIFY(writer.start().ok());
    RunDatabaseWatcher watcher;
    QVERIFY(watcher.open(f.path).ok());
    watcher.setPollInterval(kShortPollMs);
    Spies spies(&watcher);
    QTRY_VERIFY(spies.ticked.size() >= 2);
    QCOMPARE(spies.runsChanged.size(), 0);
    QTest::qWait(5);  // heartbeat times have millisecond resolution
    QVERIFY(writer.flush().ok());  // no rows: the heartbeat alone
    QTRY_VERIFY(spies.runsChanged.size() == 1);
    QVERIFY(spies.changed.size() >= 1);
    QVERIFY(writer.finish(RunStatus::Finished).ok());
}

void TestRunDatabaseWatcher::ownWritesCount()
{
    RunsFixture f;
    QVERIFY(f.open());
    const qint64 id = f.addRun(QStringLiteral("before"), RunStatus::Finished, 10);
    RunDatabaseWatcher watcher;
    QVERIFY(watcher.open(f.path).ok());
    watcher.setPollInterval(kShortPollMs);
    Spies spies(&watcher);
    QTRY_VERIFY(spies.ticked.size() >= 2);
    QCOMPARE(spies.changed.size(), 0);
    // SQLite's data_version does not move for the connection's own commits: total_changes() does.
    QVERIFY(watcher.database()->renameRun(id, QStringLiteral("after")).ok());
    QTRY_VERIFY(spies.changed.size() == 1);
}

void TestRunDatabaseWatcher::pollsFastOnlyWhileARunIsActive()
{
    RunsFixture f;
    QVERIFY(f.open());
    RunDatabaseWatcher watcher;
    QVERIFY(watcher.open(f.path).ok());
    QCOMPARE(watcher.pollInterval(), RunDatabaseWatcher::kDefaultPollMs);  // the live plots' delay, as before
    watcher.setPollInterval(kShortPollMs);
    QVERIFY(!watcher.isPollingFast());
    const qint64 id = f.createRun(QStringLiteral("live"));
    QTRY_VERIFY(watcher.isPollingFast());  // queued
    RunWriter writer(f.path, id, 3600 * 1000);
    QVERIFY(writer.start().ok());
    QTest::qWait(10 * kShortPollMs);
    QVERIFY(watcher.isPollingFast());  // running
    QVERIFY(writer.finish(RunStatus::Finished).ok());
    QTRY_VERIFY(!watcher.isPollingFast());
}

void TestRunDatabaseWatcher::anotherFileMovesItsViews()
{
    RunsFixture first, second;
    QVERIFY(first.open());
    QVERIFY(second.open());
    const qint64 onlyInSecond = second.addRun(QStringLiteral("second"), RunStatus::Finished, 10);
    RunDatabaseWatcher watcher;
    QVERIFY(watcher.open(first.path).ok());
    RunBrowser browser;
    browser.setWatcher(&watcher);
    QCOMPARE(browser.model()->rowCount(), 0);
    QSignalSpy replaced(&watcher, &RunDatabaseWatcher::connectionReplaced);
    QVERIFY(watcher.open(second.path).ok());
    QCOMPARE(replaced.size(), 1);
    QCOMPARE(replaced.at(0).at(0).value<RunDatabase *>(), watcher.database());
    QCOMPARE(watcher.path(), second.path);
    QCOMPARE(browser.database(), watcher.database());
    QVERIFY(browser.model()->rowOfRun(onlyInSecond) >= 0);
    // A file that is no database changes nothing.
    QTemporaryDir dir;
    const QString junk = dir.filePath(QStringLiteral("junk.sqlite"));
    QFile file(junk);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QByteArray("not a database at all\n").repeated(100));
    file.close();
    RunDatabase *before = watcher.database();
    QVERIFY(!watcher.open(junk).ok());
    QCOMPARE(replaced.size(), 1);
    QCOMPARE(watcher.database(), before);
    QCOMPARE(browser.model()->rowCount(), 1);
}

void TestRunDatabaseWatcher::oneConnectionServesEveryView()
{
    RunsFixture f, other;
    QVERIFY(f.open());
    QVERIFY(other.open());
    f.addRun(QStringLiteral("done"), RunStatus::Finished, 10);
    TrainingPanel panel;
    SweepView sweeps;
    RunQueueView queue;
    RunSpeedView speed;
    sweeps.setWatcher(panel.watcher());
    queue.setWatcher(panel.watcher());
    speed.setWatcher(panel.watcher());
    QVERIFY(panel.openDatabase(f.path).ok());
    for (const RunsFixture *fixture : {&f, &other}) {
        if (fixture == &other)
            QVERIFY(panel.openDatabase(other.path).ok());
        RunDatabase *db = panel.watcher()->database();
        QVERIFY(db);
        QCOMPARE(db->path(), fixture->path);
        QCOMPARE(panel.browser()->watcher(), panel.watcher());
        QCOMPARE(panel.browser()->database(), db);
        QCOMPARE(panel.browser()->model()->database(), db);
        QCOMPARE(panel.feed()->database(), db);
        QCOMPARE(sweeps.watcher(), panel.watcher());
        QCOMPARE(queue.watcher(), panel.watcher());
        QCOMPARE(speed.watcher(), panel.watcher());
    }
}

void TestRunDatabaseWatcher::liveRowsReachThePlotsWithoutAPollOfTheirOwn()
{
    RunsFixture f;
    QVERIFY(f.open());
    const qint64 id = f.createRun(QStringLiteral("live"));
    RunWriter writer(f.path, id, 3600 * 1000);
    QVERIFY(writer.start().ok());
    writer.appendMetrics(lossRows(1, 10));
    QVERIFY(writer.flush().ok());
    TrainingPanel panel;
    QVERIFY(panel.openDatabase(f.path).ok());
    panel.browser()->selectRuns({id});
    QCOMPARE(panel.plottedRuns(), QList<qint64>{id});
    QVERIFY(panel.watcher()->isPollingFast());
    QCOMPARE(panel.watcher()->pollInterval(), RunDatabaseWatcher::kDefaultPollMs);
    QSignalSpy arrived(panel.feed(), &RunMetricsFeed::rowsArrived);
    writer.appendMetrics(lossRows(11, 20));
    QVERIFY(writer.flush().ok());
    QElapsedTimer clock;
    clock.start();
    QTRY_VERIFY_WITH_TIMEOUT(!arrived.isEmpty(), 5000);
    const QList<MetricPoint> rows = arrived.last().at(1).value<QList<MetricPoint>>();
    QCOMPARE(rows.last().step, qint64(20));
    qInfo("new rows reached the plots %lld ms after their commit", qint64(clock.elapsed()));
    QVERIFY(writer.finish(RunStatus::Finished).ok());
}

TY_TEST_CLASS(TestRunDatabaseWatcher)

#include "test_run_database_watcher.moc"
