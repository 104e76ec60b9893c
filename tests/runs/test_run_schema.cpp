// The run database's schema: version recorded, newer versions refused without a change, migration from an empty
// file, a failing migration that leaves the file as it was (one transaction), a file that is no database.

#include "run_database.h"
#include "test_runs_support.h"

#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

using namespace ty;
using ty::testing::RawSqlite;

namespace {

QByteArray fileBytes(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class TestRunSchema : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void schemaVersionRecorded();
    void refusesNewerSchema_data();
    void refusesNewerSchema();
    void migratesFromEmptyFile();
    void migratesCheckpointChecksums();
    void failedMigrationChangesNoTable();
    void notADatabase();
};

void TestRunSchema::schemaVersionRecorded()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("runs.sqlite"));
    QVERIFY(RunDatabase::open(path).ok());
    RawSqlite raw(path);
    QCOMPARE(RunDatabase::kSchemaVersion, 3);
    QCOMPARE(raw.scalar(QStringLiteral("PRAGMA user_version")).toInt(), RunDatabase::kSchemaVersion);
    QCOMPARE(raw.tables(), (QStringList{"checkpoints", "events", "metric_summaries", "metrics", "run_params", "run_tags",
                                        "runs"}));
    QCOMPARE(raw.columns(QStringLiteral("metric_summaries")),
             (QStringList{"run_id", "name", "count", "min_value", "max_value", "last_step", "last_value"}));
    QCOMPARE(raw.columns(QStringLiteral("runs")),
             (QStringList{"id", "name", "status", "status_message", "error_node", "preset_json", "preset_hash",
                          "created_at", "started_at", "ended_at", "heartbeat_at", "app_version", "torch_version",
                          "qt_version", "device", "host", "pid", "seed", "provenance_json", "folder", "notes"}));
    QCOMPARE(raw.columns(QStringLiteral("metrics")), (QStringList{"run_id", "name", "step", "epoch", "time", "value"}));
    QCOMPARE(raw.columns(QStringLiteral("events")), (QStringList{"run_id", "step", "time", "kind", "message"}));
    QCOMPARE(raw.columns(QStringLiteral("checkpoints")), (QStringList{"run_id", "step", "epoch", "path", "created_at", "sha256"}));
    QCOMPARE(raw.columns(QStringLiteral("run_params")), (QStringList{"run_id", "key", "value"}));
    QCOMPARE(raw.columns(QStringLiteral("run_tags")), (QStringList{"run_id", "tag"}));
    QCOMPARE(raw.scalar(QStringLiteral("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'metrics'"
                                       " AND sql LIKE '%(run_id, name, step)%'"))
                 .toInt(),
             1);
}

void TestRunSchema::refusesNewerSchema_data()
{
    QTest::addColumn<bool>("madeByTrainyard");
    QTest::newRow("a Trainyard database, version set to 99") << true;
    QTest::newRow("a rollback-journal file at version 99") << false;
}

void TestRunSchema::refusesNewerSchema()
{
    QFETCH(bool, madeByTrainyard);
    QTemporaryDir dir;
    const QString path = QFileInfo(dir.filePath(QStringLiteral("runs.sqlite"))).absoluteFilePath();
    if (madeByTrainyard) {
        auto opened = RunDatabase::open(path);
        QVERIFY(opened.ok());
        QVERIFY(opened.value()->createRun(testing::sampleNewRun()).ok());
    }
    QString journalBefore;
    {
        RawSqlite raw(path);
        if (!madeByTrainyard)
            QCOMPARE(raw.exec(QStringLiteral("CREATE TABLE future_things (x)")), QString());
        QCOMPARE(raw.exec(QStringLiteral("PRAGMA user_version = 99")), QString());
        journalBefore = raw.scalar(QStringLiteral("PRAGMA journal_mode")).toString();
    }
    const QByteArray before = fileBytes(path);
    QVERIFY(!before.isEmpty());

    auto opened = RunDatabase::open(path);
    QVERIFY(!opened.ok());
    QCOMPARE(opened.error().message,
             path + QStringLiteral(" was written by a newer Trainyard (schema version 99; this build reads up to 3)"));

    QCOMPARE(fileBytes(path), before);
    RawSqlite raw(path);
    QCOMPARE(raw.scalar(QStringLiteral("PRAGMA user_version")).toInt(), 99);
    QCOMPARE(raw.scalar(QStringLiteral("PRAGMA journal_mode")).toString(), journalBefore);
    QCOMPARE(journalBefore, madeByTrainyard ? QStringLiteral("wal") : QStringLiteral("delete"));
}

void TestRunSchema::migratesFromEmptyFile()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("runs.sqlite"));
    {
        QFile empty(path);
        QVERIFY(empty.open(QIODevice::WriteOnly));
    }
    QCOMPARE(QFileInfo(path).size(), 0);
    auto opened = RunDatabase::open(path);
    QVERIFY2(opened.ok(), qPrintable(opened.error().toString()));
    QVERIFY(opened.value()->createRun(testing::sampleNewRun()).ok());
    RawSqlite raw(path);
    QCOMPARE(raw.scalar(QStringLiteral("PRAGMA user_version")).toInt(), RunDatabase::kSchemaVersion);
    QCOMPARE(raw.tables().size(), 7);
}

// A "version 0" file that already holds a table the migration wants to create: the migration fails half way
// and, being one transaction, leaves no table of its earlier statements behind and user_version at 0.
void TestRunSchema::failedMigrationChangesNoTable()
{
    QTemporaryDir dir;
    const QString path = QFileInfo(dir.filePath(QStringLiteral("runs.sqlite"))).absoluteFilePath();
    {
        RawSqlite raw(path);
        QCOMPARE(raw.exec(QStringLiteral("CREATE TABLE events (something_else TEXT)")), QString());
    }
    auto opened = RunDatabase::open(path);
    QVERIFY(!opened.ok());
    QVERIFY2(opened.error().message.startsWith(QStringLiteral("cannot migrate to schema version 1")),
             qPrintable(opened.error().message));
    QVERIFY2(opened.error().message.contains(path), qPrintable(opened.error().message));
    RawSqlite raw(path);
    QCOMPARE(raw.tables(), QStringList{QStringLiteral("events")});
    QCOMPARE(raw.scalar(QStringLiteral("PRAGMA user_version")).toInt(), 0);
}

void TestRunSchema::notADatabase()
{
    QTemporaryDir dir;
    const QString path = QFileInfo(dir.filePath(QStringLiteral("runs.sqlite"))).absoluteFilePath();
    const QByteArray garbage = QByteArray("this is a preset, not a database\n").repeated(200);
    {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(garbage);
    }
    auto opened = RunDatabase::open(path);
    QVERIFY(!opened.ok());
    QVERIFY2(opened.error().message.contains(path), qPrintable(opened.error().message));
    QVERIFY2(opened.error().message.contains(QStringLiteral("not a database")), qPrintable(opened.error().message));
    QCOMPARE(fileBytes(path), garbage);
}

// Version 2 to 3: checkpoints gain a sha256 column; the ones recorded before have none.
void TestRunSchema::migratesCheckpointChecksums()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("runs.sqlite"));
    qint64 id = 0;
    {
        auto opened = RunDatabase::open(path);
        QVERIFY(opened.ok());
        id = opened.value()->createRun(testing::sampleNewRun()).value();
    }
    {
        RawSqlite raw(path);
        QCOMPARE(raw.exec(QStringLiteral("ALTER TABLE checkpoints DROP COLUMN sha256")), QString());
        QCOMPARE(raw.exec(QStringLiteral("INSERT INTO checkpoints (run_id, step, epoch, path) VALUES (%1, 10, 1, 'old.pt')").arg(id)), QString());
        QCOMPARE(raw.exec(QStringLiteral("PRAGMA user_version = 2")), QString());
    }
    auto opened = RunDatabase::open(path);
    QVERIFY2(opened.ok(), qPrintable(opened.error().toString()));
    const QList<CheckpointRecord> checkpoints = opened.value()->checkpoints(id).value();
    QCOMPARE(checkpoints.size(), 1);
    QCOMPARE(checkpoints.first().path, QStringLiteral("old.pt"));
    QCOMPARE(checkpoints.first().sha256, QString());
    RawSqlite raw(path);
    QCOMPARE(raw.scalar(QStringLiteral("PRAGMA user_version")).toInt(), 3);
    QCOMPARE(raw.scalar(QStringLiteral("SELECT count(*) FROM pragma_table_info('checkpoints') WHERE name = 'sha256'")).toInt(), 1);
}

int runRunSchemaTests(int argc, char **argv)
{
    TestRunSchema tests;
    return QTest::qExec(&tests, argc, argv);
}

#include "test_run_schema.moc"
