// RunDatabase: opening, runs and their status, notes and tags. Schema versions are in test_run_schema.cpp.

#include "test_suite.h"
#include "run_database.h"
#include "test_runs_support.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

using namespace ty;
using ty::testing::RawSqlite;

class TestRunDatabase : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void defaultPath_data();
    void defaultPath();
    void createOpenReopen();
    void createRunRoundTrip();
    void unknownRunIsAnError();
    void statusNames_data();
    void statusNames();
    void statusTransitions_data();
    void statusTransitions();
    void notesTagsAndDelete();
};

void TestRunDatabase::defaultPath_data()
{
    QTest::addColumn<QByteArray>("xdgDataHome");
    QTest::addColumn<QString>("expected");
    const QString home = QDir::homePath();
    QTest::newRow("XDG_DATA_HOME set") << QByteArray("/srv/data") << QStringLiteral("/srv/data/trainyard/runs.sqlite");
    QTest::newRow("XDG_DATA_HOME empty") << QByteArray() << home + QStringLiteral("/.local/share/trainyard/runs.sqlite");
    QTest::newRow("XDG_DATA_HOME relative, ignored")
        << QByteArray("relative/dir") << home + QStringLiteral("/.local/share/trainyard/runs.sqlite");
}

void TestRunDatabase::defaultPath()
{
    QFETCH(QByteArray, xdgDataHome);
    QFETCH(QString, expected);
    const QByteArray saved = qgetenv("XDG_DATA_HOME");
    const bool hadSaved = qEnvironmentVariableIsSet("XDG_DATA_HOME");
    qputenv("XDG_DATA_HOME", xdgDataHome);
    const QString path = RunDatabase::defaultPath();
    if (hadSaved)
        qputenv("XDG_DATA_HOME", saved);
    else
        qunsetenv("XDG_DATA_HOME");
    QCOMPARE(path, expected);
}

void TestRunDatabase::createOpenReopen()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("nested/deeper/runs.sqlite"));
    qint64 id = 0;
    {
        auto opened = RunDatabase::open(path);
        QVERIFY2(opened.ok(), qPrintable(opened.error().toString()));
        QCOMPARE(opened.value()->path(), QFileInfo(path).absoluteFilePath());
        auto created = opened.value()->createRun(testing::sampleNewRun());
        QVERIFY2(created.ok(), qPrintable(created.error().toString()));
        id = created.value();
        QVERIFY(id > 0);
    }
    QVERIFY(QFileInfo(path).isFile());
    {
        RawSqlite raw(path);
        QCOMPARE(raw.scalar(QStringLiteral("PRAGMA journal_mode")).toString(), QStringLiteral("wal"));
    }
    auto reopened = RunDatabase::open(path);
    QVERIFY2(reopened.ok(), qPrintable(reopened.error().toString()));
    auto runs = reopened.value()->listRuns();
    QVERIFY(runs.ok());
    QCOMPARE(runs.value().size(), 1);
    QCOMPARE(runs.value().first().id, id);
    QCOMPARE(runs.value().first().name, QStringLiteral("mnist small"));
}

void TestRunDatabase::createRunRoundTrip()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("runs.sqlite"));
    auto opened = RunDatabase::open(path);
    QVERIFY(opened.ok());
    RunDatabase &db = *opened.value();
    const NewRun sample = testing::sampleNewRun();
    const QDateTime before = QDateTime::currentDateTimeUtc().addMSecs(-1);
    auto created = db.createRun(sample);
    QVERIFY2(created.ok(), qPrintable(created.error().toString()));
    const QDateTime after = QDateTime::currentDateTimeUtc().addMSecs(1);
    const qint64 id = created.value();

    auto info = db.run(id);
    QVERIFY2(info.ok(), qPrintable(info.error().toString()));
    const RunInfo &run = info.value();
    QCOMPARE(run.id, id);
    QCOMPARE(run.name, sample.name);
    QCOMPARE(run.status, RunStatus::Queued);
    QCOMPARE(run.preset, sample.preset);
    QCOMPARE(run.preset.value(QStringLiteral("training")).toObject().value(QStringLiteral("lr")).toDouble(), 3e-4);
    QCOMPARE(run.presetHash, sample.presetHash);
    QCOMPARE(run.provenance, sample.provenance);
    QCOMPARE(run.appVersion, sample.appVersion);
    QCOMPARE(run.torchVersion, sample.torchVersion);
    QCOMPARE(run.qtVersion, sample.qtVersion);
    QCOMPARE(run.device, sample.device);
    QCOMPARE(run.seed, sample.seed);
    QVERIFY(run.createdAt.isValid());
    QVERIFY(before <= run.createdAt && run.createdAt <= after);
    QVERIFY(!run.startedAt.isValid());
    QVERIFY(!run.endedAt.isValid());
    QVERIFY(run.statusMessage.isEmpty());
    QCOMPARE(run.folder, db.runFolder(id));
    QCOMPARE(run.folder, QFileInfo(path).absoluteFilePath() + QStringLiteral("-runs/") + QString::number(id));
    QVERIFY(QFileInfo(run.folder).isDir());

    auto params = db.params(id);
    QVERIFY(params.ok());
    QCOMPARE(params.value(), sample.params);

    auto second = db.createRun(testing::sampleNewRun(QStringLiteral("second")));
    QVERIFY(second.ok());
    QVERIFY(second.value() > id);
    auto runs = db.listRuns();
    QVERIFY(runs.ok());
    QCOMPARE(runs.value().size(), 2);
    QCOMPARE(runs.value().at(0).name, QStringLiteral("second"));  // newest first
    QCOMPARE(runs.value().at(1).id, id);
    QVERIFY(runs.value().at(1).preset.isEmpty());  // a list reads no presets; run(id) has it
    QCOMPARE(db.run(id).value().preset, sample.preset);
}

void TestRunDatabase::unknownRunIsAnError()
{
    QTemporaryDir dir;
    auto opened = RunDatabase::open(dir.filePath(QStringLiteral("runs.sqlite")));
    QVERIFY(opened.ok());
    RunDatabase &db = *opened.value();
    const QString expected = QStringLiteral("no run with id 42 in ") + db.path();
    QCOMPARE(db.run(42).error().message, expected);
    QVERIFY(!db.run(42).ok());
    QCOMPARE(db.setStatus(42, RunStatus::Running).error().message, expected);
    QCOMPARE(db.metrics(42).error().message, expected);
    QCOMPARE(db.lastMetricValues(42).error().message, expected);
    QCOMPARE(db.events(42).error().message, expected);
    QCOMPARE(db.checkpoints(42).error().message, expected);
    QCOMPARE(db.deleteMetricsAfter(42, 0).error().message, expected);
    QCOMPARE(db.setTags(42, {QStringLiteral("x")}).error().message, expected);
    QCOMPARE(db.deleteRun(42).error().message, expected);
}

void TestRunDatabase::statusNames_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("name");
    const char *names[] = {"queued", "running", "finished", "failed", "diverged", "stopped", "interrupted"};
    for (int i = 0; i < 7; ++i)
        QTest::newRow(names[i]) << i << QString::fromLatin1(names[i]);
}

void TestRunDatabase::statusNames()
{
    QFETCH(int, status);
    QFETCH(QString, name);
    QCOMPARE(runStatusName(RunStatus(status)), name);
    QVERIFY(runStatusFromName(name) == RunStatus(status));
    QVERIFY(!runStatusFromName(name.toUpper()).has_value());
    QVERIFY(!runStatusFromName(QString()).has_value());
    QCOMPARE(allRunStatuses().at(status), RunStatus(status));
}

void TestRunDatabase::statusTransitions_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("message");
    QTest::addColumn<QString>("errorNode");
    QTest::addColumn<bool>("ended");
    QTest::newRow("running") << int(RunStatus::Running) << QString() << QString() << false;
    QTest::newRow("finished") << int(RunStatus::Finished) << QStringLiteral("10 epochs") << QString() << true;
    QTest::newRow("failed at a node") << int(RunStatus::Failed)
                                      << QStringLiteral("shape mismatch: expected [N, 32, 24, 24]")
                                      << QStringLiteral("conv1") << true;
    QTest::newRow("diverged") << int(RunStatus::Diverged) << QStringLiteral("loss is NaN at step 1234") << QString()
                              << true;
    QTest::newRow("stopped") << int(RunStatus::Stopped) << QStringLiteral("stopped by the user") << QString() << true;
    QTest::newRow("interrupted") << int(RunStatus::Interrupted) << QStringLiteral("gone") << QString() << true;
    QTest::newRow("queued again") << int(RunStatus::Queued) << QString() << QString() << false;
}

void TestRunDatabase::statusTransitions()
{
    QFETCH(int, status);
    QFETCH(QString, message);
    QFETCH(QString, errorNode);
    QFETCH(bool, ended);
    QTemporaryDir dir;
    auto opened = RunDatabase::open(dir.filePath(QStringLiteral("runs.sqlite")));
    QVERIFY(opened.ok());
    RunDatabase &db = *opened.value();
    const qint64 id = db.createRun(testing::sampleNewRun()).value();
    QVERIFY(db.setStatus(id, RunStatus::Running, QStringLiteral("starting"), QStringLiteral("data")).ok());
    const QDateTime startedAt = db.run(id).value().startedAt;
    QVERIFY(startedAt.isValid());

    const Status set = db.setStatus(id, RunStatus(status), message, errorNode);
    QVERIFY2(set.ok(), qPrintable(set.error().toString()));
    const RunInfo run = db.run(id).value();
    QCOMPARE(run.status, RunStatus(status));
    QCOMPARE(run.statusMessage, message);
    QCOMPARE(run.errorNode, errorNode);
    QCOMPARE(run.endedAt.isValid(), ended);
    QCOMPARE(run.startedAt, startedAt);  // a second "running" keeps the first start
    if (ended)
        QVERIFY(run.endedAt >= run.startedAt);

    RawSqlite raw(db.path());
    QCOMPARE(raw.scalar(QStringLiteral("SELECT status FROM runs WHERE id = ?"), {id}).toString(),
             runStatusName(RunStatus(status)));
    QCOMPARE(raw.scalar(QStringLiteral("SELECT status_message IS NULL FROM runs WHERE id = ?"), {id}).toInt(),
             message.isEmpty() ? 1 : 0);
}

void TestRunDatabase::notesTagsAndDelete()
{
    QTemporaryDir dir;
    auto opened = RunDatabase::open(dir.filePath(QStringLiteral("runs.sqlite")));
    QVERIFY(opened.ok());
    RunDatabase &db = *opened.value();
    const qint64 id = db.createRun(testing::sampleNewRun()).value();
    const qint64 other = db.createRun(testing::sampleNewRun(QStringLiteral("other"))).value();
    QVERIFY(db.setNotes(id, QStringLiteral("baseline; lr too high?")).ok());
    QVERIFY(db.setTags(id, {QStringLiteral("sweep-3"), QStringLiteral("baseline"), QString(), QStringLiteral("baseline ")})
                .ok());
    QVERIFY(db.setTags(other, {QStringLiteral("other")}).ok());
    RunInfo run = db.run(id).value();
    QCOMPARE(run.notes, QStringLiteral("baseline; lr too high?"));
    QCOMPARE(run.tags, (QStringList{QStringLiteral("baseline"), QStringLiteral("sweep-3")}));
    const QList<RunInfo> runs = db.listRuns().value();
    QCOMPARE(runs.size(), 2);
    QCOMPARE(runs.at(0).tags, QStringList{QStringLiteral("other")});
    QCOMPARE(runs.at(1).tags, run.tags);
    QVERIFY(db.setTags(id, {}).ok());
    QVERIFY(db.run(id).value().tags.isEmpty());

    QVERIFY(db.setTags(id, {QStringLiteral("doomed")}).ok());
    QVERIFY(db.deleteRun(id).ok());
    QVERIFY(!db.run(id).ok());
    RawSqlite raw(db.path());
    QCOMPARE(raw.scalar(QStringLiteral("SELECT count(*) FROM run_params WHERE run_id = ?"), {id}).toInt(), 0);
    QCOMPARE(raw.scalar(QStringLiteral("SELECT count(*) FROM run_tags WHERE run_id = ?"), {id}).toInt(), 0);
    QCOMPARE(raw.scalar(QStringLiteral("SELECT count(*) FROM run_params WHERE run_id = ?"), {other}).toInt(), 5);
}

TY_TEST_CLASS(TestRunDatabase)

#include "test_run_database.moc"
