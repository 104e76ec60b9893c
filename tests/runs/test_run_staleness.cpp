// Interrupted-run detection: dead pid on this host, stale heartbeat anywhere; live runs left alone, and so is a
// run whose process is suspended (Ctrl-Z), which shows "paused".

#include "test_suite.h"
#include "run_database.h"
#include "run_liveness.h"
#include "run_process_state.h"
#include "run_sqlite.h"
#include "test_runs_support.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

using namespace ty;
using ty::testing::RawSqlite;

namespace {
const QString kOtherHost = QStringLiteral("some-other-host.invalid");
}

class TestRunStaleness : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void runLooksAbandoned_data();
    void runLooksAbandoned();
    void markStaleRuns_data();
    void markStaleRuns();
    void openMarksStaleRuns();
    void onlyRunningRunsAreMarked();
    void aQueuedRunWhoseProcessDiedIsInterrupted();
    void stoppingARunsProcessIsRefusedWhenItIsNotTheRun();
    void aSuspendedProcessIsPausedNotAbandoned();

private:
    qint64 m_deadPid = 0;
};

void TestRunStaleness::initTestCase()
{
    m_deadPid = testing::deadProcessId();
    QVERIFY2(m_deadPid > 0, "could not make a dead process (fork failed)");
    QVERIFY(!processMayBeAlive(m_deadPid));
    QVERIFY(processMayBeAlive(thisProcessId()));
}

void TestRunStaleness::runLooksAbandoned_data()
{
    QTest::addColumn<bool>("thisHost");
    QTest::addColumn<bool>("deadPid");
    QTest::addColumn<int>("heartbeatAgeSeconds");  // -1: no heartbeat at all
    QTest::addColumn<bool>("abandoned");
    QTest::newRow("this host, live pid, fresh") << true << false << 0 << false;
    QTest::newRow("this host, live pid, 29 s") << true << false << 29 << false;
    QTest::newRow("this host, live pid, 31 s") << true << false << 31 << true;
    QTest::newRow("this host, dead pid, fresh") << true << true << 0 << true;
    QTest::newRow("other host, dead-here pid, fresh") << false << true << 0 << false;
    QTest::newRow("other host, 1 h old") << false << false << 3600 << true;
    QTest::newRow("other host, heartbeat in the future") << false << false << -60 << false;
    QTest::newRow("no heartbeat") << false << false << -1 << true;
}

void TestRunStaleness::runLooksAbandoned()
{
    QFETCH(bool, thisHost);
    QFETCH(bool, deadPid);
    QFETCH(int, heartbeatAgeSeconds);
    QFETCH(bool, abandoned);
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const QDateTime heartbeat = heartbeatAgeSeconds == -1 ? QDateTime() : now.addSecs(-heartbeatAgeSeconds);
    QCOMPARE(ty::runLooksAbandoned(thisHost ? thisHostName() : kOtherHost, deadPid ? m_deadPid : thisProcessId(),
                                   heartbeat, now),
             abandoned);
}

void TestRunStaleness::markStaleRuns_data()
{
    QTest::addColumn<bool>("thisHost");
    QTest::addColumn<bool>("deadPid");
    QTest::addColumn<int>("heartbeatAgeSeconds");
    QTest::addColumn<bool>("marked");
    QTest::newRow("dead pid on this host") << true << true << 0 << true;
    QTest::newRow("old heartbeat, live pid on this host") << true << false << 3600 << true;
    QTest::newRow("old heartbeat elsewhere") << false << false << 3600 << true;
    QTest::newRow("live: this process, fresh heartbeat") << true << false << 0 << false;
    QTest::newRow("live: elsewhere, fresh heartbeat") << false << true << 0 << false;
}

// The row is written by hand, as a crashed (or live) trainer would have left it; then an explicit call.
void TestRunStaleness::markStaleRuns()
{
    QFETCH(bool, thisHost);
    QFETCH(bool, deadPid);
    QFETCH(int, heartbeatAgeSeconds);
    QFETCH(bool, marked);
    QTemporaryDir dir;
    auto opened = RunDatabase::open(dir.filePath(QStringLiteral("runs.sqlite")));
    QVERIFY(opened.ok());
    RunDatabase &db = *opened.value();
    const qint64 id = db.createRun(testing::sampleNewRun()).value();
    const QString heartbeat = toRunDbTime(QDateTime::currentDateTimeUtc().addSecs(-heartbeatAgeSeconds));
    {
        RawSqlite raw(db.path());
        QCOMPARE(raw.exec(QStringLiteral("UPDATE runs SET status = 'running', host = ?, pid = ?, heartbeat_at = ?,"
                                         " started_at = ? WHERE id = ?"),
                          {thisHost ? thisHostName() : kOtherHost, deadPid ? m_deadPid : thisProcessId(), heartbeat,
                           heartbeat, id}),
                 QString());
    }
    QCOMPARE(db.markStaleRunsInterrupted(), marked ? 1 : 0);
    const RunInfo run = db.run(id).value();
    if (marked) {
        QCOMPARE(run.status, RunStatus::Interrupted);
        QCOMPARE(run.statusMessage,
                 QStringLiteral("the writing process stopped without finishing (last heartbeat %1)").arg(heartbeat));
        QVERIFY(run.endedAt.isValid());
    } else {
        QCOMPARE(run.status, RunStatus::Running);
        QVERIFY(run.statusMessage.isEmpty());
        QVERIFY(!run.endedAt.isValid());
    }
    QCOMPARE(db.markStaleRunsInterrupted(), 0);  // nothing left to mark
}

void TestRunStaleness::openMarksStaleRuns()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("runs.sqlite"));
    qint64 dead = 0, old = 0, live = 0;
    {
        auto opened = RunDatabase::open(path);
        QVERIFY(opened.ok());
        dead = opened.value()->createRun(testing::sampleNewRun(QStringLiteral("dead"))).value();
        old = opened.value()->createRun(testing::sampleNewRun(QStringLiteral("old"))).value();
        live = opened.value()->createRun(testing::sampleNewRun(QStringLiteral("live"))).value();
    }
    {
        RawSqlite raw(path);
        const QString now = runDbNow();
        const QString sql = QStringLiteral("UPDATE runs SET status = 'running', host = ?, pid = ?, heartbeat_at = ? WHERE id = ?");
        QCOMPARE(raw.exec(sql, {thisHostName(), m_deadPid, now, dead}), QString());
        QCOMPARE(raw.exec(sql, {kOtherHost, 4242, QStringLiteral("2001-02-03T04:05:06.789Z"), old}), QString());
        QCOMPARE(raw.exec(sql, {thisHostName(), thisProcessId(), now, live}), QString());
    }
    auto reopened = RunDatabase::open(path);
    QVERIFY(reopened.ok());
    RunDatabase &db = *reopened.value();
    QCOMPARE(db.run(dead).value().status, RunStatus::Interrupted);
    QCOMPARE(db.run(old).value().status, RunStatus::Interrupted);
    QCOMPARE(db.run(old).value().statusMessage,
             QStringLiteral("the writing process stopped without finishing (last heartbeat 2001-02-03T04:05:06.789Z)"));
    QCOMPARE(db.run(live).value().status, RunStatus::Running);
}

void TestRunStaleness::onlyRunningRunsAreMarked()
{
    QTemporaryDir dir;
    auto opened = RunDatabase::open(dir.filePath(QStringLiteral("runs.sqlite")));
    QVERIFY(opened.ok());
    RunDatabase &db = *opened.value();
    const QList<RunStatus> others = {RunStatus::Finished, RunStatus::Failed, RunStatus::Diverged, RunStatus::Stopped};
    QList<qint64> ids;
    RawSqlite raw(db.path());
    for (RunStatus status : others) {
        const qint64 id = db.createRun(testing::sampleNewRun(runStatusName(status))).value();
        ids << id;
        QCOMPARE(raw.exec(QStringLiteral("UPDATE runs SET status = ?, host = ?, pid = ?,"
                                         " heartbeat_at = '2000-01-01T00:00:00.000Z' WHERE id = ?"),
                          {runStatusName(status), thisHostName(), m_deadPid, id}),
                 QString());
    }
    QCOMPARE(db.markStaleRunsInterrupted(), 0);
    for (int i = 0; i < others.size(); ++i)
        QCOMPARE(db.run(ids.at(i)).value().status, others.at(i));
}

// A run is queued from its creation until training begins (data loading): killed in between, it is marked
// interrupted when its process is gone from this host; a live process keeps it queued however old, and one on
// another host cannot be checked.
void TestRunStaleness::aQueuedRunWhoseProcessDiedIsInterrupted()
{
    QTemporaryDir dir;
    auto opened = RunDatabase::open(dir.filePath(QStringLiteral("runs.sqlite")));
    QVERIFY(opened.ok());
    RunDatabase &db = *opened.value();
    RawSqlite raw(db.path());
    const qint64 mine = db.createRun(testing::sampleNewRun(QStringLiteral("mine"))).value();
    const RunInfo created = db.run(mine).value();
    QCOMPARE(created.status, RunStatus::Queued);
    QCOMPARE(created.host, thisHostName());  // recorded at creation
    QCOMPARE(created.pid, thisProcessId());
    const qint64 dead = db.createRun(testing::sampleNewRun(QStringLiteral("dead"))).value();
    const qint64 elsewhere = db.createRun(testing::sampleNewRun(QStringLiteral("elsewhere"))).value();
    const QString old = QStringLiteral("2000-01-01T00:00:00.000Z");
    QCOMPARE(raw.exec(QStringLiteral("UPDATE runs SET created_at = ? WHERE id = ?"), {old, mine}), QString());
    QCOMPARE(raw.exec(QStringLiteral("UPDATE runs SET pid = ?, created_at = ? WHERE id = ?"), {m_deadPid, old, dead}), QString());
    QCOMPARE(raw.exec(QStringLiteral("UPDATE runs SET host = ?, pid = ?, created_at = ? WHERE id = ?"), {kOtherHost, m_deadPid, old, elsewhere}),
             QString());
    QCOMPARE(db.markStaleRunsInterrupted(), 1);
    QCOMPARE(db.run(mine).value().status, RunStatus::Queued);
    QCOMPARE(db.run(elsewhere).value().status, RunStatus::Queued);
    const RunInfo interrupted = db.run(dead).value();
    QCOMPARE(interrupted.status, RunStatus::Interrupted);
    QVERIFY2(interrupted.statusMessage.contains(QStringLiteral("before training began")), qPrintable(interrupted.statusMessage));
}

// The browser's Stop signals the recorded process only when it is a trainyard-cli on this host; otherwise it
// says why. This test process is alive but is not trainyard-cli: if it were signalled, SIGINT would end it.
void TestRunStaleness::stoppingARunsProcessIsRefusedWhenItIsNotTheRun()
{
    const Status elsewhere = askRunProcessToStop(kOtherHost, thisProcessId());
    QVERIFY(!elsewhere.ok());
    QVERIFY2(elsewhere.error().message.contains(kOtherHost), qPrintable(elsewhere.error().message));
    const Status gone = askRunProcessToStop(thisHostName(), m_deadPid);
    QVERIFY(!gone.ok());
    QVERIFY2(gone.error().message.contains(QStringLiteral("gone")), qPrintable(gone.error().message));
    const Status notTheRun = askRunProcessToStop(thisHostName(), thisProcessId());
    QVERIFY(!notTheRun.ok());
    QVERIFY2(notTheRun.error().message.contains(QStringLiteral("trainyard-cli")), qPrintable(notTheRun.error().message));
    QVERIFY(processMayBeAlive(thisProcessId()));
}

void TestRunStaleness::aSuspendedProcessIsPausedNotAbandoned()
{
    QProcess sleeper;
    sleeper.start(QStringLiteral("sleep"), {QStringLiteral("60")});
    QVERIFY(sleeper.waitForStarted());
    const qint64 pid = sleeper.processId();
    QVERIFY(!processIsSuspended(pid));
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const QDateTime oldHeartbeat = now.addSecs(-3600);
    QVERIFY(ty::runLooksAbandoned(thisHostName(), pid, oldHeartbeat, now));  // silent for an hour and running
    QCOMPARE(shownRunStatus(RunStatus::Running, thisHostName(), pid), QStringLiteral("running"));

    ::kill(static_cast<pid_t>(pid), SIGSTOP);  // as Ctrl-Z in its terminal
    QTRY_VERIFY(processIsSuspended(pid));
    QVERIFY(!ty::runLooksAbandoned(thisHostName(), pid, oldHeartbeat, now));
    QCOMPARE(shownRunStatus(RunStatus::Running, thisHostName(), pid), QStringLiteral("paused"));
    QCOMPARE(shownRunStatus(RunStatus::Finished, thisHostName(), pid), QStringLiteral("finished"));
    // Only this host's process table tells; elsewhere the heartbeat rule stands.
    QCOMPARE(shownRunStatus(RunStatus::Running, kOtherHost, pid), QStringLiteral("running"));
    QVERIFY(ty::runLooksAbandoned(kOtherHost, pid, oldHeartbeat, now));

    // Opening the database leaves the suspended run alone.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("runs.sqlite"));
    qint64 id = 0;
    {
        auto opened = RunDatabase::open(path);
        QVERIFY(opened.ok());
        id = opened.value()->createRun(testing::sampleNewRun()).value();
        RawSqlite raw(path);
        QCOMPARE(raw.exec(QStringLiteral("UPDATE runs SET status = 'running', host = ?, pid = ?, heartbeat_at = ?,"
                                         " started_at = ? WHERE id = ?"),
                          {thisHostName(), pid, toRunDbTime(oldHeartbeat), toRunDbTime(oldHeartbeat), id}),
                 QString());
    }
    {
        auto reopened = RunDatabase::open(path);
        QVERIFY(reopened.ok());
        QCOMPARE(reopened.value()->run(id).value().status, RunStatus::Running);
    }

    ::kill(static_cast<pid_t>(pid), SIGCONT);
    QTRY_VERIFY(!processIsSuspended(pid));
    sleeper.kill();
    sleeper.waitForFinished();
    QVERIFY(!processIsSuspended(pid));
}

TY_TEST_CLASS(TestRunStaleness)

#include "test_run_staleness.moc"
