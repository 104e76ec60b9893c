// Sweeps over many machines (docs/team.md#sweeps-over-many-machines) against the fixture's PostgreSQL server:
// two worker processes, each with its own run database as on two machines, share one sweep and train every trial
// exactly once; a worker killed with SIGKILL mid-trial loses its lease and another worker takes the trial over
// from its replicated checkpoint; early stopping in one worker judges by the trials another worker trained.

#include "pg_connection.h"
#include "required_data.h"
#include "team_test_support.h"
#include "test_suite.h"

#include <QDeadlineTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QTest>
#include <QThread>

using namespace tyteam;

namespace {

// Records a sweep on the store without training any of it here (--max-trials 0); returns its id there.
qint64 recordSweep(const QString &store, const QStringList &options, const QString &db)
{
    const CliResult recorded = cli(QStringList{QStringLiteral("sweep")} + options
                                   + QStringList{"--team", store, "--db", db, "--max-trials", "0", "--json"});
    if (recorded.code != 0)
        qWarning("sweep --team failed: %s", qPrintable(recorded.err));
    return jsonOf(recorded).value(QStringLiteral("id")).toInteger();
}

QProcess *startWorker(QObject *parent, qint64 sweep, const QString &store, const QString &db, const QStringList &more = {})
{
    auto *worker = new QProcess(parent);
    worker->start(QStringLiteral(TRAINYARD_CLI), QStringList{"sweep", "worker", QString::number(sweep), "--team", store, "--db", db} + more);
    worker->waitForStarted();
    return worker;
}

// The store's value of each trial (by trial index) as `sweeps show --team --json` prints it.
QMap<int, double> trialValues(const QJsonObject &sweep)
{
    QMap<int, double> values;
    for (const QJsonValue &trial : sweep.value(QStringLiteral("trials")).toArray())
        if (trial.toObject().value(QStringLiteral("value")).isDouble())
            values.insert(trial.toObject().value(QStringLiteral("trial")).toInt(), trial.toObject().value(QStringLiteral("value")).toDouble());
    return values;
}

} // namespace

class TestTeamSweeps : public QObject {
    Q_OBJECT

private:
    QString m_server;
    QTemporaryDir m_dir;

    // Records a sweep of two trials, starts a worker with a lease of 3 s on `db`, waits until trial 0's rows reach
    // the store, and kills the worker with SIGKILL; its trial's run gets SIGTERM, checkpoints and replicates that.
    // Returns the sweep's id on the store, 0 after a failed check.
    qint64 startTrialThenKillItsWorker(const QString &store, const QString &db)
    {
        // 150 epochs: long enough on a fast, quiet machine that the kill comes mid-trial.
        const qint64 sweep = recordSweep(store, {blobsPreset(m_dir, 150, 2000), "--grid", "opt.lr=0.01,0.02"}, db);
        if (sweep <= 0)
            return 0;
        QObject owner;
        QProcess *killed = startWorker(&owner, sweep, store, db, {"--lease", "3"});
        const QString trial0Rows = QStringLiteral("SELECT count(*) FROM trainyard.metrics m JOIN trainyard.sweep_trials t ON t.run_uuid = m.run_uuid"
                                                  " WHERE t.sweep_id = %1 AND t.trial = 0").arg(sweep);
        QDeadlineTimer deadline(120000);
        while (storeValue(store, trial0Rows).toLongLong() <= 0 && !deadline.hasExpired() && killed->state() == QProcess::Running)
            QThread::msleep(100);
        if (killed->state() != QProcess::Running) {
            qWarning("the worker ended before it could be killed: %s", killed->readAllStandardError().constData());
            return 0;
        }
        killed->kill();
        killed->waitForFinished();
        const QString checkpoint = QStringLiteral("SELECT count(*) FROM trainyard.checkpoints c JOIN trainyard.sweep_trials t ON t.run_uuid = c.run_uuid"
                                                  " WHERE t.sweep_id = %1 AND t.trial = 0").arg(sweep);
        deadline.setRemainingTime(60000);
        while (storeValue(store, checkpoint).toLongLong() <= 0 && !deadline.hasExpired())
            QThread::msleep(100);
        // Its worker's claim stands until the lease runs out; the run's checkpoint is on the store.
        if (storeValue(store, checkpoint).toLongLong() <= 0
            || storeValue(store, QStringLiteral("SELECT status FROM trainyard.sweep_trials WHERE sweep_id = %1 AND trial = 0").arg(sweep)) != QLatin1String("running")) {
            qWarning("no replicated checkpoint, or trial 0 no longer held by the killed worker");
            return 0;
        }
        return sweep;
    }

private Q_SLOTS:
    void init()
    {
        m_server = fixtureServer();
        if (m_server.isEmpty())
            TY_SKIP_WITHOUT_DATA("no PostgreSQL server (install postgresql-15; the team_server fixture starts one)");
    }

    void twoWorkersTrainEveryTrialOnce()
    {
        const QString store = createDatabase(m_server);
        const QString first = m_dir.filePath(QStringLiteral("first.sqlite")), second = m_dir.filePath(QStringLiteral("second.sqlite"));
        const qint64 sweep = recordSweep(store, {blobsPreset(m_dir, 3), "--grid", "opt.lr=0.002,0.005,0.01,0.02,0.05,0.1"}, first);
        QVERIFY(sweep > 0);
        QCOMPARE(storeValue(store, QStringLiteral("SELECT count(*) FROM trainyard.sweep_trials WHERE status = 'queued'")), QStringLiteral("6"));

        QObject owner;
        QProcess *a = startWorker(&owner, sweep, store, first), *b = startWorker(&owner, sweep, store, second);
        for (QProcess *worker : {a, b}) {
            QVERIFY(worker->waitForFinished(300000));
            QVERIFY2(worker->exitCode() == 0, worker->readAllStandardError().constData());
        }

        // Every trial ended once, claimed once, by one of the two workers; the runs are the two databases' runs.
        const QStringList trials = storeQuery(store, QStringLiteral("SELECT concat_ws('|', trial, status, claims, worker, run_uuid) FROM trainyard.sweep_trials"
                                                                    " WHERE sweep_id = %1 ORDER BY trial").arg(sweep));
        QCOMPARE(trials.size(), 6);
        QSet<QString> runs, workers;
        for (const QString &trial : trials) {
            QCOMPARE(trial.section(QLatin1Char('|'), 1, 2), QStringLiteral("finished|1"));
            workers.insert(trial.section(QLatin1Char('|'), 3, 3));
            runs.insert(trial.section(QLatin1Char('|'), 4, 4));
        }
        const QStringList firstRuns = localUuids(first), secondRuns = localUuids(second);
        QCOMPARE(firstRuns.size() + secondRuns.size(), 6);  // no trial trained twice
        QCOMPARE(runs, QSet<QString>(firstRuns.begin(), firstRuns.end()) + QSet<QString>(secondRuns.begin(), secondRuns.end()));
        QCOMPARE(workers.size(), 2);  // both took part
        QCOMPARE(storeValue(store, QStringLiteral("SELECT status FROM trainyard.sweeps WHERE id = %1").arg(sweep)), QStringLiteral("finished"));

        // The store's rows are each database's, value for value, and so are the trials' results.
        QCOMPARE(storeRows(store, firstRuns), localRows(first));
        QCOMPARE(storeRows(store, secondRuns), localRows(second));
        const CliResult shown = cli({"sweeps", "show", QString::number(sweep), "--team", store, "--json"});
        QVERIFY2(shown.code == 0, qPrintable(shown.err));
        const QMap<int, double> onStore = trialValues(jsonOf(shown));
        QCOMPARE(onStore.size(), 6);
        QMap<int, double> local;
        for (const QString &db : {first, second}) {
            const CliResult listed = cli({"sweeps", "list", "--db", db, "--json"});
            const qint64 localSweep = QJsonDocument::fromJson(listed.out.toUtf8()).array().first().toObject().value(QStringLiteral("id")).toInteger();
            local.insert(trialValues(jsonOf(cli({"sweeps", "show", QString::number(localSweep), "--db", db, "--json"}))));
        }
        QCOMPARE(local, onStore);
        const CliResult list = cli({"sweeps", "list", "--team", store});
        QVERIFY2(list.code == 0 && list.out.contains(QStringLiteral("finished")) && list.out.contains(QStringLiteral("6/6")), qPrintable(list.out + list.err));
    }

    // Another machine: the killed worker's run is not in the survivor's database, its checkpoint file is.
    void killedWorkersTrialIsTakenOver()
    {
        const QString store = createDatabase(m_server);
        const QString first = m_dir.filePath(QStringLiteral("killed.sqlite")), second = m_dir.filePath(QStringLiteral("survivor.sqlite"));
        const qint64 sweep = startTrialThenKillItsWorker(store, first);
        QVERIFY(sweep > 0);
        // Its newest reference names a file that is gone (a best checkpoint replaced since): the next one is used.
        QCOMPARE(serverSql(store, QStringLiteral("INSERT INTO trainyard.checkpoints SELECT (jsonb_populate_record(c, jsonb_build_object("
                                                 "'seq', c.seq + 1000, 'path', '/gone/best-step.safetensors'))).* FROM trainyard.checkpoints c"
                                                 " JOIN trainyard.sweep_trials t ON t.run_uuid = c.run_uuid WHERE t.sweep_id = %1 AND t.trial = 0"
                                                 " ORDER BY c.step DESC, c.seq DESC LIMIT 1").arg(sweep)),
                 QString());

        const CliResult survivor = cli({"sweep", "worker", QString::number(sweep), "--team", store, "--db", second, "--lease", "3"});
        QVERIFY2(survivor.code == 0, qPrintable(survivor.err));
        QVERIFY2(survivor.out.contains(QStringLiteral("(claim 2): warm-starts from its newest replicated checkpoint readable here, ") + first),
                 qPrintable(survivor.out));
        const QStringList trials = storeQuery(store, QStringLiteral("SELECT concat_ws('|', trial, status, claims) FROM trainyard.sweep_trials WHERE sweep_id = %1 ORDER BY trial").arg(sweep));
        QCOMPARE(trials, (QStringList{QStringLiteral("0|finished|2"), QStringLiteral("1|finished|1")}));
        QCOMPARE(storeValue(store, QStringLiteral("SELECT status FROM trainyard.sweeps WHERE id = %1").arg(sweep)), QStringLiteral("finished"));
        // The taken-over trial's run started from the killed worker's checkpoint, and the store has it as trained here.
        const QStringList survivorRuns = localUuids(second);
        QCOMPARE(survivorRuns.size(), 2);
        QVERIFY(localRows(second).filter(QStringLiteral("\"init_from\"")).size() >= 1);
        QCOMPARE(storeRows(store, survivorRuns), localRows(second));
    }

    // One machine, one database: the survivor resumes the killed worker's run itself, each epoch recorded once.
    void killedWorkersTrialResumesInASharedDatabase()
    {
        const QString store = createDatabase(m_server);
        const QString db = m_dir.filePath(QStringLiteral("shared.sqlite"));
        const qint64 sweep = startTrialThenKillItsWorker(store, db);
        QVERIFY(sweep > 0);

        const CliResult survivor = cli({"sweep", "worker", QString::number(sweep), "--team", store, "--db", db, "--lease", "3"});
        QVERIFY2(survivor.code == 0, qPrintable(survivor.err));
        QVERIFY2(survivor.out.contains(QStringLiteral("(claim 2): resumes run 1 of this database")), qPrintable(survivor.out));
        QCOMPARE(storeQuery(store, QStringLiteral("SELECT concat_ws('|', trial, status, claims) FROM trainyard.sweep_trials WHERE sweep_id = %1 ORDER BY trial").arg(sweep)),
                 (QStringList{QStringLiteral("0|finished|2"), QStringLiteral("1|finished|1")}));
        const QStringList runs = localUuids(db);
        QCOMPARE(runs.size(), 2);  // one run per trial: trial 0's run went on
        QCOMPARE(storeValue(store, QStringLiteral("SELECT count(*) FROM trainyard.metrics m JOIN trainyard.sweep_trials t ON t.run_uuid = m.run_uuid"
                                                  " WHERE t.sweep_id = %1 AND t.trial = 0 AND m.name = 'val/loss'").arg(sweep)),
                 QStringLiteral("150"));  // each epoch once
        QCOMPARE(storeRows(store, runs), localRows(db));
    }

    void pruningJudgesByOtherWorkersTrials()
    {
        const QString store = createDatabase(m_server);
        const QString first = m_dir.filePath(QStringLiteral("judges.sqlite")), second = m_dir.filePath(QStringLiteral("judged.sqlite"));
        // Three good trials trained by the first worker, then a hopeless one (a learning rate of nearly 0) by the second.
        const CliResult created = cli({"sweep", blobsPreset(m_dir, 4), "--grid", "opt.lr=0.01,0.012,0.014,0.000001", "--early-stop", "median",
                                       "--team", store, "--db", first, "--max-trials", "3", "--json"});
        QVERIFY2(created.code == 0, qPrintable(created.err));
        const qint64 sweep = jsonOf(created).value(QStringLiteral("id")).toInteger();
        QCOMPARE(storeValue(store, QStringLiteral("SELECT count(*) FROM trainyard.sweep_trials WHERE sweep_id = %1 AND status = 'finished'").arg(sweep)),
                 QStringLiteral("3"));
        const CliResult judged = cli({"sweep", "worker", QString::number(sweep), "--team", store, "--db", second});
        QVERIFY2(judged.code == 0, qPrintable(judged.err));
        // Its own database holds only its trial: the three others it was judged against came from the store.
        QCOMPARE(localUuids(second).size(), 1);
        const QStringList trial = storeQuery(store, QStringLiteral("SELECT concat_ws('|', status, message) FROM trainyard.sweep_trials WHERE sweep_id = %1 AND trial = 3").arg(sweep));
        QCOMPARE(trial.size(), 1);
        QVERIFY2(trial.first().startsWith(QStringLiteral("pruned|")) && trial.first().contains(QStringLiteral("of 3 other trials")), qPrintable(trial.first()));
        QVERIFY(localRows(second).filter(QStringLiteral("|pruned|")).size() == 1);
        QCOMPARE(storeRows(store, localUuids(second)), localRows(second));

        // Its trials are claimed on the store: resuming it in a database would train them again, and is refused.
        const CliResult resumed = cli({"sweep", "resume", "1", "--db", first});
        QCOMPARE(resumed.code, 2);
        QVERIFY2(resumed.err.contains(QStringLiteral("is a team sweep")), qPrintable(resumed.err));
        QCOMPARE(localUuids(first).size(), 3);
    }

    // `team push` copies this machine's sweeps (without --team) with their trials, so `sweeps list|show --team` show
    // them as the local commands do; pushing again changes nothing; a team sweep recorded in the same database is
    // left as the store has it (its trials stay queued for workers).
    void localSweepsArePushed()
    {
        const QString store = createDatabase(m_server);
        const QString db = m_dir.filePath(QStringLiteral("local-sweeps.sqlite"));
        const CliResult swept = cli({"sweep", blobsPreset(m_dir, 2), "--grid", "opt.lr=0.005,0.02,0.05", "--db", db, "--quiet"});
        QVERIFY2(swept.code == 0, qPrintable(swept.err));
        const qint64 teamSweep = recordSweep(store, {blobsPreset(m_dir, 2), "--grid", "opt.lr=0.01,0.03"}, db);
        QVERIFY(teamSweep > 0);

        const CliResult pushed = cli({"team", "push", "--db", db, "--team", store, "--json"});
        QVERIFY2(pushed.code == 0, qPrintable(pushed.err));
        QCOMPARE(jsonOf(pushed).value(QStringLiteral("sweeps")).toInt(), 1);
        QCOMPARE(jsonOf(pushed).value(QStringLiteral("team_sweeps_left")).toInt(), 1);
        QCOMPARE(storeValue(store, QStringLiteral("SELECT count(*) FROM trainyard.sweeps")), QStringLiteral("2"));
        const qint64 onStore = storeValue(store, QStringLiteral("SELECT id FROM trainyard.sweeps WHERE id <> %1").arg(teamSweep)).toLongLong();
        QVERIFY(onStore > 0);
        // Its trials: finished, each naming its run, which the push replicated; none can be claimed.
        const QStringList trials = storeQuery(store, QStringLiteral("SELECT concat_ws('|', t.status, t.claims, t.lease_until IS NULL, r.name IS NOT NULL)"
                                                                    " FROM trainyard.sweep_trials t LEFT JOIN trainyard.runs r ON r.uuid = t.run_uuid"
                                                                    " WHERE t.sweep_id = %1 ORDER BY t.trial").arg(onStore));
        QCOMPARE(trials, QStringList({"finished|0|t|t", "finished|0|t|t", "finished|0|t|t"}));
        QCOMPARE(storeValue(store, QStringLiteral("SELECT count(*) FROM trainyard.sweep_trials WHERE sweep_id = %1 AND status = 'queued'").arg(teamSweep)),
                 QStringLiteral("2"));

        // The same sweep as the local commands show it: status, trials, values.
        const qint64 local = QJsonDocument::fromJson(cli({"sweeps", "list", "--db", db, "--json"}).out.toUtf8()).array().last().toObject()
                                 .value(QStringLiteral("id")).toInteger();
        const QJsonObject mine = jsonOf(cli({"sweeps", "show", QString::number(local), "--db", db, "--json"}));
        const QJsonObject theirs = jsonOf(cli({"sweeps", "show", QString::number(onStore), "--team", store, "--json"}));
        QCOMPARE(theirs.value(QStringLiteral("status")).toString(), QStringLiteral("finished"));
        QCOMPARE(theirs.value(QStringLiteral("status")), mine.value(QStringLiteral("status")));
        QCOMPARE(trialValues(theirs).size(), 3);
        QCOMPARE(trialValues(theirs), trialValues(mine));
        const CliResult listed = cli({"sweeps", "list", "--team", store});
        QVERIFY2(listed.code == 0 && listed.out.contains(QStringLiteral("3/3")), qPrintable(listed.out + listed.err));

        // Again: the same rows.
        const QStringList before = storeQuery(store, QStringLiteral("SELECT concat_ws('|', sweep_id, trial, status, worker, run_uuid, ended_at)"
                                                                    " FROM trainyard.sweep_trials ORDER BY sweep_id, trial"));
        QCOMPARE(jsonOf(cli({"team", "push", "--db", db, "--team", store, "--json"})).value(QStringLiteral("sweeps")).toInt(), 1);
        QCOMPARE(storeQuery(store, QStringLiteral("SELECT concat_ws('|', sweep_id, trial, status, worker, run_uuid, ended_at)"
                                                  " FROM trainyard.sweep_trials ORDER BY sweep_id, trial")),
                 before);
        QCOMPARE(storeValue(store, QStringLiteral("SELECT count(*) FROM trainyard.sweeps")), QStringLiteral("2"));
    }
};

TY_TEST_CLASS(TestTeamSweeps)
#include "test_team_sweeps.moc"
