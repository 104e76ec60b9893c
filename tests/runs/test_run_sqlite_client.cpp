// The database is readable with the plain sqlite3 command-line client, with the queries docs/run-database.md shows.

#include "required_data.h"
#include "test_suite.h"
#include "run_database.h"
#include "run_writer.h"
#include "test_runs_support.h"

#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace ty;

class TestRunSqliteClient : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void lastTestAccuracyOfEachRun();
};

void TestRunSqliteClient::lastTestAccuracyOfEachRun()
{
    const QString sqlite3 = QStandardPaths::findExecutable(QStringLiteral("sqlite3"));
    if (sqlite3.isEmpty())
        TY_SKIP_WITHOUT_DATA("the sqlite3 command-line client is not installed");
    QTemporaryDir dir;
    auto opened = RunDatabase::open(dir.filePath(QStringLiteral("runs.sqlite")));
    QVERIFY(opened.ok());
    RunDatabase &db = *opened.value();
    const qint64 first = db.createRun(testing::sampleNewRun(QStringLiteral("first"))).value();
    const qint64 second = db.createRun(testing::sampleNewRun(QStringLiteral("second"))).value();
    const qint64 empty = db.createRun(testing::sampleNewRun(QStringLiteral("no metrics"))).value();
    Q_UNUSED(empty);
    for (qint64 id : {first, second}) {
        RunWriter writer(db.path(), id);
        QVERIFY(writer.start().ok());
        for (int step = 0; step <= 300; step += 100) {
            writer.appendMetric({QStringLiteral("test/accuracy"), step, step / 100, 0, 0.5 + step / 1000.0 + id});
            writer.appendMetric({QStringLiteral("train/loss"), step + 1, step / 100, 0, 100.0});
        }
        QVERIFY(writer.finish(RunStatus::Finished).ok());
    }

    // Keep in step with docs/run-database.md.
    const QString query = QStringLiteral(
        "SELECT r.id, r.name, r.status, m.step, m.value AS last_test_accuracy\n"
        "FROM runs r\n"
        "JOIN metrics m ON m.rowid = (\n"
        "  SELECT rowid FROM metrics\n"
        "  WHERE run_id = r.id AND name = 'test/accuracy'\n"
        "  ORDER BY step DESC, rowid DESC LIMIT 1)\n"
        "ORDER BY r.id;");
    QProcess process;
    process.start(sqlite3, {QStringLiteral("-readonly"), db.path(), query});
    QVERIFY(process.waitForFinished(60000));
    QCOMPARE(process.exitCode(), 0);
    const QString out = QString::fromUtf8(process.readAllStandardOutput()).trimmed();
    const QString expected = QStringLiteral("%1|first|finished|300|%2\n%3|second|finished|300|%4")
                                 .arg(first).arg(0.8 + first).arg(second).arg(0.8 + second);
    QCOMPARE(out, expected);
}

TY_TEST_CLASS(TestRunSqliteClient)

#include "test_run_sqlite_client.moc"
