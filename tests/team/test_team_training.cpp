// `trainyard-cli run --team`: the run replicates while it trains, a SIGKILL mid-run loses nothing that `team push`
// cannot catch up, and a store that is down changes neither the run's outcome nor its exit status.

#include "required_data.h"
#include "team_test_support.h"
#include "test_suite.h"

#include "pg_connection.h"

#include <QDateTime>
#include <QDeadlineTimer>
#include <QJsonDocument>
#include <QJsonObject>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <QProcess>
#include <QTest>
#include <QThread>

using namespace tyteam;

namespace {

// A socket on 127.0.0.1 that listens (the kernel completes a client's handshake) but never accepts, reads or
// answers: a store that hangs. Open for the test process's life; returns its port, or -1.
int silentListener()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0 || ::listen(fd, 8) != 0
        || ::getsockname(fd, reinterpret_cast<sockaddr *>(&address), &length) != 0)
        return -1;
    return ntohs(address.sin_port);
}

} // namespace

class TestTeamTraining : public QObject {
    Q_OBJECT

private:
    QString m_server;
    QTemporaryDir m_dir;

private Q_SLOTS:
    void init()
    {
        m_server = fixtureServer();
        if (m_server.isEmpty())
            TY_SKIP_WITHOUT_DATA("no PostgreSQL server (install postgresql-15; the team_server fixture starts one)");
    }

    void killedRunThenPushEqualsLocal()
    {
        const QString store = createDatabase(m_server);
        const QString db = m_dir.filePath(QStringLiteral("killed.sqlite"));
        QProcess run;
        run.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        run.start(QStringLiteral(TRAINYARD_CLI), {QStringLiteral("run"), blobsPreset(m_dir, 4000), QStringLiteral("--db"), db,
                                                  QStringLiteral("--quiet"), QStringLiteral("--team"), store});
        QVERIFY(run.waitForStarted());
        // The replicator pushes while the run trains: wait for its rows on the store, then kill the run (4,000
        // epochs: far more than it reaches before the kill, however fast the steps).
        QDeadlineTimer deadline(120000);
        while ((storeMetricRows(store) <= 0 || storeRuns(store) <= 0) && !deadline.hasExpired() && run.state() == QProcess::Running)
            QThread::msleep(100);
        QCOMPARE(run.state(), QProcess::Running);  // still training: the rows and the record came from the background
        QVERIFY(storeMetricRows(store) > 0);
        QThread::msleep(700);  // into the middle of a flush or a push
        run.kill();            // SIGKILL
        QVERIFY(run.waitForFinished());

        // Before any push: running on the store, and read as interrupted once its machine has been silent for a
        // minute (the store's clock moved back instead of waiting).
        const auto shownStatus = [&] {
            const QJsonObject shown = jsonOf(cli({"runs", "show", "1", "--team", store, "--json"}));
            return shown.value("status").toString() + QLatin1Char('|') + shown.value("status_message").toString();
        };
        QVERIFY2(shownStatus().startsWith(QStringLiteral("running|")), qPrintable(shownStatus()));
        QCOMPARE(serverSql(store, QStringLiteral("UPDATE trainyard.runs SET replicated_at = now() - interval '61 seconds'")), QString());
        QVERIFY2(shownStatus().startsWith(QStringLiteral("interrupted|its machine stopped replicating it")), qPrintable(shownStatus()));

        const CliResult pushed = cli({"team", "push", "--db", db, "--team", store});
        QVERIFY2(pushed.code == 0, qPrintable(pushed.err));
        const QStringList local = localRows(db);
        QVERIFY(local.filter(QStringLiteral("|interrupted|")).size() == 1);  // the record says how the run ended
        QCOMPARE(storeRows(store, localUuids(db)), local);
    }

    void storeDownDuringRunThenPushCatchesUp()
    {
        // A cluster of its own, stopped while the run trains (the fixture's serves the other tests meanwhile).
        const QString info = m_dir.filePath(QStringLiteral("own-cluster.conninfo"));
        QCOMPARE(QProcess::execute(QStringLiteral("sh"), {QStringLiteral(TRAINYARD_PG_CLUSTER), QStringLiteral("setup"), info}), 0);
        const QString server = [&] { QFile f(info); f.open(QIODevice::ReadOnly); return QString::fromUtf8(f.readAll()).trimmed(); }();
        QVERIFY(!server.isEmpty());
        const QString store = createDatabase(server);
        QCOMPARE(QProcess::execute(QStringLiteral("sh"), {QStringLiteral(TRAINYARD_PG_CLUSTER), QStringLiteral("stop"), info}), 0);

        const QString db = m_dir.filePath(QStringLiteral("down.sqlite"));
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("TRAINYARD_TEAM"), store);  // the environment's store, as cron or Slurm sets it
        const CliResult run = cli({"run", blobsPreset(m_dir, 40), "--db", db, "--quiet"}, environment);
        QCOMPARE(run.code, 0);
        QCOMPARE(run.err.count(QStringLiteral("warning: the team store is not replicating this run")), 1);
        QVERIFY(localRows(db).filter(QStringLiteral("|finished|")).size() == 1);

        QCOMPARE(QProcess::execute(QStringLiteral("sh"), {QStringLiteral(TRAINYARD_PG_CLUSTER), QStringLiteral("start"), info}), 0);
        const CliResult pushed = cli({"team", "push", "--db", db}, environment);
        QVERIFY2(pushed.code == 0, qPrintable(pushed.err));
        QCOMPARE(storeRows(store, localUuids(db)), localRows(db));
        QCOMPARE(QProcess::execute(QStringLiteral("sh"), {QStringLiteral(TRAINYARD_PG_CLUSTER), QStringLiteral("cleanup"), info}), 0);
    }

    // A store that accepts connections and never answers, and one whose tables another session holds locked: the
    // run ends as soon as without a store but for the replicator's bounded wait (TeamReplicator::kStopWaitMs), not
    // libpq's 10 s connect timeout or the lock's 60 s; a push after the lock catches up.
    void storeThatHangsOrIsLockedDoesNotHoldTheEnd()
    {
        // From the run's end (its record) to its process's end.
        const auto secondsAfterTheEnd = [](const QString &db, const QDateTime &exited) {
            const CliResult shown = cli({"runs", "show", "1", "--db", db, "--json"});
            const QDateTime ended = QDateTime::fromString(jsonOf(shown).value("ended_at").toString(), Qt::ISODateWithMs);
            return ended.isValid() ? double(ended.msecsTo(exited)) / 1000.0 : 1e9;
        };
        const int port = silentListener();
        QVERIFY(port > 0);
        const QString hanging = QStringLiteral("postgresql://nobody@127.0.0.1:%1/trainyard").arg(port);
        const QString hungDb = m_dir.filePath(QStringLiteral("hung.sqlite"));
        const CliResult hung = cli({"run", blobsPreset(m_dir, 2), "--db", hungDb, "--quiet", "--team", hanging});
        const double hungAfter = secondsAfterTheEnd(hungDb, QDateTime::currentDateTimeUtc());
        QCOMPARE(hung.code, 0);
        QVERIFY2(hungAfter < 9, qPrintable(QString::number(hungAfter)));  // libpq alone would wait 10 s to connect
        QCOMPARE(hung.err.count(QStringLiteral("warning: the team store")), 1);
        QVERIFY2(hung.err.contains(QStringLiteral("did not answer within 5 s at the end of the run")), qPrintable(hung.err));

        const QString store = createDatabase(m_server);
        const QString first = m_dir.filePath(QStringLiteral("before-lock.sqlite"));
        QCOMPARE(cli({"run", blobsPreset(m_dir, 1), "--db", first, "--quiet", "--team", store}).code, 0);  // the schema
        ty::PgConnection locker;
        QVERIFY(locker.open(store).ok());
        QVERIFY(locker.command(QStringLiteral("BEGIN"), QStringLiteral("lock")).ok());
        QVERIFY(locker.command(QStringLiteral("LOCK TABLE trainyard.runs, trainyard.metrics IN ACCESS EXCLUSIVE MODE"), QStringLiteral("lock")).ok());
        const QString lockedDb = m_dir.filePath(QStringLiteral("locked.sqlite"));
        const CliResult locked = cli({"run", blobsPreset(m_dir, 2), "--db", lockedDb, "--quiet", "--team", store});
        const QDateTime lockedExit = QDateTime::currentDateTimeUtc();
        QVERIFY(locker.command(QStringLiteral("ROLLBACK"), QStringLiteral("unlock")).ok());
        const double lockedAfter = secondsAfterTheEnd(lockedDb, lockedExit);
        QCOMPARE(locked.code, 0);
        QVERIFY2(lockedAfter < 9, qPrintable(QString::number(lockedAfter)));  // the lock alone would hold it for good
        QCOMPARE(locked.err.count(QStringLiteral("warning: the team store")), 1);
        QVERIFY2(locked.err.contains(QStringLiteral("the run is complete here, and `trainyard-cli team push` sends what the store lacks")),
                 qPrintable(locked.err));
        QVERIFY(storeRows(store, localUuids(lockedDb)) != localRows(lockedDb));  // behind
        QCOMPARE(cli({"team", "push", "--db", lockedDb, "--team", store}).code, 0);
        QCOMPARE(storeRows(store, localUuids(lockedDb)), localRows(lockedDb));
    }

    // A store that answers: the run's last pass leaves it complete, without any push.
    void runWithStoreReplicatesToTheEnd()
    {
        const QString store = createDatabase(m_server);
        const QString db = m_dir.filePath(QStringLiteral("live.sqlite"));
        const CliResult run = cli({"run", blobsPreset(m_dir, 2), "--db", db, "--quiet", "--team", store});
        QVERIFY2(run.code == 0, qPrintable(run.err));
        QVERIFY2(!run.err.contains(QStringLiteral("warning")), qPrintable(run.err));
        QCOMPARE(storeRows(store, localUuids(db)), localRows(db));
    }
};

TY_TEST_CLASS(TestTeamTraining)
#include "test_team_training.moc"
