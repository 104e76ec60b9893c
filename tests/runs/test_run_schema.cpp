// The run database's schema: version recorded, newer versions refused without a change, migration from an empty
// file, a failing migration that leaves the file as it was (one transaction), a file that is no database.

#include "test_suite.h"
#include "run_database.h"
#include "test_runs_support.h"

#include <QRegularExpression>
#include <QSet>
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
    void migratesToRunKinds();
    void recordsRunKindAndResult();
    void migratesToUuids();
    void migratesToTeamReplication();
    void resumeMarksTeamReplication();
    void schemaVersionRecorded();
    void refusesNewerSchema_data();
    void refusesNewerSchema();
    void migratesFromEmptyFile();
    void migratesCheckpointChecksums();
    void migratesToEvaluations();
    void migratesToSweeps();
    void failedMigrationChangesNoTable();
    void notADatabase();
};

namespace {

// What a version-9 file lacks: the runs' kind and result.
void dropRunKinds(RawSqlite &raw)
{
    QCOMPARE(raw.exec(QStringLiteral("ALTER TABLE runs DROP COLUMN result_json")), QString());
    QCOMPARE(raw.exec(QStringLiteral("ALTER TABLE runs DROP COLUMN kind")), QString());
}

// What a version-8 file lacks: the team store's replication marks (and what later versions added).
void dropTeamReplication(RawSqlite &raw)
{
    dropRunKinds(raw);
    QCOMPARE(raw.exec(QStringLiteral("DROP TABLE team_replication")), QString());
}

// What a version-7 file lacks: the uuids of runs and sweeps (and what later versions added).
void dropUuids(RawSqlite &raw)
{
    dropTeamReplication(raw);
    QCOMPARE(raw.exec(QStringLiteral("DROP INDEX runs_by_uuid")), QString());
    QCOMPARE(raw.exec(QStringLiteral("ALTER TABLE runs DROP COLUMN uuid")), QString());
    QCOMPARE(raw.exec(QStringLiteral("DROP INDEX sweeps_by_uuid")), QString());
    QCOMPARE(raw.exec(QStringLiteral("ALTER TABLE sweeps DROP COLUMN uuid")), QString());
}

void dropSweeps(RawSqlite &raw)
{
    dropUuids(raw);
    QCOMPARE(raw.exec(QStringLiteral("DROP INDEX runs_by_sweep_trial")), QString());
    QCOMPARE(raw.exec(QStringLiteral("ALTER TABLE runs DROP COLUMN sweep_trial")), QString());
    QCOMPARE(raw.exec(QStringLiteral("ALTER TABLE runs DROP COLUMN sweep_id")), QString());
    QCOMPARE(raw.exec(QStringLiteral("DROP TABLE sweeps")), QString());
    QCOMPARE(raw.exec(QStringLiteral("DROP TABLE queue")), QString());
    QCOMPARE(raw.exec(QStringLiteral("DROP TABLE settings")), QString());
}

} // namespace

// A version-6 database gains the sweeps, the runs' sweep columns and the run queue; its runs belong to no sweep.
void TestRunSchema::migratesToSweeps()
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
        dropSweeps(raw);
        QCOMPARE(raw.exec(QStringLiteral("PRAGMA user_version = 6")), QString());
    }
    auto opened = RunDatabase::open(path);
    QVERIFY2(opened.ok(), qPrintable(opened.error().toString()));
    QCOMPARE(opened.value()->run(id).value().sweepId, qint64(0));
    QCOMPARE(opened.value()->run(id).value().sweepTrial, -1);
    QCOMPARE(opened.value()->listSweeps().value().size(), 0);
    QCOMPARE(opened.value()->maxRunning().value(), 0);
    QVERIFY(opened.value()->queueEntries().value().isEmpty());
    RawSqlite raw(path);
    QCOMPARE(raw.scalar(QStringLiteral("PRAGMA user_version")).toInt(), RunDatabase::kSchemaVersion);
    QCOMPARE(raw.scalar(QStringLiteral("SELECT count(*) FROM pragma_table_info('runs') WHERE name = 'sweep_id'")).toInt(), 1);
}

// A version-9 database's runs become training runs, without a result; a new run of another kind keeps its kind.
void TestRunSchema::migratesToRunKinds()
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
        dropRunKinds(raw);
        QCOMPARE(raw.exec(QStringLiteral("PRAGMA user_version = 9")), QString());
        QVERIFY(!raw.exec(QStringLiteral("SELECT kind FROM runs")).isEmpty());  // really gone before the migration
    }
    auto opened = RunDatabase::open(path);
    QVERIFY2(opened.ok(), qPrintable(opened.error().toString()));
    {
        RawSqlite raw(path);
        QCOMPARE(raw.scalar(QStringLiteral("PRAGMA user_version")).toInt(), RunDatabase::kSchemaVersion);
    }
    const RunInfo old = opened.value()->run(id).value();
    QCOMPARE(old.kind, QString::fromLatin1(kRunKindTrain));
    QVERIFY(old.result.isEmpty());
    NewRun test = testing::sampleNewRun();
    test.kind = QString::fromLatin1(kRunKindLrFind);
    const qint64 testId = opened.value()->createRun(test).value();
    QCOMPARE(opened.value()->run(testId).value().kind, QString::fromLatin1(kRunKindLrFind));
    const QList<RunInfo> listed = opened.value()->listRuns().value();
    QCOMPARE(listed.size(), 2);
    QCOMPARE(listed.at(0).kind, QString::fromLatin1(kRunKindLrFind));  // newest first
    QCOMPARE(listed.at(1).kind, QString::fromLatin1(kRunKindTrain));
}

// A run's result is stored as JSON and read back by run() and listRuns(); an empty object clears it.
void TestRunSchema::recordsRunKindAndResult()
{
    QTemporaryDir dir;
    auto opened = RunDatabase::open(dir.filePath(QStringLiteral("runs.sqlite")));
    QVERIFY(opened.ok());
    RunDatabase &db = *opened.value();
    const qint64 id = db.createRun(testing::sampleNewRun()).value();
    QCOMPARE(db.run(id).value().kind, QString::fromLatin1(kRunKindTrain));
    const QJsonObject result{{QStringLiteral("suggestions"), QJsonObject{{QStringLiteral("valley"), QJsonObject{{QStringLiteral("lr"), 0.003}}}}}};
    QVERIFY(db.setRunResult(id, result).ok());
    QCOMPARE(db.run(id).value().result, result);
    QCOMPARE(db.listRuns().value().at(0).result, result);
    QVERIFY(db.setRunResult(id, {}).ok());
    QVERIFY(db.run(id).value().result.isEmpty());
    QVERIFY(!db.setRunResult(id + 100, result).ok());
}

// A version-8 database gains the team store's marks, empty: nothing of it was pushed anywhere.
void TestRunSchema::migratesToTeamReplication()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("runs.sqlite"));
    {
        auto opened = RunDatabase::open(path);
        QVERIFY(opened.ok());
        QVERIFY(opened.value()->createRun(testing::sampleNewRun()).ok());
    }
    {
        RawSqlite raw(path);
        dropTeamReplication(raw);
        QCOMPARE(raw.exec(QStringLiteral("PRAGMA user_version = 8")), QString());
    }
    auto opened = RunDatabase::open(path);
    QVERIFY2(opened.ok(), qPrintable(opened.error().toString()));
    RawSqlite raw(path);
    QCOMPARE(raw.scalar(QStringLiteral("PRAGMA user_version")).toInt(), RunDatabase::kSchemaVersion);
    QCOMPARE(raw.scalar(QStringLiteral("SELECT count(*) FROM team_replication")).toInt(), 0);
}

// A resume's deletion tells every team store's marks of the run: the smallest step cut after, a new generation,
// and a metric mark no higher than the run's remaining rows (SQLite may hand the deleted rowids out again).
void TestRunSchema::resumeMarksTeamReplication()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("runs.sqlite"));
    auto opened = RunDatabase::open(path);
    QVERIFY(opened.ok());
    const qint64 id = opened.value()->createRun(testing::sampleNewRun()).value();
    const qint64 other = opened.value()->createRun(testing::sampleNewRun()).value();
    RawSqlite raw(path);
    for (int step = 1; step <= 10; ++step)
        QCOMPARE(raw.exec(QStringLiteral("INSERT INTO metrics (run_id, name, step, value) VALUES (%1, 'loss', %2, 1.0)").arg(id).arg(step)), QString());
    const qint64 keptRowId = raw.scalar(QStringLiteral("SELECT rowid FROM metrics WHERE step = 4")).toLongLong();
    const qint64 lastRowId = raw.scalar(QStringLiteral("SELECT max(rowid) FROM metrics")).toLongLong();
    QCOMPARE(raw.exec(QStringLiteral("INSERT INTO team_replication (server, run_id, metrics_rowid) VALUES ('a', %1, %2), ('b', %1, 2),"
                                     " ('a', %3, 0)").arg(id).arg(lastRowId).arg(other)), QString());
    QVERIFY(opened.value()->deleteMetricsAfter(id, 6).ok());
    QVERIFY(opened.value()->deleteMetricsAfter(id, 4).ok());
    QVERIFY(opened.value()->deleteMetricsAfter(id, 5).ok());
    QCOMPARE(raw.scalar(QStringLiteral("SELECT truncate_after || ',' || generation || ',' || metrics_rowid FROM team_replication"
                                       " WHERE server = 'a' AND run_id = %1").arg(id)).toString(),
             QStringLiteral("4,3,%1").arg(keptRowId));
    QCOMPARE(raw.scalar(QStringLiteral("SELECT truncate_after || ',' || generation || ',' || metrics_rowid FROM team_replication"
                                       " WHERE server = 'b'")).toString(), QStringLiteral("4,3,2"));
    QVERIFY(raw.scalar(QStringLiteral("SELECT truncate_after IS NULL AND generation = 0 FROM team_replication WHERE run_id = %1").arg(other)).toBool());
}

// A version-7 database's runs and sweeps get random uuids, all different, in the version 4 form; new ones too.
void TestRunSchema::migratesToUuids()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("runs.sqlite"));
    QList<qint64> ids;
    qint64 sweepId = 0;
    {
        auto opened = RunDatabase::open(path);
        QVERIFY(opened.ok());
        for (int i = 0; i < 3; ++i)
            ids << opened.value()->createRun(testing::sampleNewRun()).value();
        NewSweep sweep;
        sweep.name = QStringLiteral("s");
        sweep.metric = QStringLiteral("val/loss");
        sweepId = opened.value()->createSweep(sweep).value();
    }
    {
        RawSqlite raw(path);
        dropUuids(raw);
        QCOMPARE(raw.exec(QStringLiteral("PRAGMA user_version = 7")), QString());
    }
    auto opened = RunDatabase::open(path);
    QVERIFY2(opened.ok(), qPrintable(opened.error().toString()));
    ids << opened.value()->createRun(testing::sampleNewRun()).value();
    const QRegularExpression v4(QStringLiteral("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"));
    QSet<QString> seen;
    for (qint64 id : ids) {
        const QString uuid = opened.value()->run(id).value().uuid;
        QVERIFY2(v4.match(uuid).hasMatch(), qPrintable(uuid));
        seen.insert(uuid);
    }
    const QString sweepUuid = opened.value()->sweep(sweepId).value().uuid;
    QVERIFY2(v4.match(sweepUuid).hasMatch(), qPrintable(sweepUuid));
    seen.insert(sweepUuid);
    QCOMPARE(seen.size(), ids.size() + 1);
    RawSqlite raw(path);
    QCOMPARE(raw.scalar(QStringLiteral("PRAGMA user_version")).toInt(), RunDatabase::kSchemaVersion);
    // Unique: a copied uuid is refused.
    QVERIFY(!raw.exec(QStringLiteral("UPDATE runs SET uuid = (SELECT uuid FROM runs WHERE id = %1) WHERE id = %2")
                          .arg(ids.first()).arg(ids.last())).isEmpty());
}

void TestRunSchema::schemaVersionRecorded()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("runs.sqlite"));
    QVERIFY(RunDatabase::open(path).ok());
    RawSqlite raw(path);
    QCOMPARE(RunDatabase::kSchemaVersion, 10);
    QCOMPARE(raw.scalar(QStringLiteral("PRAGMA user_version")).toInt(), RunDatabase::kSchemaVersion);
    QCOMPARE(raw.tables(), (QStringList{"checkpoints", "evaluation_samples", "evaluations", "events", "metric_summaries",
                                        "metrics", "queue", "run_params", "run_tags", "runs", "settings", "stages", "sweeps",
                                        "team_replication"}));
    QCOMPARE(raw.columns(QStringLiteral("team_replication")),
             (QStringList{"server", "run_id", "metrics_rowid", "truncate_after", "generation", "records_digest"}));
    QCOMPARE(raw.columns(QStringLiteral("evaluations")),
             (QStringList{"id", "run_id", "split", "checkpoint_step", "created_at", "task", "sample_count", "accuracy",
                          "summary_json"}));
    QCOMPARE(raw.columns(QStringLiteral("evaluation_samples")),
             (QStringList{"evaluation_id", "sample_index", "label", "predicted", "confidence"}));
    QCOMPARE(raw.columns(QStringLiteral("metric_summaries")),
             (QStringList{"run_id", "name", "count", "min_value", "max_value", "last_step", "last_value"}));
    QCOMPARE(raw.columns(QStringLiteral("runs")),
             (QStringList{"id", "name", "status", "status_message", "error_node", "preset_json", "preset_hash",
                          "created_at", "started_at", "ended_at", "heartbeat_at", "app_version", "torch_version",
                          "qt_version", "device", "host", "pid", "seed", "provenance_json", "folder", "notes", "sweep_id", "sweep_trial",
                          "uuid", "kind", "result_json"}));
    QCOMPARE(raw.columns(QStringLiteral("metrics")), (QStringList{"run_id", "name", "step", "epoch", "time", "value"}));
    QCOMPARE(raw.columns(QStringLiteral("events")), (QStringList{"run_id", "step", "time", "kind", "message"}));
    QCOMPARE(raw.columns(QStringLiteral("checkpoints")), (QStringList{"run_id", "step", "epoch", "path", "created_at", "sha256", "kind"}));
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
             path + QStringLiteral(" was written by a newer Trainyard (schema version 99; this build reads up to %1)").arg(RunDatabase::kSchemaVersion));

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
    QCOMPARE(raw.tables().size(), 14);
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
        // What a version-2 file holds: no checksums, no evaluations, no stages, no sweeps.
        dropSweeps(raw);
        QCOMPARE(raw.exec(QStringLiteral("DROP TABLE stages")), QString());
        QCOMPARE(raw.exec(QStringLiteral("DROP TABLE evaluation_samples")), QString());
        QCOMPARE(raw.exec(QStringLiteral("DROP TABLE evaluations")), QString());
        QCOMPARE(raw.exec(QStringLiteral("ALTER TABLE checkpoints DROP COLUMN kind")), QString());
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
    QCOMPARE(raw.scalar(QStringLiteral("PRAGMA user_version")).toInt(), RunDatabase::kSchemaVersion);
    QCOMPARE(raw.scalar(QStringLiteral("SELECT count(*) FROM pragma_table_info('checkpoints') WHERE name = 'sha256'")).toInt(), 1);
}

// A version-3 database (before evaluations) gains the evaluation tables, keeps its runs, and takes evaluations;
// a second evaluation of the same run, split and step replaces the first, samples included; deleting the run
// deletes its evaluations.
void TestRunSchema::migratesToEvaluations()
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
        dropSweeps(raw);
        QCOMPARE(raw.exec(QStringLiteral("DROP TABLE stages")), QString());
        QCOMPARE(raw.exec(QStringLiteral("DROP TABLE evaluation_samples")), QString());
        QCOMPARE(raw.exec(QStringLiteral("DROP TABLE evaluations")), QString());
        QCOMPARE(raw.exec(QStringLiteral("ALTER TABLE checkpoints DROP COLUMN kind")), QString());
        QCOMPARE(raw.exec(QStringLiteral("PRAGMA user_version = 3")), QString());
    }
    auto opened = RunDatabase::open(path);
    QVERIFY2(opened.ok(), qPrintable(opened.error().toString()));
    RunDatabase &db = *opened.value();
    QCOMPARE(db.run(id).value().id, id);
    QCOMPARE(db.evaluations(id).value().size(), 0);

    EvaluationRecord record;
    record.runId = id;
    record.split = QStringLiteral("test");
    record.checkpointStep = 40;
    record.task = QStringLiteral("classification");
    record.sampleCount = 4;
    record.accuracy = 0.5;
    record.summary = QJsonObject{{QStringLiteral("accuracy"), 0.5}};
    const QList<EvaluationSampleRow> samples{{0, 1, 1, 0.9}, {1, 0, 1, 0.8}, {2, 2, 2, 0.7}, {3, 0, 2, 0.6}};
    const Result<qint64> first = db.addEvaluation(record, samples);
    QVERIFY2(first.ok(), qPrintable(first.error().toString()));
    record.accuracy = 0.75;
    const Result<qint64> second = db.addEvaluation(record, samples.mid(0, 3));
    QVERIFY(second.ok());
    QVERIFY(second.value() != first.value());
    const QList<EvaluationRecord> stored = db.evaluations(id).value();
    QCOMPARE(stored.size(), 1);
    QCOMPARE(stored.first().accuracy, 0.75);
    QCOMPARE(stored.first().checkpointStep, qint64(40));
    QCOMPARE(stored.first().summary.value(QStringLiteral("accuracy")).toDouble(), 0.5);
    QCOMPARE(db.evaluationSamples(second.value()).value().size(), 3);
    QCOMPARE(db.evaluationSamples(first.value()).value().size(), 0);
    const QList<EvaluationSampleRow> cell = db.evaluationSamples(second.value(), 0, 1).value();
    QCOMPARE(cell.size(), 1);
    QCOMPARE(cell.first().index, qint64(1));
    QCOMPARE(db.evaluationSamples(second.value(), -1, 2).value().size(), 1);
    QCOMPARE(db.evaluatedRuns().value(), (QList<QPair<qint64, qint64>>{{id, second.value()}}));
    QVERIFY(!db.addEvaluation(EvaluationRecord{0, id + 100, QStringLiteral("test"), 1, {}, QStringLiteral("classification"), 0, 0, {}}, {}).ok());
    QVERIFY(db.deleteRun(id).ok());
    RawSqlite raw(path);
    QCOMPARE(raw.scalar(QStringLiteral("SELECT count(*) FROM evaluation_samples")).toInt(), 0);
}

TY_TEST_CLASS(TestRunSchema)

#include "test_run_schema.moc"
