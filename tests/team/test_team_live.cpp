// Live for the whole team (docs/team.md): a push sends one NOTIFY per run that changed, after its commits; the
// app's live copy of the store (TeamLiveMirror into a team cache file) brings a teammate's new metric point to the
// app's model (the run database watcher and the plots' feed, on the cache) within 2 s; a read-only role browses.

#include "pg_connection.h"
#include "plots/run_metrics_feed.h"
#include "required_data.h"
#include "run_database.h"
#include "runs/run_database_watcher.h"
#include "sqlite_connection.h"
#include "team_listener.h"
#include "team_live_mirror.h"
#include "team_push.h"
#include "team_run_cache.h"
#include "team_test_support.h"
#include "test_suite.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QHash>
#include <QProcess>
#include <QTest>

using namespace tyteam;

namespace {

// Per run uuid of the local database, its last metric step.
QHash<QString, qint64> lastStepsByUuid(const QString &db)
{
    ty::SqliteConnection connection;
    if (!connection.openReadOnly(db).ok())
        return {};
    ty::SqliteStatement select;
    if (!select.prepare(connection, "SELECT r.uuid, max(m.step) FROM runs r JOIN metrics m ON m.run_id = r.id GROUP BY r.uuid", QStringLiteral("steps")).ok())
        return {};
    QHash<QString, qint64> steps;
    while (select.next(QStringLiteral("steps")).value())
        steps.insert(select.textColumn(0), select.intColumn(1));
    return steps;
}

ty::Result<ty::TeamPushReport> push(const QString &db, const QString &store, qint64 batchRows = 20000)
{
    ty::PgConnection server;
    if (ty::Status opened = server.open(store); !opened.ok())
        return opened.error();
    ty::TeamPushOptions options;
    options.batchRows = batchRows;
    return ty::pushRunsToTeam(db, server, options);
}

int sqlite(const QString &db, const QString &sql)
{
    return QProcess::execute(QStringLiteral("sqlite3"), {db, sql});
}

} // namespace

class TestTeamLive : public QObject {
    Q_OBJECT

private:
    QString m_server;
    QTemporaryDir m_dir;

    QString trainedDatabase(const QString &name, int runs)
    {
        const QString db = m_dir.filePath(name);
        for (int i = 0; i < runs; ++i) {
            const CliResult run = cli({QStringLiteral("run"), blobsPreset(m_dir, 1), QStringLiteral("--db"), db, QStringLiteral("--quiet")});
            if (run.code != 0)
                qWarning("run: %s", qPrintable(run.err));
        }
        return db;
    }

private Q_SLOTS:
    void init()
    {
        m_server = fixtureServer();
        if (m_server.isEmpty())
            TY_SKIP_WITHOUT_DATA("no PostgreSQL server (install postgresql-15; the team_server fixture starts one)");
    }

    void payloadsRoundTrip()
    {
        const auto parsed = ty::parseTeamNotification(ty::teamNotificationPayload(QStringLiteral("0b5e-77"), 1234).toUtf8());
        QVERIFY(parsed.has_value());
        QCOMPARE(parsed->uuid, QStringLiteral("0b5e-77"));
        QCOMPARE(parsed->step, 1234);
        QVERIFY(!ty::parseTeamNotification("hello").has_value());
        QVERIFY(!ty::parseTeamNotification("abc x").has_value());
    }

    // However many server transactions a run's rows take (batches of 25 rows here), one notification per run,
    // naming its last step; a push with nothing new sends none.
    void onePushOneNotificationPerRun()
    {
        const QString store = createDatabase(m_server);
        const QString db = trainedDatabase(QStringLiteral("two.sqlite"), 2);
        QList<ty::TeamRunNotification> heard;
        ty::TeamListener listener([&](const ty::TeamRunNotification &n) { heard << n; }, {});
        QVERIFY(listener.listen(store).ok());

        const ty::Result<ty::TeamPushReport> first = push(db, store, 25);
        QVERIFY2(first.ok(), first.ok() ? "" : qPrintable(first.error().message));
        QVERIFY(first.value().metricRowsSent > 4 * 25 * 2);  // several transactions per run
        QCOMPARE(first.value().notifications, 2);
        QTRY_COMPARE(heard.size(), 2);
        const QHash<QString, qint64> steps = lastStepsByUuid(db);
        QCOMPARE(steps.size(), 2);
        for (const ty::TeamRunNotification &n : std::as_const(heard)) {
            QVERIFY2(steps.contains(n.uuid), qPrintable(n.uuid));
            QCOMPARE(n.step, steps.value(n.uuid));
        }
        QVERIFY(heard[0].uuid != heard[1].uuid);

        const ty::Result<ty::TeamPushReport> again = push(db, store);
        QVERIFY(again.ok());
        QCOMPARE(again.value().notifications, 0);
        QTest::qWait(300);
        QCOMPARE(heard.size(), 2);
    }

    // A teammate's run trains on another machine; its new point reaches the app's model through the notification
    // (the mirror's pull is set to a minute, so nothing else can bring it in time).
    void newPointReachesTheAppWithinTwoSeconds()
    {
        const QString store = createDatabase(m_server);
        const QString db = trainedDatabase(QStringLiteral("teammate.sqlite"), 1);
        // As if it were still training elsewhere: running, on another host, with a fresh heartbeat.
        const QString now = QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
        QCOMPARE(sqlite(db, QStringLiteral("UPDATE runs SET status = 'running', ended_at = NULL, host = 'teammate-box', heartbeat_at = '%1'").arg(now)), 0);
        QVERIFY(push(db, store).ok());

        ty::TeamLiveMirror mirror;
        const QString cache = m_dir.filePath(QStringLiteral("team-cache.sqlite"));
        QVERIFY(mirror.start(store, cache, 60000).ok());
        QTRY_VERIFY_WITH_TIMEOUT(mirror.state().syncs >= 1 && mirror.state().listening, 30000);
        QCOMPARE(mirror.state().problem, QString());
        QCOMPARE(mirror.state().runs, 1);

        ty::RunDatabaseWatcher watcher;
        QVERIFY(watcher.open(cache).ok());
        ty::RunMetricsFeed feed;
        feed.setDatabase(watcher.database());
        feed.setLiveness([](qint64) { return true; });
        QObject::connect(&watcher, &ty::RunDatabaseWatcher::changed, &feed, &ty::RunMetricsFeed::poll);
        QList<ty::MetricPoint> seen;
        QObject::connect(&feed, &ty::RunMetricsFeed::rowsArrived, [&](qint64, const QList<ty::MetricPoint> &rows) { seen += rows; });
        feed.addRun(1);  // the store's id of the teammate's run
        QVERIFY(!seen.isEmpty());
        QVERIFY(watcher.isPollingFast());  // a running run: the watcher looks every 250 ms

        const qint64 step = lastStepsByUuid(db).values().value(0) + 1;
        QCOMPARE(sqlite(db, QStringLiteral("INSERT INTO metrics (run_id, name, step, epoch, time, value) VALUES (1, 'train/loss', %1, 1, 99.5, 0.125)").arg(step)), 0);
        const ty::Result<ty::TeamPushReport> pushed = push(db, store);
        QVERIFY(pushed.ok());
        QCOMPARE(pushed.value().notifications, 1);
        QElapsedTimer sincePush;
        sincePush.start();
        const auto arrived = [&] {
            return std::any_of(seen.cbegin(), seen.cend(), [&](const ty::MetricPoint &p) { return p.step == step && p.value == 0.125; });
        };
        QTRY_VERIFY_WITH_TIMEOUT(arrived(), 2000);
        qInfo("a teammate's new point reached the app's model %lld ms after its push committed", sincePush.elapsed());
        QVERIFY(mirror.state().notifications >= 1);
        feed.setDatabase(nullptr);
        mirror.stop();
    }

    // The pull copies what changed without a notification (one lost while the listener was reconnecting).
    void pullCatchesWhatNoNotificationSaid()
    {
        const QString store = createDatabase(m_server);
        const QString db = trainedDatabase(QStringLiteral("pulled.sqlite"), 1);
        QVERIFY(push(db, store).ok());
        const QString cache = m_dir.filePath(QStringLiteral("pulled-cache.sqlite"));
        ty::TeamLiveMirror mirror;
        QVERIFY(mirror.start(store, cache, 300).ok());
        QTRY_VERIFY_WITH_TIMEOUT(mirror.state().syncs >= 1, 30000);
        // Written on the store directly: no NOTIFY.
        QCOMPARE(serverSql(store, QStringLiteral("UPDATE trainyard.runs SET name = 'renamed on the store', replicated_at = now()")), QString());
        QTRY_VERIFY_WITH_TIMEOUT(localRows(cache).filter(QStringLiteral("|renamed on the store|")).size() == 1, 5000);
        mirror.stop();
        // The cache holds what the store holds, value for value.
        QCOMPARE(storeRows(store, localUuids(cache)), localRows(cache));
    }

    // A role with only SELECT grants: the mirror browses; `run --team` with it trains and records the run locally,
    // saying once, clearly, that the role may not write.
    void readOnlyRoleBrowsesButCannotWrite()
    {
        const QString store = createDatabase(m_server);
        QVERIFY(push(trainedDatabase(QStringLiteral("shared.sqlite"), 1), store).ok());
        const QString role = QStringLiteral("browser_%1").arg(QDateTime::currentMSecsSinceEpoch());
        QCOMPARE(serverSql(m_server, QStringLiteral("CREATE ROLE %1 LOGIN").arg(role)), QString());
        QCOMPARE(serverSql(store, QStringLiteral("GRANT USAGE ON SCHEMA trainyard TO %1").arg(role)), QString());
        QCOMPARE(serverSql(store, QStringLiteral("GRANT SELECT ON ALL TABLES IN SCHEMA trainyard TO %1").arg(role)), QString());
        const QString reader = store + QStringLiteral(" user=") + role;

        ty::TeamLiveMirror mirror;
        QVERIFY(mirror.start(reader, m_dir.filePath(QStringLiteral("reader-cache.sqlite")), 60000).ok());
        QTRY_VERIFY_WITH_TIMEOUT(mirror.state().syncs >= 1, 30000);
        QCOMPARE(mirror.state().problem, QString());
        QCOMPARE(mirror.state().runs, 1);
        QVERIFY(mirror.state().listening);
        mirror.stop();

        const QString db = m_dir.filePath(QStringLiteral("mine.sqlite"));
        const CliResult run = cli({"run", blobsPreset(m_dir, 1), "--db", db, "--quiet", "--team", reader});
        QCOMPARE(run.code, 0);
        QCOMPARE(run.err.count(QStringLiteral("warning: the team store is not replicating this run")), 1);
        QVERIFY2(run.err.contains(QStringLiteral("may not write to the team store")), qPrintable(run.err));
        QVERIFY2(!run.err.contains(QStringLiteral("team push` catches up")) && !run.err.contains(QStringLiteral("team push` sends")),
                 qPrintable(run.err));  // no push of this role will
        QCOMPARE(localRows(db).filter(QStringLiteral("|finished|")).size(), 1);
        QCOMPARE(localUuids(db).size(), 1);
        QCOMPARE(storeRows(store, localUuids(db)), QStringList());  // nothing of it reached the store
    }

    // `run --team` with a password in the URL: used for the connection, written nowhere in the run database.
    void runWithPasswordStoresNone()
    {
        const QString store = createDatabase(m_server);
        const QString db = m_dir.filePath(QStringLiteral("secret.sqlite"));
        const CliResult run = cli({"run", blobsPreset(m_dir, 1), "--db", db, "--quiet", "--team", store + " password=hunter2-secret"});
        QVERIFY2(run.code == 0, qPrintable(run.err));
        QCOMPARE(storeRows(store, localUuids(db)), localRows(db));  // it did replicate
        for (const QString &file : {db, db + QStringLiteral("-wal")}) {
            QFile f(file);
            if (f.open(QIODevice::ReadOnly))
                QVERIFY2(!f.readAll().contains("hunter2"), qPrintable(file));
        }
        QVERIFY(!run.err.contains(QStringLiteral("hunter2")));
    }
};

TY_TEST_CLASS(TestTeamLive)
#include "test_team_live.moc"
