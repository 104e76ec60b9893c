// `trainyard-cli team push` and `runs ... --team` against the fixture's PostgreSQL server: the store's rows equal
// the local ones, pushes are idempotent, a resume's deletions replay, a read-only role reads but cannot push.

#include "required_data.h"
#include "run_database.h"
#include "team_test_support.h"
#include "test_suite.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>

using namespace tyteam;

class TestTeamPush : public QObject {
    Q_OBJECT

private:
    QString m_server;
    QTemporaryDir m_dir;
    QString m_db;

    // Trains `count` small runs into m_db.
    void train(int count)
    {
        const QString preset = blobsPreset(m_dir, 2);
        for (int i = 0; i < count; ++i) {
            const CliResult run = cli({QStringLiteral("run"), preset, QStringLiteral("--db"), m_db, QStringLiteral("--quiet"),
                                       QStringLiteral("--tag"), QStringLiteral("t%1").arg(i)});
            QVERIFY2(run.code == 0, qPrintable(run.err));
        }
    }

    QJsonObject push(const QString &store, int expectedCode = 0)
    {
        const CliResult pushed = cli({QStringLiteral("team"), QStringLiteral("push"), QStringLiteral("--db"), m_db,
                                      QStringLiteral("--team"), store, QStringLiteral("--json")});
        if (pushed.code != expectedCode)
            qWarning("team push: %d, %s", pushed.code, qPrintable(pushed.err));
        return pushed.code == expectedCode ? jsonOf(pushed) : QJsonObject{{"failed", pushed.err}};
    }

private Q_SLOTS:
    void init()
    {
        m_server = fixtureServer();
        if (m_server.isEmpty())
            TY_SKIP_WITHOUT_DATA("no PostgreSQL server (install postgresql-15; the team_server fixture starts one)");
        m_db = m_dir.filePath(QStringLiteral("runs-%1.sqlite").arg(QTest::currentTestFunction()));
    }

    void pushedRunsEqualLocalAndPushAgainAddsNothing()
    {
        const QString store = createDatabase(m_server);
        train(2);
        const QJsonObject first = push(store);
        QCOMPARE(first.value("runs").toInt(), 2);
        QVERIFY(first.value("metric_rows_sent").toInteger() > 100);
        QCOMPARE(first.value("metric_rows_new").toInteger(), first.value("metric_rows_sent").toInteger());
        const QStringList local = localRows(m_db);
        QVERIFY(local.size() > 200);
        QCOMPARE(local.filter(QRegularExpression(QStringLiteral("^evaluation_samples\\|"))).size(), 2 * 200);  // every test sample
        QCOMPARE(storeRows(store, localUuids(m_db)), local);

        // Again: nothing to send, nothing new.
        const QJsonObject second = push(store);
        QCOMPARE(second.value("metric_rows_sent").toInteger(), 0);
        QCOMPARE(second.value("records").toInt(), 0);
        QCOMPARE(storeMetricRows(store), first.value("metric_rows_sent").toInteger());

        // Marks lost (a push killed before it recorded them): everything is sent again, the store adds nothing.
        {
            auto db = ty::RunDatabase::open(m_db);
            QVERIFY(db.ok());
        }
        QCOMPARE(QProcess::execute(QStringLiteral("sqlite3"), {m_db, QStringLiteral("DELETE FROM team_replication")}), 0);
        const QJsonObject third = push(store);
        QCOMPARE(third.value("metric_rows_sent").toInteger(), first.value("metric_rows_sent").toInteger());
        QCOMPARE(third.value("metric_rows_new").toInteger(), 0);
        QCOMPARE(storeRows(store, localUuids(m_db)), local);

        // runs list|show|metrics --team print what the local commands print (the store's ids are 1 and 2 too).
        for (const QStringList &command : {QStringList{"runs", "list"}, QStringList{"runs", "list", "--json"}, QStringList{"runs", "show", "1"},
                                           QStringList{"runs", "show", "2", "--json"}, QStringList{"runs", "metrics", "1", "--csv"},
                                           QStringList{"runs", "metrics", "1", "2", "--metric", "train/loss"}}) {
            const CliResult mine = cli(command + QStringList{"--db", m_db});
            const CliResult team = cli(command + QStringList{"--team", store});
            QCOMPARE(team.code, 0);
            QCOMPARE(team.out, mine.out);
            QVERIFY(!team.out.isEmpty());
        }
        // The records sent again took no ids: the next new run is the store's run 3.
        train(1);
        QCOMPARE(push(store).value("runs").toInt(), 3);
        const auto uuidOf = [](const QStringList &command) {
            return jsonOf(cli(command)).value("uuid").toString();
        };
        QCOMPARE(uuidOf({"runs", "show", "3", "--team", store, "--json"}), uuidOf({"runs", "show", "3", "--db", m_db, "--json"}));

        const CliResult missing = cli({"runs", "show", "99", "--team", store});
        QCOMPARE(missing.code, 2);
        QVERIFY2(missing.err.contains("no run with id 99 on the team store"), qPrintable(missing.err));
    }

    // A learning-rate range test stays one on the store (its kind and its result, schema step 4), where a reader
    // without them would list it as a training run.
    void learningRateTestsKeepTheirKind()
    {
        const QString store = createDatabase(m_server);
        train(1);
        const CliResult found = cli({"lrfind", blobsPreset(m_dir, 1), "--db", m_db, "--steps", "30", "--quiet"});
        QVERIFY2(found.code == 0, qPrintable(found.err));
        QCOMPARE(push(store).value("runs").toInt(), 2);
        for (const QStringList &command : {QStringList{"runs", "list"}, QStringList{"runs", "list", "--kind", "lrfind", "--json"},
                                           QStringList{"runs", "show", "2"}, QStringList{"runs", "show", "2", "--json"}}) {
            const CliResult mine = cli(command + QStringList{"--db", m_db});
            const CliResult team = cli(command + QStringList{"--team", store});
            QCOMPARE(team.code, 0);
            QCOMPARE(team.out, mine.out);
        }
        const QJsonObject shown = jsonOf(cli({"runs", "show", "2", "--team", store, "--json"}));
        QCOMPARE(shown.value("kind").toString(), QStringLiteral("lrfind"));
        QVERIFY2(!shown.value("result").toObject().isEmpty(), qPrintable(QJsonDocument(shown).toJson()));
        QCOMPARE(jsonOf(cli({"runs", "show", "1", "--team", store, "--json"})).value("kind").toString(),
                 QStringLiteral("train"));

        // A store of schema 3 (pushed by a build before kinds): read, its runs are training runs; the next push
        // upgrades it and, the records' digest having changed with the columns, sends the kinds.
        QCOMPARE(serverSql(store, "ALTER TABLE trainyard.runs DROP COLUMN kind, DROP COLUMN result_json"), QString());
        QCOMPARE(serverSql(store, "DELETE FROM trainyard.team_schema WHERE version = 4"), QString());
        QCOMPARE(QProcess::execute(QStringLiteral("sqlite3"), {m_db, QStringLiteral("UPDATE team_replication SET records_digest = 'schema 3'")}), 0);
        const CliResult old = cli({"runs", "show", "2", "--team", store, "--json"});
        QCOMPARE(old.code, 0);
        QCOMPARE(jsonOf(old).value("kind").toString(), QStringLiteral("train"));
        QCOMPARE(push(store).value("records").toInt(), 2);
        QCOMPARE(jsonOf(cli({"runs", "show", "2", "--team", store, "--json"})).value("kind").toString(),
                 QStringLiteral("lrfind"));
    }

    // A resume deletes the run's rows after its checkpoint's step and writes new ones: the store follows.
    void resumedRunsTruncationReplays()
    {
        const QString store = createDatabase(m_server);
        train(1);
        QVERIFY(push(store).value("metric_rows_sent").toInteger() > 0);
        {
            auto db = ty::RunDatabase::open(m_db);
            QVERIFY(db.ok());
            QVERIFY(db.value()->deleteMetricsAfter(1, 40).ok());
        }
        // New rows after step 40 with other values, as the resumed training writes them.
        QCOMPARE(QProcess::execute(QStringLiteral("sqlite3"),
                                   {m_db, QStringLiteral("INSERT INTO metrics (run_id, name, step, epoch, time, value)"
                                                         " VALUES (1, 'train/loss', 41, 1, 9.5, 123.25), (1, 'train/loss', 44, 1, 9.75, -1.5)")}),
                 0);
        const QJsonObject pushed = push(store);
        QCOMPARE(pushed.value("truncations").toInt(), 1);
        const QStringList local = localRows(m_db);
        QVERIFY(local.contains(QStringLiteral("metrics|%1|train/loss|44|1|4023800000000000|bff8000000000000").arg(localUuids(m_db).first())));
        QCOMPARE(storeRows(store, localUuids(m_db)), local);
        QCOMPARE(push(store).value("truncations").toInt(), 0);  // done once
    }

    // Per-sample predictions: sent with the run's evaluation, once; an evaluation made again replaces them on the
    // store, one deleted takes them away.
    void evaluationSamplesFollowTheLocalEvaluations()
    {
        const QString store = createDatabase(m_server);
        train(1);
        QCOMPARE(push(store).value("evaluation_samples_sent").toInteger(), 200);
        const QString samples = QStringLiteral("SELECT count(*) FROM trainyard.evaluation_samples");
        QCOMPARE(storeRows(store, localUuids(m_db)), localRows(m_db));
        QCOMPARE(serverSql(store, QStringLiteral("DO $$ BEGIN IF (%1) <> 200 THEN RAISE 'not 200'; END IF; END $$").arg(samples)), QString());

        // Evaluated again (other predictions, a new time): the store's samples are the new ones.
        QCOMPARE(QProcess::execute(QStringLiteral("sqlite3"),
                                   {m_db, QStringLiteral("UPDATE evaluation_samples SET predicted = 3, confidence = 0.25 WHERE sample_index < 50;"
                                                         " UPDATE evaluations SET created_at = '2030-01-01T00:00:00.000Z'")}),
                 0);
        const QJsonObject again = push(store);
        QCOMPARE(again.value("records").toInt(), 1);
        QCOMPARE(again.value("evaluation_samples_sent").toInteger(), 200);
        const QStringList local = localRows(m_db);
        QString seventh;  // evaluation_samples|uuid|split|step|index|label|predicted|confidence
        for (const QString &row : local.filter(QRegularExpression(QStringLiteral("^evaluation_samples\\|"))))
            if (row.section(QLatin1Char('|'), 4, 4) == QLatin1String("7"))
                seventh = row;
        QCOMPARE(seventh.section(QLatin1Char('|'), 6, 7), QStringLiteral("4008000000000000|3fd0000000000000"));  // 3, 0.25
        QCOMPARE(storeRows(store, localUuids(m_db)), local);

        // Marks lost: the records go again, the samples the store holds already are not sent twice (no duplicate
        // is possible: the key is run, split, checkpoint step and sample index).
        QCOMPARE(QProcess::execute(QStringLiteral("sqlite3"), {m_db, QStringLiteral("DELETE FROM team_replication")}), 0);
        const QJsonObject resent = push(store);
        QCOMPARE(resent.value("records").toInt(), 1);
        QCOMPARE(resent.value("evaluation_samples_sent").toInteger(), 0);
        QCOMPARE(storeRows(store, localUuids(m_db)), local);
        QCOMPARE(push(store).value("records").toInt(), 0);  // nothing changed: not even the store's samples are asked for

        // The evaluation deleted here: gone from the store with its samples.
        QCOMPARE(QProcess::execute(QStringLiteral("sqlite3"), {m_db, QStringLiteral("PRAGMA foreign_keys=ON; DELETE FROM evaluations")}), 0);
        QCOMPARE(push(store).value("records").toInt(), 1);
        QVERIFY(localRows(m_db).filter(QStringLiteral("evaluation_samples|")).isEmpty());
        QCOMPARE(storeRows(store, localUuids(m_db)), localRows(m_db));
        QCOMPARE(serverSql(store, QStringLiteral("DO $$ BEGIN IF (%1) <> 0 THEN RAISE 'samples left'; END IF; END $$").arg(samples)), QString());
    }

    void readOnlyRoleListsButCannotPush()
    {
        const QString store = createDatabase(m_server);
        train(1);
        QVERIFY(push(store).value("runs").toInt() == 1);
        const QString role = QStringLiteral("reader_%1").arg(QDateTime::currentMSecsSinceEpoch());
        const QString database = store.section(QStringLiteral("dbname="), -1);
        for (const QString &sql : {QStringLiteral("CREATE ROLE %1 LOGIN").arg(role)})
            QCOMPARE(serverSql(m_server, sql), QString());
        for (const QString &sql : {QStringLiteral("GRANT USAGE ON SCHEMA trainyard TO %1").arg(role),
                                   QStringLiteral("GRANT SELECT ON ALL TABLES IN SCHEMA trainyard TO %1").arg(role)})
            QCOMPARE(serverSql(store, sql), QString());
        const QString reader = store + QStringLiteral(" user=") + role;
        const CliResult listed = cli({"runs", "list", "--team", reader});
        QCOMPARE(listed.code, 0);
        QCOMPARE(listed.out, cli({"runs", "list", "--db", m_db}).out);

        train(1);  // something new to push
        const CliResult refused = cli({"team", "push", "--db", m_db, "--team", reader});
        QCOMPARE(refused.code, 1);
        QVERIFY2(refused.err.contains("may not write to the team store") && refused.err.contains("permission denied"), qPrintable(refused.err));
        QVERIFY2(!refused.err.contains("password"), qPrintable(refused.err));
    }

    void badConnectionStringsAreBadInput()
    {
        const CliResult push = cli({"team", "push", "--db", m_db, "--team", "nonsense"});
        QCOMPARE(push.code, 2);
        QVERIFY2(push.err.contains("--team") && push.err.contains("not a libpq connection string"), qPrintable(push.err));
        const CliResult run = cli({"run", blobsPreset(m_dir, 1), "--db", m_db, "--team", "nonsense"});
        QCOMPARE(run.code, 2);
        QVERIFY(!QFile::exists(m_db));  // refused before anything was recorded
        const CliResult none = cli({"team", "push", "--db", m_db});
        QCOMPARE(none.code, 2);
        QVERIFY2(none.err.contains("no team store"), qPrintable(none.err));
    }

    // A password in the URL is used, and stored nowhere: the marks name the store without it.
    void passwordsAreNotStored()
    {
        const QString store = createDatabase(m_server);
        train(1);
        const QString withPassword = store + QStringLiteral(" password=s3cret-word");  // trust auth ignores it
        QCOMPARE(push(withPassword).value("runs").toInt(), 1);
        QFile file(m_db);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(!file.readAll().contains("s3cret-word"));
        QProcess dump;
        dump.start(QStringLiteral("sqlite3"), {m_db, QStringLiteral("SELECT server FROM team_replication")});
        QVERIFY(dump.waitForFinished());
        const QByteArray servers = dump.readAllStandardOutput();
        QVERIFY2(servers.contains("dbname=team_test_") && !servers.contains("s3cret"), servers.constData());
    }
};

TY_TEST_CLASS(TestTeamPush)
#include "test_team_push.moc"
