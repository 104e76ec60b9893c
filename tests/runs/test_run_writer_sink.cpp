// RunWriter's metric sink (the live TensorBoard file's feed): every metric row committed after it is set, in order,
// right after its commit; a sink that fails is called no more, its error becomes one `warning` event, and the run
// and its rows go on as without it.

#include "test_suite.h"
#include "run_database.h"
#include "run_writer.h"
#include "test_runs_support.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <atomic>

using namespace ty;
using ty::testing::Fixture;
using ty::testing::kForever;

namespace {

QList<MetricPoint> rowsFrom(int first, int count)
{
    QList<MetricPoint> rows;
    for (int step = first; step < first + count; ++step)
        rows.append({step % 7 == 0 ? QStringLiteral("val/loss") : QStringLiteral("train/loss"), step, step / 100, step * 0.01,
                     1.0 / step});
    return rows;
}

QList<RunEvent> warnings(const Fixture &f, qint64 id)
{
    QList<RunEvent> found;
    for (const RunEvent &event : f.db->events(id).value())
        if (event.kind == QStringLiteral("warning"))
            found << event;
    return found;
}

} // namespace

class TestRunWriterSink : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // Rows committed before the sink is set are not given to it; those after are, each batch once, in order, and
    // only once committed; together they are the run's rows after the first flush.
    void sinkGetsTheCommittedRowsInOrder()
    {
        Fixture f;
        QVERIFY(f.open());
        const qint64 id = f.newRun();
        RunWriter writer(f.path, id, 20);
        QVERIFY(writer.start().ok());
        writer.appendMetrics(rowsFrom(1, 100));
        QVERIFY(writer.flush().ok());
        std::vector<MetricPoint> seen;
        int calls = 0;
        std::atomic<bool> aheadOfTheDatabase{false};
        writer.setMetricSink([&](const std::vector<MetricPoint> &rows) {
            ++calls;
            seen.insert(seen.end(), rows.begin(), rows.end());
            if (writer.rowsWritten() < qint64(100 + seen.size()))
                aheadOfTheDatabase = true;
            return Status::success();
        });
        for (int chunk = 101; chunk < 3101; chunk += 500) {
            writer.appendMetrics(rowsFrom(chunk, 500));
            if (chunk == 1101)
                QVERIFY(writer.flush().ok());
        }
        QVERIFY(writer.finish(RunStatus::Finished).ok());
        QVERIFY(!aheadOfTheDatabase);
        QVERIFY2(calls >= 2, qPrintable(QString::number(calls)));
        QVERIFY(writer.sinkError().ok());
        const QList<MetricPoint> stored = f.db->metrics(id, QString()).value();
        QCOMPARE(stored.size(), 3100);
        QList<MetricPoint> after;
        for (const MetricPoint &row : stored)
            if (row.step > 100)
                after << row;
        std::sort(after.begin(), after.end(), [](const MetricPoint &a, const MetricPoint &b) { return a.step < b.step; });
        QCOMPARE(int(seen.size()), after.size());
        for (int i = 0; i < after.size(); ++i) {
            QCOMPARE(seen[size_t(i)].step, after[i].step);
            QCOMPARE(seen[size_t(i)].name, after[i].name);
            QCOMPARE(seen[size_t(i)].value, after[i].value);
            QCOMPARE(seen[size_t(i)].time, after[i].time);
        }
        QVERIFY(warnings(f, id).isEmpty());
    }

    // A sink that fails (a full disk) is not called again; the run records one warning with its error, at the last
    // row it was given, keeps every row, and finishes as it would have.
    void failingSinkStopsAndTheRunGoesOn()
    {
        Fixture f;
        QVERIFY(f.open());
        const qint64 id = f.newRun();
        RunWriter writer(f.path, id, kForever);
        QVERIFY(writer.start().ok());
        int calls = 0;
        qint64 lastGiven = -1;
        writer.setMetricSink([&](const std::vector<MetricPoint> &rows) -> Status {
            lastGiven = rows.back().step;
            if (++calls == 2)
                return Error::inFile(QStringLiteral("/board/events"), QStringLiteral("cannot write: No space left on device"));
            return Status::success();
        });
        for (int batch = 0; batch < 4; ++batch) {
            writer.appendMetrics(rowsFrom(1 + batch * 50, 50));
            QVERIFY(writer.flush().ok());
        }
        QVERIFY(writer.finish(RunStatus::Finished, QStringLiteral("done")).ok());
        QCOMPARE(calls, 2);
        QCOMPARE(lastGiven, qint64(100));
        QVERIFY(!writer.sinkError().ok());
        QVERIFY(writer.sinkError().error().message.contains(QStringLiteral("No space left")));
        const RunInfo run = f.db->run(id).value();
        QCOMPARE(run.status, RunStatus::Finished);
        QCOMPARE(f.db->metrics(id, QString()).value().size(), 200);
        const QList<RunEvent> warned = warnings(f, id);
        QCOMPARE(warned.size(), 1);
        QCOMPARE(warned.first().step, qint64(100));
        QVERIFY2(warned.first().message.contains(QStringLiteral("/board/events")) && warned.first().message.contains(QStringLiteral("No space left")),
                 qPrintable(warned.first().message));
    }

    // When the sink fails on the batch finish() commits, its warning is still recorded before the final status.
    void sinkFailingAtTheEndIsStillRecorded()
    {
        Fixture f;
        QVERIFY(f.open());
        const qint64 id = f.newRun();
        RunWriter writer(f.path, id, kForever);
        QVERIFY(writer.start().ok());
        writer.setMetricSink([](const std::vector<MetricPoint> &) -> Status { return Error(QStringLiteral("the disk is full")); });
        writer.appendMetrics(rowsFrom(1, 30));
        QVERIFY(writer.finish(RunStatus::Stopped).ok());
        QCOMPARE(writer.rowsDropped(), qint64(0));
        QCOMPARE(f.db->run(id).value().status, RunStatus::Stopped);
        QCOMPARE(f.db->metrics(id, QString()).value().size(), 30);
        const QList<RunEvent> warned = warnings(f, id);
        QCOMPARE(warned.size(), 1);
        QCOMPARE(warned.first().message, QStringLiteral("the disk is full"));
    }
};

TY_TEST_CLASS(TestRunWriterSink)
#include "test_run_writer_sink.moc"
