// RunWriter: batching from many threads, flush, heartbeat, events and checkpoints, resume truncation and
// concurrent writers. Faults are in test_run_writer_faults.cpp.

#include "test_suite.h"
#include "run_database.h"
#include "run_liveness.h"
#include "run_writer.h"
#include "test_runs_support.h"

#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <thread>

using namespace ty;
using ty::testing::Fixture;
using ty::testing::kForever;
using ty::testing::RawSqlite;
using ty::testing::valueAt;

class TestRunWriter : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void hundredThousandRowsFromTwoThreads();
    void lastMetricValues_data();
    void lastMetricValues();
    void flushIsSynchronousAndBeatsTheHeart();
    void firstMetricRowsAreWrittenAtOnce();
    void eventsAndCheckpoints();
    void deleteMetricsAfter();
    void stagesAndDroppedCheckpoints();
    void twoWritersOnTwoRuns();
    void heartbeatRevivesItsInterruptedRun();
};

void TestRunWriter::hundredThousandRowsFromTwoThreads()
{
    Fixture f;
    QVERIFY(f.open());
    const qint64 id = f.newRun();
    RunWriter writer(f.path, id, 20);
    const Status started = writer.start();
    QVERIFY2(started.ok(), qPrintable(started.error().toString()));
    {
        const RunInfo running = f.db->run(id).value();
        QCOMPARE(running.status, RunStatus::Running);
        QCOMPARE(running.pid, thisProcessId());
        QCOMPARE(running.host, thisHostName());
        QVERIFY(running.startedAt.isValid());
        QVERIFY(running.heartbeatAt.isValid());
    }

    constexpr int kPerThread = 50000;
    std::thread one([&] {
        for (int step = 0; step < kPerThread; ++step)
            writer.appendMetric({QStringLiteral("train/loss"), step, step / 1000, step * 0.01, valueAt(step)});
    });
    std::thread two([&] {
        for (int chunk = 0; chunk < kPerThread; chunk += 250) {
            QList<MetricPoint> points;
            for (int step = chunk; step < chunk + 250; ++step)
                points.append({QStringLiteral("train/accuracy"), step, step / 1000, step * 0.01, -valueAt(step)});
            writer.appendMetrics(points);
        }
    });
    one.join();
    two.join();
    const Status finished = writer.finish(RunStatus::Finished, QStringLiteral("done"));
    QVERIFY2(finished.ok(), qPrintable(finished.error().toString()));
    QVERIFY(writer.lastError().ok());
    QCOMPARE(writer.rowsWritten(), qint64(2 * kPerThread));
    QCOMPARE(writer.rowsDropped(), qint64(0));

    RawSqlite raw(f.path);
    QCOMPARE(raw.scalar(QStringLiteral("SELECT count(*) FROM metrics WHERE run_id = ?"), {id}).toInt(), 2 * kPerThread);
    const QList<MetricPoint> loss = f.db->metrics(id, QStringLiteral("train/loss")).value();
    QCOMPARE(loss.size(), kPerThread);
    for (int step = 0; step < kPerThread; step += 997) {
        QCOMPARE(loss.at(step).step, qint64(step));
        QCOMPARE(loss.at(step).epoch, step / 1000);
        QCOMPARE(loss.at(step).value, valueAt(step));  // exact, not via text
    }
    const QList<MetricPoint> all = f.db->metrics(id).value();
    QCOMPARE(all.size(), 2 * kPerThread);
    QCOMPARE(all.first().name, QStringLiteral("train/accuracy"));  // ordered by name, then step
    QCOMPARE(all.last().name, QStringLiteral("train/loss"));
    QCOMPARE(all.last().step, qint64(kPerThread - 1));

    const QMap<QString, double> last = f.db->lastMetricValues(id).value();
    QCOMPARE(last.size(), 2);
    QCOMPARE(last.value(QStringLiteral("train/loss")), valueAt(kPerThread - 1));
    QCOMPARE(last.value(QStringLiteral("train/accuracy")), -valueAt(kPerThread - 1));

    const RunInfo run = f.db->run(id).value();
    QCOMPARE(run.status, RunStatus::Finished);
    QCOMPARE(run.statusMessage, QStringLiteral("done"));
    QVERIFY(run.endedAt.isValid());
    QVERIFY(writer.finish(RunStatus::Failed).ok() == false);  // a second finish is refused
    QCOMPARE(f.db->run(id).value().status, RunStatus::Finished);
    writer.appendMetric({QStringLiteral("late"), 1, 0, 0, 1});
    QCOMPARE(writer.rowsDropped(), qint64(1));
}

void TestRunWriter::lastMetricValues_data()
{
    QTest::addColumn<QList<MetricPoint>>("points");
    QTest::addColumn<QString>("name");
    QTest::addColumn<double>("expected");
    const QString m = QStringLiteral("test/accuracy");
    QTest::newRow("highest step wins") << QList<MetricPoint>{{m, 5, 0, 0, 0.5}, {m, 9, 0, 0, 0.9}, {m, 7, 0, 0, 0.7}}
                                       << m << 0.9;
    QTest::newRow("latest row on a tie") << QList<MetricPoint>{{m, 3, 0, 0, 0.1}, {m, 3, 0, 0, 0.2}, {m, 2, 0, 0, 0.3}}
                                         << m << 0.2;
    QTest::newRow("other names do not count")
        << QList<MetricPoint>{{m, 1, 0, 0, 0.4}, {QStringLiteral("train/loss"), 100, 0, 0, 9.0}} << m << 0.4;
    QTest::newRow("NaN survives as NaN") << QList<MetricPoint>{{m, 1, 0, 0, 0.4}, {m, 2, 0, 0, std::nan("")}} << m
                                         << std::nan("");
    QTest::newRow("infinity") << QList<MetricPoint>{{m, 1, 0, 0, HUGE_VAL}} << m << double(HUGE_VAL);
}

void TestRunWriter::lastMetricValues()
{
    QFETCH(QList<MetricPoint>, points);
    QFETCH(QString, name);
    QFETCH(double, expected);
    Fixture f;
    QVERIFY(f.open());
    const qint64 id = f.newRun();
    RunWriter writer(f.path, id, kForever);
    QVERIFY(writer.start().ok());
    for (const MetricPoint &point : points) {
        writer.appendMetric(point);
        QVERIFY(writer.flush().ok());  // one row per transaction: rowid order is append order
    }
    QVERIFY(writer.finish(RunStatus::Finished).ok());
    // One run's query, and the one for every run that `runs list` makes (from the summaries the writer keeps).
    const double value = f.db->lastMetricValues(id).value().value(name);
    const double ofAll = f.db->lastMetricValuesOfRuns().value().value(id).value(name, -1);
    for (double v : {value, ofAll}) {
        if (std::isnan(expected))
            QVERIFY2(std::isnan(v), qPrintable(QString::number(v)));
        else
            QCOMPARE(v, expected);
    }
}

void TestRunWriter::flushIsSynchronousAndBeatsTheHeart()
{
    Fixture f;
    QVERIFY(f.open());
    const qint64 id = f.newRun();
    RunWriter writer(f.path, id, kForever);
    QVERIFY(writer.flush().ok() == false);  // not started yet
    for (int step = 0; step < 10; ++step)
        writer.appendMetric({QStringLiteral("loss"), step, 0, 0, 1.0});  // queued before start
    QVERIFY(writer.start().ok());
    RawSqlite raw(f.path);
    QCOMPARE(raw.exec(QStringLiteral("UPDATE runs SET heartbeat_at = '2000-01-01T00:00:00.000Z' WHERE id = ?"), {id}),
             QString());
    QVERIFY(writer.flush().ok());
    QCOMPARE(f.db->metrics(id).value().size(), 10);
    const QDateTime beat = f.db->run(id).value().heartbeatAt;
    QVERIFY(beat.isValid());
    QVERIFY(beat.date().year() > 2000);

    // A flush with nothing pending still beats the heart.
    QCOMPARE(raw.exec(QStringLiteral("UPDATE runs SET heartbeat_at = '2000-01-01T00:00:00.000Z' WHERE id = ?"), {id}),
             QString());
    QVERIFY(writer.flush().ok());
    QVERIFY(f.db->run(id).value().heartbeatAt.date().year() > 2000);
    QCOMPARE(writer.rowsWritten(), qint64(10));
    QVERIFY(writer.finish(RunStatus::Stopped, QStringLiteral("stopped by the user")).ok());
    QCOMPARE(f.db->run(id).value().status, RunStatus::Stopped);
}

// A live plot shows a run as soon as it logs: the first metric rows do not wait for the flush interval; the
// rows after them do (batching).
void TestRunWriter::firstMetricRowsAreWrittenAtOnce()
{
    Fixture f;
    QVERIFY(f.open());
    const qint64 id = f.newRun();
    RunWriter writer(f.path, id, kForever);
    QVERIFY(writer.start().ok());
    writer.appendEvent({0, 0, QStringLiteral("warning"), QStringLiteral("an event is not a metric")});
    QTest::qWait(200);
    QCOMPARE(writer.rowsWritten(), qint64(0));
    writer.appendMetrics({{QStringLiteral("loss"), 0, 0, 0, 2.0}, {QStringLiteral("accuracy"), 0, 0, 0, 0.1}});
    QTRY_COMPARE_WITH_TIMEOUT(f.db->metrics(id).value().size(), 2, 10000);
    writer.appendMetric({QStringLiteral("loss"), 1, 0, 0, 1.5});
    QTest::qWait(300);
    QCOMPARE(f.db->metrics(id).value().size(), 2);
    QVERIFY(writer.flush().ok());
    QCOMPARE(f.db->metrics(id).value().size(), 3);
    QVERIFY(writer.finish(RunStatus::Finished, QString()).ok());
}

void TestRunWriter::eventsAndCheckpoints()
{
    Fixture f;
    QVERIFY(f.open());
    const qint64 id = f.newRun();
    RunWriter writer(f.path, id, kForever);
    QVERIFY(writer.start().ok());
    const QList<RunEvent> events = {{0, 0.0, QStringLiteral("stage"), QStringLiteral("stage 1: warmup")},
                                    {500, 12.5, QStringLiteral("checkpoint"), QStringLiteral("saved")},
                                    {500, 12.75, QStringLiteral("warning"), QStringLiteral("lr clipped")},
                                    {900, 20.0, QStringLiteral("stage"), QStringLiteral("stage 2: fine-tune")}};
    for (const RunEvent &event : events)
        writer.appendEvent(event);
    writer.recordCheckpoint({500, 1, QStringLiteral("runs/1/step-500.safetensors"), QString()});
    writer.recordCheckpoint({1000, 2, QStringLiteral("runs/1/step-1000.safetensors"), QStringLiteral("ab12")});
    QVERIFY(writer.finish(RunStatus::Finished).ok());
    QCOMPARE(writer.rowsWritten(), qint64(6));

    const QList<RunEvent> read = f.db->events(id).value();
    QCOMPARE(read.size(), events.size());
    for (int i = 0; i < events.size(); ++i) {
        QCOMPARE(read.at(i).step, events.at(i).step);
        QCOMPARE(read.at(i).time, events.at(i).time);
        QCOMPARE(read.at(i).kind, events.at(i).kind);
        QCOMPARE(read.at(i).message, events.at(i).message);
    }
    const QList<CheckpointRecord> checkpoints = f.db->checkpoints(id).value();
    QCOMPARE(checkpoints.size(), 2);
    QCOMPARE(checkpoints.at(1).step, qint64(1000));
    QCOMPARE(checkpoints.at(1).epoch, 2);
    QCOMPARE(checkpoints.at(1).path, QStringLiteral("runs/1/step-1000.safetensors"));
    QCOMPARE(checkpoints.at(1).sha256, QStringLiteral("ab12"));
    QCOMPARE(checkpoints.at(0).sha256, QString());
    RawSqlite raw(f.path);
    QCOMPARE(raw.scalar(QStringLiteral("SELECT count(*) FROM checkpoints WHERE created_at IS NOT NULL")).toInt(), 2);
    QCOMPARE(raw.scalar(QStringLiteral("SELECT count(*) FROM checkpoints WHERE sha256 IS NULL")).toInt(), 1);
}

// Each stage begun ends the one before; a finished run's last stage is ended explicitly; a checkpoint whose file
// was deleted loses its record; a resume to before a stage began drops it and reopens the one it is in.
void TestRunWriter::stagesAndDroppedCheckpoints()
{
    Fixture f;
    QVERIFY(f.open());
    const qint64 id = f.newRun();
    {
        RunWriter writer(f.path, id, kForever);
        QVERIFY(writer.start().ok());
        writer.recordStage({0, QStringLiteral("head"), 0, -1, 0, 2, {QStringLiteral("conv1")}});
        writer.recordCheckpoint({40, 2, QStringLiteral("step-40")});
        writer.recordStage({1, QStringLiteral("all"), 40, -1, 2, 3, {}});
        writer.recordCheckpoint({100, 5, QStringLiteral("step-100")});
        writer.removeCheckpointRecord(QStringLiteral("step-40"));
        writer.recordStage({1, {}, 0, 100});
        QVERIFY(writer.finish(RunStatus::Finished).ok());
    }
    QList<StageRecord> stages = f.db->stages(id).value();
    QCOMPARE(stages.size(), 2);
    QCOMPARE(stages[0].name, QStringLiteral("head"));
    QCOMPARE(stages[0].startStep, qint64(0));
    QCOMPARE(stages[0].endStep, qint64(40));
    QCOMPARE(stages[0].frozen, QStringList{QStringLiteral("conv1")});
    QCOMPARE(stages[1].startStep, qint64(40));
    QCOMPARE(stages[1].endStep, qint64(100));
    QCOMPARE(stages[1].startEpoch, 2);
    QCOMPARE(stages[1].epochs, 3);
    const QList<CheckpointRecord> checkpoints = f.db->checkpoints(id).value();
    QCOMPARE(checkpoints.size(), 1);
    QCOMPARE(checkpoints[0].path, QStringLiteral("step-100"));

    QVERIFY(f.db->deleteMetricsAfter(id, 30).ok());
    stages = f.db->stages(id).value();
    QCOMPARE(stages.size(), 1);
    QCOMPARE(stages[0].endStep, qint64(-1));
}

void TestRunWriter::deleteMetricsAfter()
{
    Fixture f;
    QVERIFY(f.open());
    const qint64 id = f.newRun();
    const qint64 other = f.newRun(QStringLiteral("other"));
    for (qint64 run : {id, other}) {
        RunWriter writer(f.path, run, kForever);
        QVERIFY(writer.start().ok());
        for (int step = 0; step < 100; ++step) {
            writer.appendMetric({QStringLiteral("loss"), step, 0, 0, valueAt(step)});
            writer.appendMetric({QStringLiteral("acc"), step, 0, 0, -valueAt(step)});
            if (step % 10 == 0)
                writer.appendEvent({step, 0, QStringLiteral("epoch"), QString()});
        }
        writer.recordCheckpoint({70, 0, QStringLiteral("best-70"), QStringLiteral("ab"), true});
        writer.recordCheckpoint({80, 0, QStringLiteral("ckpt-80")});
        QVERIFY(writer.finish(RunStatus::Interrupted).ok());
    }
    QVERIFY(f.db->deleteMetricsAfter(id, 49).ok());
    const QList<MetricPoint> points = f.db->metrics(id).value();
    QCOMPARE(points.size(), 100);
    for (const MetricPoint &point : points)
        QVERIFY(point.step <= 49);
    QCOMPARE(f.db->lastMetricValues(id).value().value(QStringLiteral("loss")), valueAt(49));
    QCOMPARE(f.db->events(id).value().size(), 5);              // steps 0, 10, ..., 40
    const QList<CheckpointRecord> kept = f.db->checkpoints(id).value();
    QCOMPARE(kept.size(), 2);                                  // kept
    QVERIFY(kept.at(0).best);                                  // stored as kind "best"
    QCOMPARE(kept.at(0).sha256, QStringLiteral("ab"));
    QVERIFY(!kept.at(1).best);
    QCOMPARE(f.db->metrics(other).value().size(), 200);        // other runs untouched
    QCOMPARE(f.db->events(other).value().size(), 10);
}

void TestRunWriter::twoWritersOnTwoRuns()
{
    Fixture f;
    QVERIFY(f.open());
    const qint64 first = f.newRun(QStringLiteral("first"));
    const qint64 second = f.newRun(QStringLiteral("second"));
    constexpr int kRows = 40000;
    auto feed = [&](qint64 run, Status *result) {
        RunWriter writer(f.path, run, 2);  // tiny interval: as many competing transactions as possible
        Status started = writer.start();
        if (!started.ok()) {
            *result = started;
            return;
        }
        for (int chunk = 0; chunk < kRows; chunk += 100) {
            QList<MetricPoint> points;
            for (int step = chunk; step < chunk + 100; ++step)
                points.append({QStringLiteral("loss"), step, 0, 0, valueAt(step) + run});
            writer.appendMetrics(points);
            if (chunk % 5000 == 0)
                writer.flush();
        }
        *result = writer.finish(RunStatus::Finished);
    };
    Status firstResult = Error{QStringLiteral("not run")}, secondResult = Error{QStringLiteral("not run")};
    std::thread a(feed, first, &firstResult);
    std::thread b(feed, second, &secondResult);
    // Meanwhile this thread reads, as the app would.
    int readsOk = 0;
    for (int i = 0; i < 20; ++i)
        readsOk += f.db->lastMetricValues(first).ok() && f.db->listRuns().ok() ? 1 : 0;
    a.join();
    b.join();
    QCOMPARE(readsOk, 20);
    QVERIFY2(firstResult.ok(), qPrintable(firstResult.error().toString()));
    QVERIFY2(secondResult.ok(), qPrintable(secondResult.error().toString()));
    QCOMPARE(f.db->metrics(first).value().size(), kRows);
    QCOMPARE(f.db->metrics(second).value().size(), kRows);
    QCOMPARE(f.db->lastMetricValues(second).value().value(QStringLiteral("loss")), valueAt(kRows - 1) + second);
}

void TestRunWriter::heartbeatRevivesItsInterruptedRun()
{
    Fixture f;
    QVERIFY(f.open());
    const qint64 id = f.newRun();
    RunWriter writer(f.path, id, kForever);
    QVERIFY(writer.start().ok());
    QVERIFY(f.db->setStatus(id, RunStatus::Interrupted, QStringLiteral("looked dead")).ok());
    QVERIFY(writer.flush().ok());
    const RunInfo run = f.db->run(id).value();
    QCOMPARE(run.status, RunStatus::Running);
    QVERIFY(run.statusMessage.isEmpty());
    QVERIFY(!run.endedAt.isValid());
    QVERIFY(writer.finish(RunStatus::Finished).ok());
}

TY_TEST_CLASS(TestRunWriter)

#include "test_run_writer.moc"
