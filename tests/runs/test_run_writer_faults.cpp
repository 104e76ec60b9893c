// RunWriter when things go wrong or are used out of order: a read-only file, a missing run or database, a file
// that cannot grow (a full disk), finish() without start(), destruction without finish().

#include "test_suite.h"
#include "run_database.h"
#include "run_writer.h"
#include "test_runs_support.h"

#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/resource.h>

#include <chrono>
#include <csignal>
#include <thread>

using namespace ty;
using ty::testing::Fixture;
using ty::testing::kForever;

namespace {

// While it lives, no file of this process may grow past `bytes` (RLIMIT_FSIZE, SIGXFSZ ignored): a write that would
// extend one fails as on a full disk. lift() ends it early.
class FileGrowthLimit {
public:
    explicit FileGrowthLimit(qint64 bytes)
    {
        m_oldHandler = std::signal(SIGXFSZ, SIG_IGN);
        m_ok = getrlimit(RLIMIT_FSIZE, &m_old) == 0;
        rlimit limit = m_old;
        limit.rlim_cur = rlim_t(bytes);
        m_ok = m_ok && setrlimit(RLIMIT_FSIZE, &limit) == 0;
    }
    ~FileGrowthLimit() { lift(); }
    bool ok() const { return m_ok; }
    void lift()
    {
        if (m_ok)
            setrlimit(RLIMIT_FSIZE, &m_old);
        if (m_oldHandler != SIG_ERR)
            std::signal(SIGXFSZ, m_oldHandler);
        m_ok = false;
        m_oldHandler = SIG_ERR;
    }

private:
    rlimit m_old{};
    bool m_ok = false;
    void (*m_oldHandler)(int) = SIG_ERR;
};

qint64 largestFileOf(const QString &dbPath)
{
    return std::max(QFileInfo(dbPath).size(), QFileInfo(dbPath + QStringLiteral("-wal")).size());
}

void appendRowsAndCheckpoint(RunWriter &writer, int from, int count)
{
    for (int step = from; step < from + count; ++step)
        writer.appendMetric({QStringLiteral("train/loss"), step, 0, 0, testing::valueAt(step)});
    writer.recordCheckpoint({from + count - 1, 1, QStringLiteral("/nowhere/step-%1.safetensors").arg(from + count - 1), QString(), false});
}

} // namespace

class TestRunWriterFaults : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void finishWithoutStart();
    void destroyedWithoutFinish();
    void readOnlyDatabaseGivesAnError();
    void missingRunGivesAnError();
    void runDeletedWhileWritingDropsTheBatch();
    void rowsThatCannotBeWrittenWaitAndKeepTheirOrder();
    void aRunClaimedByAnotherProcessIsNotWrittenInto();
    void rowsThatStayUnwritableEndTheRunFailed();
    void damagedPagesAreErrorsNeverFewerRows();
};

void TestRunWriterFaults::finishWithoutStart()
{
    Fixture f;
    QVERIFY(f.open());
    const qint64 id = f.newRun();
    RunWriter writer(f.path, id);
    writer.appendEvent({0, 0, QStringLiteral("error"), QStringLiteral("graph does not compile")});
    QVERIFY(writer.finish(RunStatus::Failed, QStringLiteral("kernel size 7 larger than input 5"), QStringLiteral("conv2"))
                .ok());
    const RunInfo run = f.db->run(id).value();
    QCOMPARE(run.status, RunStatus::Failed);
    QCOMPARE(run.statusMessage, QStringLiteral("kernel size 7 larger than input 5"));
    QCOMPARE(run.errorNode, QStringLiteral("conv2"));
    QVERIFY(!run.startedAt.isValid());
    QVERIFY(run.endedAt.isValid());
    QCOMPARE(f.db->events(id).value().size(), 1);
    QVERIFY(!writer.start().ok());
}

void TestRunWriterFaults::destroyedWithoutFinish()
{
    Fixture f;
    QVERIFY(f.open());
    const qint64 id = f.newRun();
    {
        RunWriter writer(f.path, id, kForever);
        QVERIFY(writer.start().ok());
        writer.appendMetric({QStringLiteral("loss"), 1, 0, 0, 2.0});
    }
    const RunInfo run = f.db->run(id).value();
    QCOMPARE(run.status, RunStatus::Interrupted);
    QVERIFY(run.statusMessage.contains(QStringLiteral("destroyed before finish()")));
    QCOMPARE(f.db->metrics(id).value().size(), 1);
}

void TestRunWriterFaults::readOnlyDatabaseGivesAnError()
{
    Fixture f;
    QVERIFY(f.open());
    const qint64 id = f.newRun();
    f.db.reset();  // closed: the WAL is folded back into the file
    QVERIFY(QFile::setPermissions(f.path, QFile::ReadOwner | QFile::ReadGroup | QFile::ReadOther));
    const QByteArray before = [&] { QFile file(f.path); file.open(QIODevice::ReadOnly); return file.readAll(); }();

    Status started, finished, last;
    {
        testing::FilePermissionsBind bind;  // so that even root cannot write the file
        QVERIFY(bind.ok());
        QFile probe(f.path);
        QVERIFY2(!probe.open(QIODevice::WriteOnly | QIODevice::Append), "the file is still writable: the test is void");
        RunWriter writer(f.path, id, 5);
        started = writer.start();
        for (int step = 0; step < 1000; ++step)
            writer.appendMetric({QStringLiteral("loss"), step, 0, 0, 1.0});
        writer.flush();
        finished = writer.finish(RunStatus::Finished);
        last = writer.lastError();
        QCOMPARE(writer.rowsWritten(), qint64(0));
    }
    QVERIFY(!finished.ok());
    QVERIFY(!last.ok());
    QCOMPARE(finished.error().message, last.error().message);
    qDebug("start: %s; finish: %s", started.ok() ? "ok" : qPrintable(started.error().message),
           qPrintable(finished.error().message));
    QVERIFY2(last.error().message.contains(f.path), qPrintable(last.error().message));
    QVERIFY2(last.error().message.contains(QStringLiteral("readonly"), Qt::CaseInsensitive) ||
                 last.error().message.contains(QStringLiteral("read-only"), Qt::CaseInsensitive),
             qPrintable(last.error().message));

    QVERIFY(QFile::setPermissions(f.path, QFile::ReadOwner | QFile::WriteOwner));
    const QByteArray after = [&] { QFile file(f.path); file.open(QIODevice::ReadOnly); return file.readAll(); }();
    QCOMPARE(after, before);
    auto reopened = RunDatabase::open(f.path);
    QVERIFY(reopened.ok());
    QCOMPARE(reopened.value()->run(id).value().status, RunStatus::Queued);
}

void TestRunWriterFaults::missingRunGivesAnError()
{
    Fixture f;
    QVERIFY(f.open());
    RunWriter writer(f.path, 999, 5);
    const Status started = writer.start();
    QVERIFY(!started.ok());
    QCOMPARE(started.error().message, QStringLiteral("no run with id 999 in ") + f.path);
    writer.appendMetric({QStringLiteral("loss"), 1, 0, 0, 1});
    QCOMPARE(writer.finish(RunStatus::Finished).error().message, started.error().message);

    QTemporaryDir empty;
    RunWriter nowhere(empty.filePath(QStringLiteral("not-a-run-database.sqlite")), 1);
    const Status failed = nowhere.start();
    QVERIFY(!failed.ok());
    QCOMPARE(failed.error().message,
             QStringLiteral("no run database at ") + empty.filePath(QStringLiteral("not-a-run-database.sqlite")));
    QVERIFY(!QFileInfo::exists(empty.filePath(QStringLiteral("not-a-run-database.sqlite"))));  // not created

    const QString emptyFile = empty.filePath(QStringLiteral("empty.sqlite"));
    QVERIFY(QFile(emptyFile).open(QIODevice::WriteOnly));
    RunWriter unmigrated(emptyFile, 1);
    const Status refused = unmigrated.start();
    QVERIFY(!refused.ok());
    QVERIFY2(refused.error().message.contains(QStringLiteral("not an up-to-date run database")),
             qPrintable(refused.error().message));
}

void TestRunWriterFaults::runDeletedWhileWritingDropsTheBatch()
{
    Fixture f;
    QVERIFY(f.open());
    const qint64 id = f.newRun();
    RunWriter writer(f.path, id, kForever);
    QVERIFY(writer.start().ok());
    for (int step = 0; step < 100; ++step)  // more than one multi-row statement, and a tail
        writer.appendMetric({step % 2 ? QStringLiteral("loss") : QStringLiteral("accuracy"), step, 0, 0, 1.0});
    QVERIFY(writer.flush().ok());
    QCOMPARE(writer.rowsWritten(), qint64(100));

    QVERIFY(f.db->deleteRun(id).ok());
    writer.appendMetric({QStringLiteral("loss"), 100, 0, 0, 1.0});
    const Status flushed = writer.flush();
    QVERIFY(!flushed.ok());
    QVERIFY2(flushed.error().message.contains(f.path), qPrintable(flushed.error().message));
    QCOMPARE(writer.rowsWritten(), qint64(100));
    QCOMPARE(writer.rowsDropped(), qint64(1));
    QVERIFY(!writer.finish(RunStatus::Finished).ok());

    testing::RawSqlite raw(f.path);  // nothing of the run is left behind, not even the dropped row
    QCOMPARE(raw.scalar(QStringLiteral("SELECT count(*) FROM metrics")).toInt(), 0);
    QCOMPARE(raw.scalar(QStringLiteral("SELECT count(*) FROM metric_summaries")).toInt(), 0);
}

// A run resumed by another process while this one's heartbeat was stale (its writes retried for longer than
// readers wait) is that process's now: this writer gives up at once, writing nothing more into it.
void TestRunWriterFaults::aRunClaimedByAnotherProcessIsNotWrittenInto()
{
    Fixture f;
    QVERIFY(f.open());
    const qint64 id = f.newRun();
    RunWriter writer(f.path, id, kForever, 60000);
    QVERIFY(writer.start().ok());
    appendRowsAndCheckpoint(writer, 0, 10);
    QVERIFY(writer.flush().ok());
    {
        testing::RawSqlite raw(f.path);
        QCOMPARE(raw.exec(QStringLiteral("UPDATE runs SET pid = %1 WHERE id = %2").arg(testing::deadProcessId()).arg(id)), QString());
    }
    appendRowsAndCheckpoint(writer, 10, 10);
    const Status flushed = writer.flush();
    QVERIFY(!flushed.ok());
    QVERIFY2(flushed.error().message.contains(QStringLiteral("is no longer this process's")), qPrintable(flushed.error().message));
    QCOMPARE(writer.rowsDropped(), qint64(11));
    QCOMPARE(f.db->metrics(id).value().size(), 10);
    QCOMPARE(f.db->checkpoints(id).value().size(), 1);
    QVERIFY(!writer.finish(RunStatus::Finished).ok());
    QCOMPARE(f.db->run(id).value().status, RunStatus::Running);  // the other process's to end, not this one's
}

// A full disk for a while: the rows and the checkpoint record behind them wait in memory (flush() waits with
// them), nothing of them is committed, and once the file may grow again all of them are, in one piece.
void TestRunWriterFaults::rowsThatCannotBeWrittenWaitAndKeepTheirOrder()
{
    Fixture f;
    QVERIFY(f.open());
    const qint64 id = f.newRun();
    RunWriter writer(f.path, id, 50, 60000);
    QVERIFY(writer.start().ok());
    appendRowsAndCheckpoint(writer, 0, 100);
    QVERIFY(writer.flush().ok());

    FileGrowthLimit limit(largestFileOf(f.path));
    QVERIFY(limit.ok());
    appendRowsAndCheckpoint(writer, 100, 20000);
    Status flushed = Error(QStringLiteral("flush() did not return"));
    std::thread flusher([&] { flushed = writer.flush(); });
    for (int i = 0; i < 400 && writer.currentFault().ok(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
    const Status fault = writer.currentFault();
    QVERIFY2(!fault.ok(), "the limit did not stop the writer: the test is void");
    QVERIFY2(fault.error().message.contains(f.path), qPrintable(fault.error().message));
    QVERIFY(writer.lastError().ok());  // not given up
    QCOMPARE(writer.rowsWritten(), qint64(101));
    QCOMPARE(f.db->checkpoints(id).value().size(), 1);  // the second record is not ahead of its rows

    limit.lift();
    flusher.join();
    QVERIFY2(flushed.ok(), qPrintable(flushed.error().message));
    QVERIFY(writer.currentFault().ok());
    QCOMPARE(writer.rowsWritten(), qint64(101 + 20001));
    QCOMPARE(writer.rowsDropped(), qint64(0));
    QVERIFY(writer.finish(RunStatus::Finished).ok());
    QCOMPARE(f.db->metrics(id).value().size(), 20100);
    QCOMPARE(f.db->checkpoints(id).value().size(), 2);
    QCOMPARE(f.db->run(id).value().status, RunStatus::Finished);
}

// A full disk that stays full past the retry window: the writer gives up, drops those rows and everything after,
// never records the checkpoint behind them, and the run ends failed with the reason even if training finished.
void TestRunWriterFaults::rowsThatStayUnwritableEndTheRunFailed()
{
    Fixture f;
    QVERIFY(f.open());
    const qint64 id = f.newRun();
    RunWriter writer(f.path, id, 50, 300);
    QVERIFY(writer.start().ok());
    appendRowsAndCheckpoint(writer, 0, 100);
    QVERIFY(writer.flush().ok());

    FileGrowthLimit limit(largestFileOf(f.path));
    QVERIFY(limit.ok());
    appendRowsAndCheckpoint(writer, 100, 20000);
    const Status flushed = writer.flush();
    QVERIFY(!flushed.ok());
    QVERIFY2(flushed.error().message.contains(QStringLiteral("still failing after")), qPrintable(flushed.error().message));
    QCOMPARE(writer.lastError().error().message, flushed.error().message);
    QCOMPARE(writer.rowsDropped(), qint64(20001));
    writer.appendMetric({QStringLiteral("train/loss"), 20100, 0, 0, 1.0});  // after giving up: dropped too
    QCOMPARE(writer.rowsDropped(), qint64(20002));
    limit.lift();
    writer.appendMetric({QStringLiteral("train/loss"), 20101, 0, 0, 1.0});  // even once the disk has room again
    QVERIFY(!writer.finish(RunStatus::Finished).ok());

    const RunInfo run = f.db->run(id).value();
    QCOMPARE(run.status, RunStatus::Failed);
    QVERIFY2(run.statusMessage.startsWith(QStringLiteral("the run database could not be written: ")), qPrintable(run.statusMessage));
    QCOMPARE(f.db->metrics(id).value().size(), 100);
    QCOMPARE(f.db->checkpoints(id).value().size(), 1);
}

// Garbage over pages of the metric rows: reading them is an error that says the database is damaged, never a
// shorter list of rows that looks complete.
void TestRunWriterFaults::damagedPagesAreErrorsNeverFewerRows()
{
    Fixture f;
    QVERIFY(f.open());
    const qint64 id = f.newRun();
    {
        RunWriter writer(f.path, id, kForever);
        QVERIFY(writer.start().ok());
        for (int step = 0; step < 20000; ++step)
            writer.appendMetric({QStringLiteral("train/loss"), step, 0, 0, testing::valueAt(step)});
        QVERIFY(writer.finish(RunStatus::Finished).ok());
    }
    QCOMPARE(f.db->metrics(id).value().size(), 20000);
    f.db.reset();
    {
        testing::RawSqlite raw(f.path);
        raw.exec(QStringLiteral("PRAGMA wal_checkpoint(TRUNCATE)"));
    }
    QFile file(f.path);
    QVERIFY(file.open(QIODevice::ReadWrite));
    const qint64 pages = file.size() / 4096;
    QVERIFY(pages > 20);
    QRandomGenerator garbage(7);
    for (qint64 page = pages / 2; page < pages / 2 + 2; ++page) {  // the middle of the metric rows
        QByteArray bytes(4096, '\0');
        for (char &c : bytes)
            c = char(garbage.bounded(256));
        QVERIFY(file.seek(page * 4096));
        QCOMPARE(file.write(bytes), qint64(4096));
    }
    file.close();

    auto reopened = RunDatabase::open(f.path);
    QVERIFY2(reopened.ok(), qPrintable(reopened.error().toString()));
    const Result<QList<MetricPoint>> rows = reopened.value()->metrics(id);
    QVERIFY2(!rows.ok(), qPrintable(QStringLiteral("%1 rows read from a damaged file").arg(rows.ok() ? rows.value().size() : 0)));
    QVERIFY2(rows.error().message.contains(QStringLiteral("the run database is damaged")), qPrintable(rows.error().message));
    QVERIFY2(rows.error().message.contains(QStringLiteral("docs/reliability.md")), qPrintable(rows.error().message));

    // A new run is never written into it: the integrity check refuses first, and the file stays as it was.
    QVERIFY(!reopened.value()->checkIntegrity().ok());
    reopened.value().reset();
    const QByteArray before = [&] {
        QFile f2(f.path);
        f2.open(QIODevice::ReadOnly);
        return f2.readAll();
    }();
    auto again = RunDatabase::open(f.path);
    QVERIFY(again.ok());
    const Result<qint64> created = again.value()->createRun(testing::sampleNewRun());
    QVERIFY(!created.ok());
    QVERIFY2(created.error().message.contains(QStringLiteral("the run database is damaged")), qPrintable(created.error().message));
    QVERIFY2(created.error().message.contains(QStringLiteral("nothing was written")), qPrintable(created.error().message));
    again.value().reset();
    QFile after(f.path);
    QVERIFY(after.open(QIODevice::ReadOnly));
    QCOMPARE(after.readAll(), before);
}

TY_TEST_CLASS(TestRunWriterFaults)

#include "test_run_writer_faults.moc"
