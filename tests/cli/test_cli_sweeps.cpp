// trainyard-cli sweep, sweep resume and sweeps list|show, as a user types them: trials trained by worker
// processes (the real trainyard-cli), ranked and recorded; early stopping by both rules; bad specs refused with
// exit 2 and nothing recorded; an interrupted sweep (kill -9 or Ctrl-C of the driver) resumed without any trial
// trained twice; which parameters mattered (importance) in `sweeps show`. And the run queue: runs waiting under the database's limit, reordered, cancelled, started now.

#include "blobs_preset.h"
#include "cli_in_process.h"
#include "synthetic_sweep.h"
#include "test_suite.h"

#include "run_database.h"

#include <QSysInfo>
#include <QUuid>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <cmath>
#include <csignal>

using namespace ty;
using tytest::trainyard;

namespace {

QJsonObject showSweep(const QString &db, qint64 id)
{
    const tytest::CliOutput show = trainyard({QStringLiteral("sweeps"), QStringLiteral("show"), QString::number(id), QStringLiteral("--db"), db,
                                              QStringLiteral("--json")});
    return QJsonDocument::fromJson(show.out.toUtf8()).object();
}

QStringList args(const char *text) { return QString::fromLatin1(text).split(QLatin1Char(' '), Qt::SkipEmptyParts); }

} // namespace

class TestCliSweeps : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { qputenv("TRAINYARD_CLI", TRAINYARD_CLI); }

    void aSweepTrainsEveryTrialAndRanksThem()
    {
        QTemporaryDir dir;
        const QString preset = tytest::writeBlobsPreset(dir, 3);
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const tytest::CliOutput sweep = trainyard(QStringList{QStringLiteral("sweep"), preset, QStringLiteral("--db"), db}
                                                  + args("--grid opt.lr=0.003,0.03 --random fc1.out_features=int(4,24) --trials 2"
                                                         " --parallel 2 --metric val/accuracy --seed 11"));
        QVERIFY2(sweep.code == 0, qPrintable(sweep.out + sweep.err));
        // Trials start in order, two at a time.
        QStringList started;
        for (const QString &line : sweep.out.split(QLatin1Char('\n')))
            if (line.contains(QStringLiteral(" starts: ")))
                started << line.section(QLatin1Char(' '), 1, 1);
        QCOMPARE(started, (QStringList{"0", "1", "2", "3"}));
        QVERIFY2(sweep.out.contains(QStringLiteral("finished, 4 of 4 trials ended")), qPrintable(sweep.out));

        const QJsonObject json = showSweep(db, 1);
        QCOMPARE(json.value(QStringLiteral("status")).toString(), QStringLiteral("finished"));
        QCOMPARE(json.value(QStringLiteral("goal")).toString(), QStringLiteral("maximize"));
        QCOMPARE(QUuid::fromString(json.value(QStringLiteral("uuid")).toString()).version(), QUuid::Random);
        QCOMPARE(json.value(QStringLiteral("host")).toString(), QSysInfo::machineHostName());
        const QJsonArray trials = json.value(QStringLiteral("trials")).toArray();
        QCOMPARE(trials.size(), 4);
        QCOMPARE(json.value(QStringLiteral("best_run")).toInteger(), trials.first().toObject().value(QStringLiteral("run")).toInteger());
        auto db1 = RunDatabase::open(db).value();
        const QMap<int, RunInfo> runs = db1->sweepRuns(1).value();
        QCOMPARE(runs.size(), 4);
        QCOMPARE(db1->listRuns().value().size(), 4);
        double previous = 2;
        QList<QPair<QDateTime, QDateTime>> spans;
        for (const QJsonValue &value : trials) {
            const QJsonObject trial = value.toObject();
            QCOMPARE(trial.value(QStringLiteral("status")).toString(), QStringLiteral("finished"));
            const double accuracy = trial.value(QStringLiteral("value")).toDouble();
            QVERIFY2(accuracy > 0.6 && accuracy <= previous, qPrintable(QString::number(accuracy)));  // learned; best first
            previous = accuracy;
            // The run is named by its overrides and trained them.
            const RunInfo run = runs.value(trial.value(QStringLiteral("trial")).toInt());
            const QStringList sets = trial.value(QStringLiteral("set")).toVariant().toStringList();
            QCOMPARE(run.name, sets.join(QLatin1Char(' ')));
            const QMap<QString, QString> params = db1->params(run.id).value();
            QCOMPARE(QStringLiteral("fc1.out_features=") + params.value(QStringLiteral("fc1.out_features")), sets.at(1));
            QCOMPARE(QStringLiteral("opt.lr=") + params.value(QStringLiteral("opt.lr")), sets.at(0));
            // Two workers share the machine's threads.
            QCOMPARE(params.value(QStringLiteral("training.threads")), QString::number(qMax(1, QThread::idealThreadCount() / 2)));
            spans.append({run.startedAt, run.endedAt});
        }
        // Never more than two trials at once.
        for (const auto &span : spans) {
            int overlapping = 0;
            for (const auto &other : spans)
                overlapping += other.first <= span.first && span.first < other.second ? 1 : 0;
            QVERIFY(overlapping <= 2);
        }
        // The same seed draws the same trials.
        const tytest::CliOutput again = trainyard(QStringList{QStringLiteral("sweep"), preset, QStringLiteral("--db"), db, QStringLiteral("--json")}
                                                  + args("--grid opt.lr=0.003,0.03 --random fc1.out_features=int(4,24) --trials 2"
                                                         " --metric val/accuracy --seed 11 --set training.epochs=1"));
        QCOMPARE(again.code, 0);
        const QJsonObject second = QJsonDocument::fromJson(again.out.toUtf8()).object();
        QSet<QString> firstSets, secondSets;
        for (const QJsonValue &t : trials)
            firstSets.insert(t.toObject().value(QStringLiteral("set")).toVariant().toStringList().join(QLatin1Char(' ')));
        for (const QJsonValue &t : second.value(QStringLiteral("trials")).toArray())
            secondSets.insert(t.toObject().value(QStringLiteral("set")).toVariant().toStringList().join(QLatin1Char(' ')));
        QCOMPARE(secondSets, firstSets);

        const tytest::CliOutput list = trainyard({QStringLiteral("sweeps"), QStringLiteral("list"), QStringLiteral("--db"), db});
        QCOMPARE(list.code, 0);
        QVERIFY2(list.out.contains(QStringLiteral("4/4")) && list.out.contains(QStringLiteral("blobs sweep")), qPrintable(list.out));
    }

    void earlyStoppingPrunesAHopelessTrial_data()
    {
        QTest::addColumn<QString>("rule");
        QTest::addColumn<int>("epoch");
        QTest::newRow("median") << "median" << 2;
        QTest::newRow("asha") << "asha" << 1;
    }
    void earlyStoppingPrunesAHopelessTrial()
    {
        QFETCH(QString, rule);
        QFETCH(int, epoch);
        QTemporaryDir dir;
        const QString preset = tytest::writeBlobsPreset(dir, 200);
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        // Three useful learning rates, then one that cannot learn in 200 epochs.
        const tytest::CliOutput sweep = trainyard(QStringList{QStringLiteral("sweep"), preset, QStringLiteral("--db"), db,
                                                              QStringLiteral("--early-stop"), rule}
                                                  + args("--grid opt.lr=0.02,0.03,0.05,0.0000001 --metric val/loss"));
        QVERIFY2(sweep.code == 0, qPrintable(sweep.out + sweep.err));
        const QJsonArray trials = showSweep(db, 1).value(QStringLiteral("trials")).toArray();
        QCOMPARE(trials.size(), 4);
        QCOMPARE(trials.last().toObject().value(QStringLiteral("trial")).toInt(), 3);
        QCOMPARE(trials.last().toObject().value(QStringLiteral("status")).toString(), QStringLiteral("pruned"));
        auto opened = RunDatabase::open(db).value();
        const RunInfo pruned = opened->sweepRuns(1).value().value(3);
        QCOMPARE(pruned.status, RunStatus::Pruned);
        QVERIFY2(pruned.statusMessage.contains(rule == QLatin1String("median") ? QStringLiteral("the median rule at epoch 2")
                                                                               : QStringLiteral("ASHA at the epoch-1 rung")),
                 qPrintable(pruned.statusMessage));
        // Stopped soon after that epoch (its process needs a moment), with a checkpoint, and kept like any run.
        const QList<MetricPoint> losses = opened->metrics(pruned.id, QStringLiteral("val/loss")).value();
        QVERIFY2(losses.size() >= epoch && losses.size() < 200, qPrintable(QString::number(losses.size())));
        QVERIFY(!opened->checkpoints(pruned.id).value().isEmpty());
        // The median rule lets the useful trials finish; ASHA keeps only the best third at each later rung
        // (epochs 3, 9, 27), so there at least the best one finishes.
        QCOMPARE(trials.first().toObject().value(QStringLiteral("status")).toString(), QStringLiteral("finished"));
        if (rule == QLatin1String("median"))
            for (int trial = 0; trial < 3; ++trial)
                QCOMPARE(opened->sweepRuns(1).value().value(trial).status, RunStatus::Finished);
    }

    void badSpecsExitTwoAndRecordNothing_data()
    {
        QTest::addColumn<QString>("options");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown node") << "--grid nosuch.lr=0.1,0.2" << "nosuch";
        QTest::newRow("unknown parameter") << "--grid opt.nosuch=1,2" << "nosuch";
        QTest::newRow("value out of range") << "--grid fc1.out_features=8,-1" << "trial 1 (fc1.out_features=-1)";
        QTest::newRow("empty range") << "--random opt.lr=uniform(0.1,0.1)" << "empty range";
        QTest::newRow("bad distribution") << "--random opt.lr=gauss(0,1)" << "unknown distribution";
        QTest::newRow("nothing searched") << "--trials 3" << "nothing to search";
        QTest::newRow("zero trials") << "--random opt.lr=uniform(0,1) --trials 0" << "--trials must be";
        QTest::newRow("bad parallel") << "--grid opt.lr=0.1 --parallel two" << "--parallel must be";
        QTest::newRow("bad rule") << "--grid opt.lr=0.1 --early-stop sometimes" << "unknown rule";
        QTest::newRow("key twice") << "--grid opt.lr=0.1 --random opt.lr=uniform(0,1)" << "searched twice";
        QTest::newRow("swap to a bad block") << "--grid act.block=layer.relu,layer.nosuch" << "layer.nosuch";
        QTest::newRow("draws without a random key") << "--grid opt.lr=0.1,0.2 --trials 3" << "need a random key";
        QTest::newRow("early stop on a test metric") << "--grid opt.lr=0.1 --early-stop median --metric test/accuracy" << "val/ metric";
    }
    void badSpecsExitTwoAndRecordNothing()
    {
        QFETCH(QString, options);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString preset = tytest::writeBlobsPreset(dir, 1);
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const tytest::CliOutput sweep = trainyard(QStringList{QStringLiteral("sweep"), preset, QStringLiteral("--db"), db}
                                                  + options.split(QLatin1Char(' ')));
        QCOMPARE(sweep.code, 2);
        QVERIFY2(sweep.err.contains(message), qPrintable(sweep.err));
        QVERIFY2(!QFile::exists(db), "a refused sweep must not create the database");
    }

    // 24 finished trials whose loss depends on opt.lr alone, and 6 queued: the importance puts opt.lr first, on a log
    // scale, with fc1.out_features near 0; text and JSON agree.
    void showRanksTheParametersByImportance()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const qint64 id = tytest::recordSyntheticSweep(*RunDatabase::open(db).value(), 24, 6);
        QVERIFY(id > 0);
        const QJsonObject importance = showSweep(db, id).value(QStringLiteral("importance")).toObject();
        QCOMPARE(importance.value(QStringLiteral("trials")).toInt(), 24);
        QVERIFY(!importance.contains(QStringLiteral("absent")));
        const QJsonArray parameters = importance.value(QStringLiteral("parameters")).toArray();
        QCOMPARE(parameters.size(), 2);
        const QJsonObject lr = parameters.at(0).toObject(), width = parameters.at(1).toObject();
        QCOMPARE(lr.value(QStringLiteral("key")).toString(), QStringLiteral("opt.lr"));
        QCOMPARE(lr.value(QStringLiteral("scale")).toString(), QStringLiteral("log"));
        QCOMPARE(width.value(QStringLiteral("scale")).toString(), QStringLiteral("linear"));
        QVERIFY2(lr.value(QStringLiteral("importance")).toDouble() > 0.3, qPrintable(QString::number(lr.value(QStringLiteral("importance")).toDouble())));
        QVERIFY(std::abs(width.value(QStringLiteral("importance")).toDouble()) < 0.1);
        QVERIFY(lr.value(QStringLiteral("spread")).toDouble() > 0);
        QVERIFY(lr.value(QStringLiteral("spearman")).isDouble() && width.value(QStringLiteral("spearman")).isDouble());

        const tytest::CliOutput text = trainyard({QStringLiteral("sweeps"), QStringLiteral("show"), QString::number(id), QStringLiteral("--db"), db});
        QCOMPARE(text.code, 0);
        const QString expectedRow = QStringLiteral("%1  %2  %3").arg(QStringLiteral("opt.lr"), -24)
                                        .arg(lr.value(QStringLiteral("importance")).toDouble(), 10, 'f', 3)
                                        .arg(lr.value(QStringLiteral("spread")).toDouble(), 8, 'f', 3);
        QVERIFY2(text.out.contains(QStringLiteral("parameter importance for val/loss")) && text.out.contains(expectedRow)
                     && text.out.indexOf(QStringLiteral("opt.lr  ")) < text.out.indexOf(QStringLiteral("fc1.out_features  ")),
                 qPrintable(text.out));
        // The same figures on the next look: the forest is seeded.
        QCOMPARE(showSweep(db, id).value(QStringLiteral("importance")).toObject(), importance);
    }

    void showSaysWhyImportanceIsAbsent()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const qint64 id = tytest::recordSyntheticSweep(*RunDatabase::open(db).value(), 12, 10);
        QVERIFY(id > 0);
        const QJsonObject importance = showSweep(db, id).value(QStringLiteral("importance")).toObject();
        QCOMPARE(importance.value(QStringLiteral("absent")).toString(),
                 QStringLiteral("importance needs at least 20 finished trials; this sweep has 12"));
        QVERIFY(!importance.contains(QStringLiteral("parameters")));
        const tytest::CliOutput text = trainyard({QStringLiteral("sweeps"), QStringLiteral("show"), QString::number(id), QStringLiteral("--db"), db});
        QVERIFY2(text.out.contains(QStringLiteral("parameter importance: importance needs at least 20 finished trials; this sweep has 12")),
                 qPrintable(text.out));
    }

    void aSweepFileRunsTheSameWay()
    {
        QTemporaryDir dir;
        tytest::writeBlobsPreset(dir, 2);
        const QString file = dir.filePath(QStringLiteral("lr.trainyard-sweep.json"));
        QFile out(file);
        out.open(QIODevice::WriteOnly);
        out.write(R"({"format": "trainyard-sweep", "version": 1, "name": "learning rate", "preset": "blobs.trainyard.json",
                      "grid": {"opt.lr": [0.01, 0.05]}, "metric": "val/accuracy"})");
        out.close();
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const tytest::CliOutput sweep = trainyard({QStringLiteral("sweep"), file, QStringLiteral("--db"), db, QStringLiteral("--quiet")});
        QVERIFY2(sweep.code == 0, qPrintable(sweep.out + sweep.err));
        const QJsonObject json = showSweep(db, 1);
        QCOMPARE(json.value(QStringLiteral("name")).toString(), QStringLiteral("learning rate"));
        QCOMPARE(json.value(QStringLiteral("trials_ended")).toInt(), 2);
        QCOMPARE(json.value(QStringLiteral("preset_file")).toString(), dir.filePath(QStringLiteral("blobs.trainyard.json")));

        // A sweep file with an unknown field is refused, naming it.
        out.open(QIODevice::WriteOnly);
        out.write(R"({"format": "trainyard-sweep", "version": 1, "preset": "blobs.trainyard.json", "grid": {"opt.lr": [0.01]}, "trails": 2})");
        out.close();
        const tytest::CliOutput bad = trainyard({QStringLiteral("sweep"), file, QStringLiteral("--db"), db});
        QCOMPARE(bad.code, 2);
        QVERIFY2(bad.err.contains(QStringLiteral("trails")) && bad.err.contains(file), qPrintable(bad.err));
    }

    void anInterruptedSweepResumesWithoutDuplicateTrials_data()
    {
        QTest::addColumn<int>("signal");
        QTest::newRow("kill -9 of the driver") << int(SIGKILL);
        QTest::newRow("Ctrl-C") << int(SIGINT);
    }
    void anInterruptedSweepResumesWithoutDuplicateTrials()
    {
        QFETCH(int, signal);
        QTemporaryDir dir;
        const QString preset = tytest::writeBlobsPreset(dir, 200);
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        QProcess driver;
        driver.start(QStringLiteral(TRAINYARD_CLI), QStringList{QStringLiteral("sweep"), preset, QStringLiteral("--db"), db}
                                                       + args("--grid opt.lr=0.01,0.02,0.03"));
        QVERIFY(driver.waitForStarted());
        // Wait until trial 0 has ended and trial 1 has trained past its first checkpoint.
        QDeadlineTimer deadline(120000);
        qint64 secondRun = 0;
        while (!deadline.hasExpired() && secondRun == 0) {
            QThread::msleep(20);
            auto opened = RunDatabase::open(db);
            if (!opened)
                continue;
            const QMap<int, RunInfo> runs = opened.value()->sweepRuns(1).value();
            if (runs.value(0).status == RunStatus::Finished && runs.contains(1) && runs.value(1).status == RunStatus::Running
                && !opened.value()->checkpoints(runs.value(1).id).value().isEmpty())
                secondRun = runs.value(1).id;
        }
        QVERIFY2(secondRun != 0, "trial 1 never reached a checkpoint");
        ::kill(pid_t(driver.processId()), signal);
        QVERIFY(driver.waitForFinished(60000));
        if (signal == SIGINT) {
            QCOMPARE(driver.exitCode(), 130);
            QCOMPARE(showSweep(db, 1).value(QStringLiteral("status")).toString(), QStringLiteral("stopped"));
        } else {
            QCOMPARE(showSweep(db, 1).value(QStringLiteral("status")).toString(), QStringLiteral("interrupted"));
        }

        const tytest::CliOutput resumed = trainyard({QStringLiteral("sweep"), QStringLiteral("resume"), QStringLiteral("1"), QStringLiteral("--db"), db});
        QVERIFY2(resumed.code == 0, qPrintable(resumed.out + resumed.err));
        QVERIFY2(resumed.out.contains(QStringLiteral("trial 1 resumes run %1").arg(secondRun)), qPrintable(resumed.out));
        auto opened = RunDatabase::open(db).value();
        const QMap<int, RunInfo> runs = opened->sweepRuns(1).value();
        QCOMPARE(runs.size(), 3);
        QCOMPARE(opened->listRuns().value().size(), 3);  // no trial trained twice
        QCOMPARE(runs.value(1).id, secondRun);
        for (const RunInfo &run : runs)
            QCOMPARE(run.status, RunStatus::Finished);
        // The resumed trial's epochs are each recorded once.
        QCOMPARE(opened->metrics(secondRun, QStringLiteral("val/loss")).value().size(), 200);
        QCOMPARE(showSweep(db, 1).value(QStringLiteral("status")).toString(), QStringLiteral("finished"));
        // A finished sweep is not resumed again.
        QCOMPARE(trainyard({QStringLiteral("sweep"), QStringLiteral("resume"), QStringLiteral("1"), QStringLiteral("--db"), db}).code, 2);
    }
};

class TestCliQueue : public QObject {
    Q_OBJECT

    // The queue's waiting entries, in order, by name.
    static QStringList waiting(const QString &db)
    {
        const tytest::CliOutput list = trainyard({QStringLiteral("queue"), QStringLiteral("list"), QStringLiteral("--db"), db, QStringLiteral("--json")});
        QStringList names;
        for (const QJsonValue &entry : QJsonDocument::fromJson(list.out.toUtf8()).object().value(QStringLiteral("entries")).toArray())
            if (entry.toObject().value(QStringLiteral("state")).toString() == QLatin1String("waiting"))
                names.append(entry.toObject().value(QStringLiteral("name")).toString());
        return names;
    }
    static qint64 entryId(const QString &db, const QString &name)
    {
        const tytest::CliOutput list = trainyard({QStringLiteral("queue"), QStringLiteral("list"), QStringLiteral("--db"), db, QStringLiteral("--json")});
        for (const QJsonValue &entry : QJsonDocument::fromJson(list.out.toUtf8()).object().value(QStringLiteral("entries")).toArray())
            if (entry.toObject().value(QStringLiteral("name")).toString() == name)
                return entry.toObject().value(QStringLiteral("id")).toInteger();
        return 0;
    }
    static QStringList recordedNames(const QString &db)
    {
        QStringList names;
        for (const RunInfo &run : RunDatabase::open(db).value()->listRuns().value())
            names.prepend(run.name);
        return names;
    }

private Q_SLOTS:
    void theQueueRunsUnderItsLimitInItsOrder()
    {
        QTemporaryDir dir;
        const QString preset = tytest::writeBlobsPreset(dir, 3000);
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        QCOMPARE(trainyard({QStringLiteral("queue"), QStringLiteral("limit"), QStringLiteral("1"), QStringLiteral("--db"), db}).code, 0);
        const auto start = [&](QProcess &process, const QString &name, const QStringList &extra = {}) {
            process.start(QStringLiteral(TRAINYARD_CLI), QStringList{QStringLiteral("run"), preset, QStringLiteral("--db"), db,
                                                                      QStringLiteral("--name"), name} + extra);
            QVERIFY(process.waitForStarted());
        };
        QProcess a, b, c, d;
        start(a, QStringLiteral("A"), {QStringLiteral("--quiet")});
        QTRY_VERIFY_WITH_TIMEOUT(!RunDatabase::open(db).value()->listRuns().value().isEmpty(), 60000);
        // B, C and D wait, in the order they came.
        start(b, QStringLiteral("B"), {QStringLiteral("--events")});
        QTRY_COMPARE_WITH_TIMEOUT(waiting(db), QStringList{QStringLiteral("B")}, 30000);
        start(c, QStringLiteral("C"));
        QTRY_COMPARE_WITH_TIMEOUT(waiting(db), (QStringList{"B", "C"}), 30000);
        start(d, QStringLiteral("D"));
        QTRY_COMPARE_WITH_TIMEOUT(waiting(db), (QStringList{"B", "C", "D"}), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(b.bytesAvailable() > 0, 10000);
        const QJsonObject queued = QJsonDocument::fromJson(b.readLine()).object();
        QCOMPARE(queued.value(QStringLiteral("event")).toString(), QStringLiteral("queued"));
        QCOMPARE(queued.value(QStringLiteral("place")).toInt(), 1);
        QCOMPARE(queued.value(QStringLiteral("limit")).toInt(), 1);

        const QString dId = QString::number(entryId(db, QStringLiteral("D")));
        QCOMPARE(trainyard({QStringLiteral("queue"), QStringLiteral("up"), dId, QStringLiteral("--db"), db}).code, 0);
        QCOMPARE(waiting(db), (QStringList{"B", "D", "C"}));
        // Ctrl-C while waiting, and Cancel: each ends with 130 and records nothing.
        ::kill(pid_t(b.processId()), SIGINT);
        QVERIFY(b.waitForFinished(30000));
        QCOMPARE(b.exitCode(), 130);
        QVERIFY(QString::fromUtf8(b.readAllStandardError()).contains(QStringLiteral("stopped while waiting in the run queue")));
        QCOMPARE(trainyard({QStringLiteral("queue"), QStringLiteral("cancel"), QString::number(entryId(db, QStringLiteral("C"))),
                            QStringLiteral("--db"), db}).code, 0);
        QVERIFY(c.waitForFinished(30000));
        QCOMPARE(c.exitCode(), 130);
        QVERIFY(QString::fromUtf8(c.readAllStandardError()).contains(QStringLiteral("cancelled in the run queue")));
        QCOMPARE(waiting(db), QStringList{QStringLiteral("D")});
        QCOMPARE(recordedNames(db), QStringList{QStringLiteral("A")});

        // Start now passes the limit while A still trains.
        QCOMPARE(trainyard({QStringLiteral("queue"), QStringLiteral("start"), dId, QStringLiteral("--db"), db}).code, 0);
        QTRY_COMPARE_WITH_TIMEOUT(recordedNames(db), (QStringList{"A", "D"}), 60000);
        QCOMPARE(a.state(), QProcess::Running);
        ::kill(pid_t(a.processId()), SIGINT);
        ::kill(pid_t(d.processId()), SIGINT);
        QVERIFY(a.waitForFinished(60000));
        QVERIFY(d.waitForFinished(60000));
        QVERIFY(waiting(db).isEmpty());
        QCOMPARE(trainyard({QStringLiteral("queue"), QStringLiteral("cancel"), dId, QStringLiteral("--db"), db}).code, 2);
    }
};

TY_TEST_CLASS(TestCliSweeps)
TY_TEST_CLASS(TestCliQueue)

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    return tytest::runRegisteredTests(argc, argv, "cli_sweeps");
}

#include "test_cli_sweeps.moc"
