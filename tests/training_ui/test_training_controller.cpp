// End to end with the real trainyard-cli: TrainingRunController trains a tiny synthetic preset to the end and
// the run is in the database, finished, with its metrics; stop (SIGINT) ends a run as stopped with a
// checkpoint and resume continues it; pause and continue; a killed worker leaves its run interrupted; bad input
// is rejected with the node to blame; TrainingPanel trains two runs side by side and plots them.

#include "test_suite.h"
#include "plots/metric_plot.h"
#include "run_database.h"
#include "run_process_state.h"
#include "runs/run_browser.h"
#include "runs/runs_table_model.h"
#include "training/training_panel.h"
#include "training/training_run_controller.h"
#include "training_ui_support.h"

#include <QDir>
#include <QFile>
#include <QJsonObject>
#include <QSignalSpy>
#include <QtTest>

#include <utility>

using namespace ty;

namespace {

constexpr int kRunTimeoutMs = 180 * 1000;  // generous: a loaded machine, LibTorch starting up

std::unique_ptr<RunDatabase> openDb(const QString &path)
{
    auto opened = RunDatabase::open(path);
    return opened.ok() ? std::move(opened.value()) : nullptr;
}

} // namespace

class TestTrainingController : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void trainsTinyRunToTheEnd();
    void stopThenResume();
    void pauseAndContinue();
    void twoProcessesPauseTogetherAndResumeAsTwo();
    void killedWorkerLeavesRunInterrupted();
    void badInputIsRejectedWithItsNode();
    void missingWorkerIsAnError();
    void panelTrainsTwoRunsAndPlotsThem();
    void etaIsKnownFromTheFirstMetricsOfTheFirstEpoch();
};

// A worker (a shell script standing in for trainyard-cli) that starts a run of 100 steps, reads its first metrics
// at step 10 of epoch 1 after about 0.4 s, then goes on quietly: the ETA is known from that one read, from the
// steps done since "started" and the time they took (about 0.04 s a step, so 90 steps left take about 3.6 s).
void TestTrainingController::etaIsKnownFromTheFirstMetricsOfTheFirstEpoch()
{
    tytest::RunsFixture runs;
    QVERIFY(runs.open());
    const QString worker = runs.dir.filePath(QStringLiteral("fake-worker.sh"));
    {
        QFile script(worker);
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("#!/bin/sh\n"
                     "echo '{\"event\":\"started\",\"run_id\":7,\"device\":\"cpu\",\"steps_per_epoch\":50,\"total_steps\":100,"
                     "\"epochs\":2,\"resumed_at_step\":-1}'\n"
                     "sleep 0.4\n"
                     "echo '{\"event\":\"metrics\",\"columns\":[\"name\",\"step\",\"epoch\",\"time\",\"value\"],"
                     "\"rows\":[[\"train/loss\",10,1,0.4,1.5]]}'\n"
                     "exec sleep 60\n");
        script.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    }
    TrainingRunController controller;
    controller.setWorkerPath(worker);
    QVERIFY(controller.start(tytest::tinyPreset(), runs.path).ok());
    QSignalSpy metrics(&controller, &TrainingRunController::metricsReceived);
    QVERIFY(metrics.wait(20000));
    QCOMPARE(controller.epoch(), 1);
    QCOMPARE(controller.step(), qint64(10));
    const double eta = controller.etaSeconds();
    QVERIFY2(eta > 0.9 && eta < 30, qPrintable(QString::number(eta)));
    QVERIFY2(controller.statusLine().contains(QStringLiteral("ETA")), qPrintable(controller.statusLine()));
    controller.kill();
    QSignalSpy ended(&controller, &TrainingRunController::finished);
    QVERIFY(ended.count() > 0 || ended.wait(20000));
}

void TestTrainingController::trainsTinyRunToTheEnd()
{
    QTemporaryDir dir;
    const QString dbPath = dir.filePath(QStringLiteral("runs.sqlite"));
    TrainingRunController controller;
    controller.setWorkerPath(tytest::workerPath());
    QSignalSpy finished(&controller, &TrainingRunController::finished);
    QSignalSpy started(&controller, &TrainingRunController::runStarted);
    QSignalSpy metrics(&controller, &TrainingRunController::metricsReceived);
    QSignalSpy epochs(&controller, &TrainingRunController::epochEnded);
    QSignalSpy checkpoints(&controller, &TrainingRunController::checkpointWritten);
    const Status status = controller.start(tytest::tinyPreset(2), dbPath);
    QVERIFY2(status.ok(), qPrintable(status.error().toString()));
    QVERIFY(controller.isActive());
    const QString snapshot = controller.snapshotPath();
    QVERIFY2(snapshot.startsWith(QDir(dir.path()).filePath(QStringLiteral("snapshots/"))), qPrintable(snapshot));
    QVERIFY(QFileInfo::exists(snapshot));

    QVERIFY2(finished.wait(kRunTimeoutMs), qPrintable(controller.stderrTail()));
    const TrainingOutcome outcome = controller.outcome();
    QVERIFY2(outcome.status == QLatin1String("finished"), qPrintable(outcome.status + QStringLiteral(": ") + outcome.message
                                                                    + QStringLiteral("\n") + controller.stderrTail()));
    QCOMPARE(outcome.exitCode, 0);
    QCOMPARE(controller.state(), TrainingState::Ended);
    QCOMPARE(started.size(), 1);
    const qint64 id = started.at(0).at(0).toLongLong();
    QVERIFY(id > 0);
    QCOMPARE(controller.runId(), id);
    QVERIFY(metrics.size() >= 1);
    QCOMPARE(epochs.size(), 2);
    QVERIFY(checkpoints.size() >= 1);
    QCOMPARE(controller.startInfo().epochs, 2);
    QVERIFY(controller.totalSteps() > 0);
    QCOMPARE(controller.step(), controller.totalSteps());
    QVERIFY(controller.lastMetrics().contains(QStringLiteral("test/accuracy")));
    QVERIFY(!QFileInfo::exists(snapshot));  // the snapshot is cleaned up

    auto db = openDb(dbPath);
    QVERIFY(db);
    const RunInfo info = db->run(id).value();
    QCOMPARE(info.status, RunStatus::Finished);
    QCOMPARE(info.name, QStringLiteral("tiny blobs"));
    QCOMPARE(info.preset.value(QStringLiteral("name")).toString(), QStringLiteral("tiny blobs"));
    const QList<MetricPoint> loss = db->metrics(id, QStringLiteral("train/loss")).value();
    QCOMPARE(qint64(loss.size()), controller.totalSteps());  // one row per step
    QCOMPARE(db->metrics(id, QStringLiteral("val/accuracy")).value().size(), 2);
    QVERIFY(db->lastMetricValues(id).value().contains(QStringLiteral("test/accuracy")));
    QVERIFY(!db->checkpoints(id).value().isEmpty());
    const QList<RunSummaryRow> rows = db->runSummaries().value();
    QCOMPARE(rows.size(), 1);
    QVERIFY(rows.first().keyMetrics.contains(QStringLiteral("val/accuracy")));
}

void TestTrainingController::stopThenResume()
{
    QTemporaryDir dir;
    const QString dbPath = dir.filePath(QStringLiteral("runs.sqlite"));
    qint64 id = 0;
    {
        TrainingRunController controller;
        controller.setWorkerPath(tytest::workerPath());
        QSignalSpy finished(&controller, &TrainingRunController::finished);
        bool asked = false;  // once: a second stop() would kill the worker
        connect(&controller, &TrainingRunController::metricsReceived, &controller, [&] {
            if (!std::exchange(asked, true))
                controller.stop();
        });
        QVERIFY(controller.start(tytest::tinyPreset(5000), dbPath).ok());
        QVERIFY2(finished.wait(kRunTimeoutMs), qPrintable(controller.stderrTail()));
        QCOMPARE(controller.outcome().status, QStringLiteral("stopped"));
        QCOMPARE(controller.outcome().exitCode, 130);
        id = controller.runId();
        QVERIFY(controller.step() < controller.totalSteps());
    }
    auto db = openDb(dbPath);
    QCOMPARE(db->run(id).value().status, RunStatus::Stopped);
    const QList<CheckpointRecord> checkpoints = db->checkpoints(id).value();
    QVERIFY(!checkpoints.isEmpty());
    const qint64 checkpointStep = checkpoints.last().step;

    TrainingRunController resumed;
    resumed.setWorkerPath(tytest::workerPath());
    QSignalSpy started(&resumed, &TrainingRunController::runStarted);
    QSignalSpy finished(&resumed, &TrainingRunController::finished);
    bool asked = false;
    connect(&resumed, &TrainingRunController::metricsReceived, &resumed, [&] {
        if (!std::exchange(asked, true))
            resumed.stop();
    });
    QVERIFY(resumed.resume(id, dbPath).ok());
    QVERIFY2(finished.wait(kRunTimeoutMs), qPrintable(resumed.stderrTail()));
    QCOMPARE(started.size(), 1);
    QCOMPARE(started.at(0).at(0).toLongLong(), id);
    QCOMPARE(resumed.startInfo().resumedAtStep, checkpointStep);
    QCOMPARE(resumed.outcome().status, QStringLiteral("stopped"));
    QVERIFY(resumed.step() > checkpointStep);
    QCOMPARE(db->run(id).value().status, RunStatus::Stopped);
}

void TestTrainingController::pauseAndContinue()
{
    QTemporaryDir dir;
    TrainingRunController controller;
    controller.setWorkerPath(tytest::workerPath());
    QSignalSpy finished(&controller, &TrainingRunController::finished);
    QSignalSpy metrics(&controller, &TrainingRunController::metricsReceived);
    QVERIFY(controller.start(tytest::tinyPreset(5000), dir.filePath(QStringLiteral("runs.sqlite"))).ok());
    QVERIFY2(metrics.wait(kRunTimeoutMs), qPrintable(controller.stderrTail()));
    const qint64 pid = controller.processId();
    QVERIFY(pid > 0);
    controller.pause();
    QCOMPARE(controller.state(), TrainingState::Paused);
    QTRY_VERIFY_WITH_TIMEOUT(processIsSuspended(pid), 10000);
    controller.continueRun();
    QCOMPARE(controller.state(), TrainingState::Running);
    QTRY_VERIFY_WITH_TIMEOUT(!processIsSuspended(pid), 10000);
    controller.pause();
    QTRY_VERIFY_WITH_TIMEOUT(processIsSuspended(pid), 10000);
    controller.stop();  // a paused worker is woken to write its checkpoint
    QCOMPARE(controller.state(), TrainingState::Stopping);
    QVERIFY2(finished.wait(kRunTimeoutMs), qPrintable(controller.stderrTail()));
    QCOMPARE(controller.outcome().status, QStringLiteral("stopped"));
}

// processes: 2 in the app: the worker is rank 0 and starts rank 1 (trainyard-cli run --nproc 2); Pause stops
// both, Continue continues both, Stop ends the run stopped, and Resume starts two processes again.
void TestTrainingController::twoProcessesPauseTogetherAndResumeAsTwo()
{
    QTemporaryDir dir;
    const QString dbPath = dir.filePath(QStringLiteral("runs.sqlite"));
    TrainingRunController controller;
    controller.setWorkerPath(tytest::workerPath());
    QSignalSpy finished(&controller, &TrainingRunController::finished);
    QSignalSpy metrics(&controller, &TrainingRunController::metricsReceived);
    TrainingOptions options;
    options.processes = 2;
    QVERIFY(controller.start(tytest::tinyPreset(5000), dbPath, options).ok());
    QVERIFY2(metrics.wait(kRunTimeoutMs), qPrintable(controller.stderrTail()));
    const qint64 pid = controller.processId();
    // Rank 1 is the worker's child.
    const QList<qint64> children = childProcesses(pid);
    const qint64 rank1 = children.size() == 1 ? children.first() : 0;
    QVERIFY2(rank1 > 0, "rank 1 is not a child of the worker");
    controller.pause();
    QTRY_VERIFY_WITH_TIMEOUT(processIsSuspended(pid), 10000);
    QTRY_VERIFY_WITH_TIMEOUT(processIsSuspended(rank1), 10000);
    controller.continueRun();
    QTRY_VERIFY_WITH_TIMEOUT(!processIsSuspended(pid) && !processIsSuspended(rank1), 10000);
    controller.stop();
    QVERIFY2(finished.wait(kRunTimeoutMs), qPrintable(controller.stderrTail()));
    QCOMPARE(controller.outcome().status, QStringLiteral("stopped"));
    const qint64 id = controller.runId();
    {
        auto db = openDb(dbPath);
        QCOMPARE(db->run(id).value().provenance.value(QStringLiteral("distributed")).toObject().value(QStringLiteral("world_size")).toInt(), 2);
    }
    // Resumed with as many processes as it trained with (a resume of one would be refused).
    TrainingRunController resumed;
    resumed.setWorkerPath(tytest::workerPath());
    QSignalSpy resumedMetrics(&resumed, &TrainingRunController::metricsReceived);
    QSignalSpy resumedFinished(&resumed, &TrainingRunController::finished);
    QVERIFY(resumed.resume(id, dbPath, QString(), 2).ok());
    QVERIFY2(resumedMetrics.wait(kRunTimeoutMs), qPrintable(resumed.stderrTail()));
    resumed.stop();
    QVERIFY2(resumedFinished.wait(kRunTimeoutMs), qPrintable(resumed.stderrTail()));
    QCOMPARE(resumed.outcome().status, QStringLiteral("stopped"));
}

void TestTrainingController::killedWorkerLeavesRunInterrupted()
{
    QTemporaryDir dir;
    const QString dbPath = dir.filePath(QStringLiteral("runs.sqlite"));
    TrainingRunController controller;
    controller.setWorkerPath(tytest::workerPath());
    QSignalSpy finished(&controller, &TrainingRunController::finished);
    QSignalSpy metrics(&controller, &TrainingRunController::metricsReceived);
    QVERIFY(controller.start(tytest::tinyPreset(5000), dbPath).ok());
    QVERIFY2(metrics.wait(kRunTimeoutMs), qPrintable(controller.stderrTail()));
    controller.kill();
    QVERIFY(finished.wait(kRunTimeoutMs));
    QCOMPARE(controller.outcome().status, QStringLiteral("interrupted"));
    QVERIFY(controller.outcome().crashed);
    QVERIFY(controller.outcome().message.contains(QStringLiteral("resumed")));
    // Marked at once, not after the heartbeat goes stale.
    auto db = openDb(dbPath);
    QCOMPARE(db->run(controller.runId()).value().status, RunStatus::Interrupted);
}

void TestTrainingController::badInputIsRejectedWithItsNode()
{
    QTemporaryDir dir;
    const QString dbPath = dir.filePath(QStringLiteral("runs.sqlite"));
    TrainingRunController controller;
    controller.setWorkerPath(tytest::workerPath());
    QSignalSpy finished(&controller, &TrainingRunController::finished);
    QSignalSpy nodeErrors(&controller, &TrainingRunController::nodeErrorReported);
    QVERIFY(controller.start(tytest::brokenPreset(), dbPath).ok());
    QVERIFY(finished.wait(kRunTimeoutMs));
    const TrainingOutcome outcome = controller.outcome();
    QCOMPARE(outcome.status, QStringLiteral("rejected"));
    QCOMPARE(outcome.exitCode, 2);
    QVERIFY(!outcome.errors.isEmpty());
    QVERIFY2(!outcome.node.isEmpty(), qPrintable(outcome.message));
    QVERIFY(nodeErrors.size() >= 1);
    QCOMPARE(nodeErrors.at(0).at(0).toString(), outcome.errors.first().node);
    QCOMPARE(controller.runId(), qint64(0));
    auto db = openDb(dbPath);
    QVERIFY(db->listRuns().value().isEmpty());  // nothing recorded
}

void TestTrainingController::missingWorkerIsAnError()
{
    QTemporaryDir dir;
    TrainingRunController controller;
    controller.setWorkerPath(dir.filePath(QStringLiteral("no-such-trainyard-cli")));
    const Status status = controller.start(tytest::tinyPreset(), dir.filePath(QStringLiteral("runs.sqlite")));
    QVERIFY(!status.ok());
    QVERIFY(status.error().message.contains(QStringLiteral("no-such-trainyard-cli")));
    QCOMPARE(controller.state(), TrainingState::Idle);
    QVERIFY(QDir(dir.filePath(QStringLiteral("snapshots"))).isEmpty());  // the snapshot was removed again
}

void TestTrainingController::panelTrainsTwoRunsAndPlotsThem()
{
    QTemporaryDir dir;
    const QString dbPath = dir.filePath(QStringLiteral("runs.sqlite"));
    TrainingPanel panel;
    panel.resize(1200, 900);
    panel.setWorkerPath(tytest::workerPath());
    QVERIFY(panel.openDatabase(dbPath).ok());
    QSignalSpy finished(&panel, &TrainingPanel::runFinished);
    Preset second = tytest::tinyPreset(3);
    second.name = QStringLiteral("second variant");
    QVERIFY(panel.startTraining(tytest::tinyPreset(2)).ok());
    QVERIFY(panel.startTraining(second).ok());  // side by side
    QCOMPARE(panel.controllers().size(), 2);
    QVERIFY(panel.hasActiveRuns());
    QTRY_VERIFY_WITH_TIMEOUT(finished.size() == 2, kRunTimeoutMs);
    QVERIFY(!panel.hasActiveRuns());
    QList<qint64> ids;
    for (const QList<QVariant> &args : std::as_const(finished)) {
        QCOMPARE(args.at(1).toString(), QStringLiteral("finished"));
        ids << args.at(0).toLongLong();
    }
    QVERIFY(ids.at(0) != ids.at(1));
    // Both are plotted with every training step, and listed finished in the browser.
    auto db = openDb(dbPath);
    for (qint64 id : ids) {
        QVERIFY(panel.plottedRuns().contains(id));
        const int steps = int(db->metrics(id, QStringLiteral("train/loss")).value().size());
        QVERIFY(steps > 0);
        QTRY_COMPARE_WITH_TIMEOUT(panel.lossPlot()->graphPointCount(id, QStringLiteral("train/loss")), steps, 10000);
        QVERIFY(panel.metricPlot()->graphPointCount(id, QStringLiteral("val/accuracy")) > 0);
        const int row = panel.browser()->model()->rowOfRun(id);
        QVERIFY(row >= 0);
        QCOMPARE(panel.browser()->model()->runAt(row).status, RunStatus::Finished);
    }
    QVERIFY(panel.lossPlot()->runColor(ids.at(0)) != panel.lossPlot()->runColor(ids.at(1)));
    QCOMPARE(panel.metricPlot()->runColor(ids.at(0)), panel.lossPlot()->runColor(ids.at(0)));
}

TY_TEST_CLASS(TestTrainingController)

#include "test_training_controller.moc"
