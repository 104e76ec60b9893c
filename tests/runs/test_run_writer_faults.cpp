// RunWriter when things go wrong or are used out of order: a read-only file, a missing run or database, finish()
// without start(), destruction without finish().

#include "test_suite.h"
#include "run_database.h"
#include "run_writer.h"
#include "test_runs_support.h"

#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>

using namespace ty;
using ty::testing::Fixture;
using ty::testing::kForever;

class TestRunWriterFaults : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void finishWithoutStart();
    void destroyedWithoutFinish();
    void readOnlyDatabaseGivesAnError();
    void missingRunGivesAnError();
    void runDeletedWhileWritingDropsTheBatch();
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
