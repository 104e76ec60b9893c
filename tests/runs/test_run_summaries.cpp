// The run browser's queries: metric summaries kept by RunWriter (NaN, Inf, ties, several batches, resume),
// run summaries with their filters, incremental metric reads for live plots, the change stamp, renaming, and
// the migration of a version-1 file that already holds metrics.

#include "test_suite.h"
#include "run_database.h"
#include "run_writer.h"
#include "test_runs_support.h"

#include <QtTest>

#include <cmath>
#include <limits>

using namespace ty;
using ty::testing::Fixture;
using ty::testing::kForever;
using ty::testing::RawSqlite;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

MetricPoint point(const QString &name, qint64 step, double value) { return {name, step, 1, double(step), value}; }

// Summaries computed the slow way from the metric rows, for comparison.
QMap<QString, MetricSummary> summariesFromRows(const QList<MetricPoint> &rows)
{
    QMap<QString, MetricSummary> out;
    for (const MetricPoint &p : rows) {  // ordered by name, step, rowid: the last row of a name is its "last"
        MetricSummary &s = out[p.name];
        s.name = p.name;
        ++s.count;
        if (!std::isnan(p.value)) {
            s.minimum = std::isnan(s.minimum) ? p.value : std::min(s.minimum, p.value);
            s.maximum = std::isnan(s.maximum) ? p.value : std::max(s.maximum, p.value);
        }
        s.lastStep = p.step;
        s.last = p.value;
    }
    return out;
}

bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

QString describe(const MetricSummary &s)
{
    return QStringLiteral("%1: n=%2 min=%3 max=%4 last=%5@%6")
        .arg(s.name).arg(s.count).arg(s.minimum).arg(s.maximum).arg(s.last).arg(s.lastStep);
}

// Compares the stored summaries of `id` with those computed from its rows.
bool summariesMatchRows(RunDatabase &db, qint64 id, QString *why)
{
    const QMap<QString, MetricSummary> expected = summariesFromRows(db.metrics(id).value());
    const QList<MetricSummary> stored = db.metricSummaries(id).value();
    if (stored.size() != expected.size()) {
        *why = QStringLiteral("%1 summaries stored, %2 expected").arg(stored.size()).arg(expected.size());
        return false;
    }
    for (const MetricSummary &s : stored) {
        const MetricSummary e = expected.value(s.name);
        if (s.count != e.count || !same(s.minimum, e.minimum) || !same(s.maximum, e.maximum) || s.lastStep != e.lastStep
            || !same(s.last, e.last)) {
            *why = QStringLiteral("stored %1, expected %2").arg(describe(s), describe(e));
            return false;
        }
    }
    return true;
}

} // namespace

class TestRunSummaries : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void writerKeepsSummaries();
    void deleteMetricsAfterRebuildsSummaries();
    void runSummariesRows();
    void runSummariesFilters();
    void metricsAfterIsIncremental();
    void metricsAfterFarBehindCursor();
    void changeStampFollowsRuns();
    void commitStampFollowsEveryCommit();
    void renameRun();
    void migratesVersion1WithMetrics();
    void higherIsBetter_data();
    void higherIsBetter();
};

void TestRunSummaries::writerKeepsSummaries()
{
    Fixture f;
    QVERIFY(f.open());
    const qint64 id = f.newRun();
    RunWriter writer(f.path, id, kForever);
    QVERIFY(writer.start().ok());
    writer.appendMetrics({point("train/loss", 1, 2.5), point("train/loss", 2, kNaN), point("train/loss", 3, 0.75)});
    writer.appendMetric(point("val/accuracy", 3, kNaN));  // only NaN so far: no min, no max
    QVERIFY(writer.flush().ok());
    QString why;
    QVERIFY2(summariesMatchRows(*f.db, id, &why), qPrintable(why));
    // Second batch: a new minimum, an infinite maximum, a tie at step 4 (the later row counts), a row for an
    // earlier step (not the last).
    writer.appendMetrics({point("train/loss", 4, 0.5), point("train/loss", 4, 0.625), point("train/loss", 2, 0.1),
                          point("train/loss", 5, kInf), point("val/accuracy", 6, 0.8), point("val/accuracy", 9, 0.7)});
    QVERIFY(writer.finish(RunStatus::Finished).ok());
    QVERIFY2(summariesMatchRows(*f.db, id, &why), qPrintable(why));

    const QList<MetricSummary> s = f.db->metricSummaries(id).value();
    QCOMPARE(s.size(), 2);
    QCOMPARE(s.at(0).name, QStringLiteral("train/loss"));
    QCOMPARE(s.at(0).count, qint64(7));
    QCOMPARE(s.at(0).minimum, 0.1);
    QCOMPARE(s.at(0).maximum, kInf);
    QCOMPARE(s.at(0).last, kInf);
    QCOMPARE(s.at(0).best(), 0.1);  // a loss: lower is better
    QCOMPARE(s.at(1).name, QStringLiteral("val/accuracy"));
    QCOMPARE(s.at(1).last, 0.7);
    QCOMPARE(s.at(1).lastStep, qint64(9));
    QCOMPARE(s.at(1).best(), 0.8);  // an accuracy: higher is better
}

void TestRunSummaries::deleteMetricsAfterRebuildsSummaries()
{
    Fixture f;
    QVERIFY(f.open());
    const qint64 id = f.newRun();
    RunWriter writer(f.path, id, kForever);
    QVERIFY(writer.start().ok());
    for (int step = 1; step <= 100; ++step)
        writer.appendMetric(point("train/loss", step, 100.0 / step));
    QVERIFY(writer.finish(RunStatus::Interrupted).ok());
    QCOMPARE(f.db->metricSummaries(id).value().at(0).minimum, 1.0);
    QVERIFY(f.db->deleteMetricsAfter(id, 40).ok());
    QString why;
    QVERIFY2(summariesMatchRows(*f.db, id, &why), qPrintable(why));
    const MetricSummary s = f.db->metricSummaries(id).value().at(0);
    QCOMPARE(s.count, qint64(40));
    QCOMPARE(s.minimum, 2.5);
    QCOMPARE(s.lastStep, qint64(40));
    QVERIFY(f.db->deleteMetricsAfter(id, 0).ok());
    QVERIFY(f.db->metricSummaries(id).value().isEmpty());
}

void TestRunSummaries::runSummariesRows()
{
    Fixture f;
    QVERIFY(f.open());
    const qint64 first = f.newRun(QStringLiteral("first"));
    NewRun child = testing::sampleNewRun(QStringLiteral("second"));
    const QJsonObject parent{{QStringLiteral("run"), first}, {QStringLiteral("checkpoint"), QStringLiteral("best")},
                             {QStringLiteral("checkpoint_step"), 3}, {QStringLiteral("sha256"), QStringLiteral("ab12")}};
    child.provenance.insert(QStringLiteral("init_from"), parent);
    const qint64 second = f.db->createRun(child).value();
    QVERIFY(f.db->setTags(first, {QStringLiteral("wide"), QStringLiteral("baseline")}).ok());
    QVERIFY(f.db->setNotes(first, QStringLiteral("the reference")).ok());
    {
        RunWriter writer(f.path, first, kForever);
        QVERIFY(writer.start().ok());
        writer.appendMetrics({point("train/loss", 1, 2.0), point("train/loss", 2, 0.5), point("train/loss", 3, 0.7),
                              point("val/accuracy", 3, 0.9), point("val/loss", 3, 0.4), point("train/lr", 3, 0.1)});
        QVERIFY(writer.finish(RunStatus::Finished).ok());
    }
    const Result<QList<RunSummaryRow>> rows = f.db->runSummaries();
    QVERIFY2(rows.ok(), qPrintable(rows.error().toString()));
    QCOMPARE(rows.value().size(), 2);
    const RunSummaryRow &newest = rows.value().at(0);
    QCOMPARE(newest.id, second);
    QCOMPARE(newest.status, RunStatus::Queued);
    QVERIFY(newest.keyMetrics.isEmpty());
    QVERIFY(std::isnan(newest.durationSeconds()));
    QCOMPARE(newest.parent, parent);  // provenance.init_from: the run it started from
    QCOMPARE(newest.parentRunId(), first);
    const RunSummaryRow &row = rows.value().at(1);
    QCOMPARE(row.id, first);
    QCOMPARE(row.name, QStringLiteral("first"));
    QCOMPARE(row.presetName, QStringLiteral("first"));  // sampleNewRun names the preset like the run
    QCOMPARE(row.status, RunStatus::Finished);
    QVERIFY(row.parent.isEmpty());
    QCOMPARE(row.parentRunId(), qint64(0));
    QCOMPARE(row.tags, (QStringList{QStringLiteral("baseline"), QStringLiteral("wide")}));
    QCOMPARE(row.notes, QStringLiteral("the reference"));
    QCOMPARE(row.device, QStringLiteral("cuda:0"));
    QVERIFY(row.createdAt.isValid() && row.startedAt.isValid() && row.endedAt.isValid());
    QVERIFY(row.durationSeconds() >= 0);
    QCOMPARE(row.keyMetrics.keys(), (QList<QString>{QStringLiteral("train/loss"), QStringLiteral("val/accuracy"),
                                                     QStringLiteral("val/loss")}));  // train/lr is no key metric
    QCOMPARE(row.keyMetrics.value(QStringLiteral("train/loss")).best(), 0.5);
    QCOMPARE(row.keyMetrics.value(QStringLiteral("train/loss")).last, 0.7);
    QCOMPARE(row.keyMetrics.value(QStringLiteral("val/accuracy")).best(), 0.9);
}

void TestRunSummaries::runSummariesFilters()
{
    Fixture f;
    QVERIFY(f.open());
    QList<qint64> ids;
    for (int i = 0; i < 6; ++i)
        ids << f.newRun(QStringLiteral("run %1").arg(i));
    QVERIFY(f.db->setStatus(ids.at(2), RunStatus::Running).ok());
    QVERIFY(f.db->setStatus(ids.at(3), RunStatus::Finished).ok());
    auto idsOf = [&](const RunSummaryQuery &q) {
        QList<qint64> out;
        for (const RunSummaryRow &row : f.db->runSummaries(q).value())
            out << row.id;
        return out;
    };
    QCOMPARE(idsOf({}), (QList<qint64>{ids[5], ids[4], ids[3], ids[2], ids[1], ids[0]}));
    RunSummaryQuery page;
    page.limit = 2;
    QCOMPARE(idsOf(page), (QList<qint64>{ids[5], ids[4]}));
    page.beforeId = ids[4];
    QCOMPARE(idsOf(page), (QList<qint64>{ids[3], ids[2]}));
    RunSummaryQuery after;
    after.afterId = ids[3];
    QCOMPARE(idsOf(after), (QList<qint64>{ids[5], ids[4]}));
    RunSummaryQuery some;
    some.ids = {ids[1], ids[3], 999};
    QCOMPARE(idsOf(some), (QList<qint64>{ids[3], ids[1]}));
    RunSummaryQuery active;
    active.activeOnly = true;  // everything but the finished one is queued or running
    QCOMPARE(idsOf(active), (QList<qint64>{ids[5], ids[4], ids[2], ids[1], ids[0]}));
    active.ids = {ids[2], ids[3]};
    QCOMPARE(idsOf(active), QList<qint64>{ids[2]});
}

void TestRunSummaries::metricsAfterIsIncremental()
{
    Fixture f;
    QVERIFY(f.open());
    const qint64 a = f.newRun(QStringLiteral("a"));
    const qint64 b = f.newRun(QStringLiteral("b"));
    RunWriter writerA(f.path, a, kForever);
    RunWriter writerB(f.path, b, kForever);
    QVERIFY(writerA.start().ok());
    QVERIFY(writerB.start().ok());

    qint64 cursor = -1;
    Result<QList<MetricPoint>> read = f.db->metricsAfter(a, 0, &cursor);
    QVERIFY(read.ok());
    QVERIFY(read.value().isEmpty());
    QCOMPARE(cursor, qint64(0));

    writerA.appendMetrics({point("train/loss", 1, 1.0), point("val/loss", 1, 2.0)});
    writerB.appendMetric(point("train/loss", 1, 9.0));
    QVERIFY(writerA.flush().ok());
    QVERIFY(writerB.flush().ok());
    writerA.appendMetric(point("train/loss", 2, 0.5));
    QVERIFY(writerA.flush().ok());
    read = f.db->metricsAfter(a, cursor, &cursor);
    QCOMPARE(read.value().size(), 3);
    QCOMPARE(read.value().at(0).name, QStringLiteral("train/loss"));  // as written, not by name
    QCOMPARE(read.value().at(1).name, QStringLiteral("val/loss"));
    QCOMPARE(read.value().at(2).value, 0.5);
    QVERIFY(cursor > 0);

    const qint64 before = cursor;
    read = f.db->metricsAfter(a, cursor, &cursor);
    QVERIFY(read.value().isEmpty());
    QCOMPARE(cursor, before);

    writerB.appendMetric(point("train/loss", 2, 8.0));
    writerA.appendMetrics({point("train/loss", 3, 0.25), point("train/loss", 4, kNaN)});
    QVERIFY(writerB.flush().ok());
    QVERIFY(writerA.flush().ok());
    read = f.db->metricsAfter(a, cursor, &cursor);
    QCOMPARE(read.value().size(), 2);
    QCOMPARE(read.value().at(0).step, qint64(3));
    QVERIFY(std::isnan(read.value().at(1).value));
    QCOMPARE(f.db->metricsAfter(b, 0).value().size(), 2);
    QVERIFY(!f.db->metricsAfter(999, 0).ok());
    QVERIFY(writerA.finish(RunStatus::Finished).ok());
    QVERIFY(writerB.finish(RunStatus::Finished).ok());
}

// A cursor far behind the newest row (another run wrote a lot since) takes the run's index instead of walking
// the table: the same rows come back.
void TestRunSummaries::metricsAfterFarBehindCursor()
{
    Fixture f;
    QVERIFY(f.open());
    const qint64 slow = f.newRun(QStringLiteral("slow"));
    const qint64 busy = f.newRun(QStringLiteral("busy"));
    RunWriter slowWriter(f.path, slow, kForever);
    RunWriter busyWriter(f.path, busy, kForever);
    QVERIFY(slowWriter.start().ok());
    QVERIFY(busyWriter.start().ok());
    slowWriter.appendMetric(point("train/loss", 1, 1.0));
    QVERIFY(slowWriter.flush().ok());
    qint64 cursor = 0;
    QCOMPARE(f.db->metricsAfter(slow, 0, &cursor).value().size(), 1);
    QList<MetricPoint> many;
    for (int step = 0; step < 250000; ++step)
        many.append(point("train/loss", step, 0.5));
    busyWriter.appendMetrics(many);
    QVERIFY(busyWriter.finish(RunStatus::Finished).ok());
    slowWriter.appendMetrics({point("train/loss", 2, 0.75), point("train/loss", 3, 0.5)});
    QVERIFY(slowWriter.finish(RunStatus::Finished).ok());
    const qint64 before = cursor;
    const QList<MetricPoint> rows = f.db->metricsAfter(slow, cursor, &cursor).value();
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows.at(0).step, qint64(2));
    QCOMPARE(rows.at(1).step, qint64(3));
    QVERIFY(cursor > before + 250000);
}

void TestRunSummaries::changeStampFollowsRuns()
{
    Fixture f;
    QVERIFY(f.open());
    RunsChangeStamp stamp = f.db->changeStamp().value();
    QCOMPARE(stamp.count, qint64(0));
    auto changed = [&] {
        const RunsChangeStamp now = f.db->changeStamp().value();
        const bool different = now != stamp;
        stamp = now;
        return different;
    };
    QVERIFY(!changed());
    const qint64 id = f.newRun();
    QVERIFY(changed());  // created
    QVERIFY(!changed());
    RunWriter writer(f.path, id, kForever);
    QVERIFY(writer.start().ok());
    QVERIFY(changed());  // started
    QTest::qWait(5);     // heartbeat times have millisecond resolution
    QVERIFY(writer.flush().ok());
    QVERIFY(changed());  // heartbeat
    QVERIFY(writer.finish(RunStatus::Finished).ok());
    QVERIFY(changed());  // ended
    QVERIFY(!changed());
    const qint64 other = f.newRun();
    QVERIFY(changed());
    QVERIFY(f.db->deleteRun(other).ok());
    QVERIFY(changed());  // deleted (the highest id is gone too)
    QVERIFY(f.db->deleteRun(id).ok());
    QVERIFY(changed());
    QCOMPARE(stamp.count, qint64(0));
}

// The app's watcher polls it: it must move with a commit by another connection (a worker's RunWriter, another
// RunDatabase) and by this one, to any table, and stay put while nothing is written.
void TestRunSummaries::commitStampFollowsEveryCommit()
{
    Fixture f;
    QVERIFY(f.open());
    const qint64 id = f.newRun();
    std::unique_ptr<RunDatabase> other = RunDatabase::open(f.path).value();
    CommitStamp stamp = f.db->commitStamp().value();
    auto moved = [&] {
        const CommitStamp now = f.db->commitStamp().value();
        const bool different = now != stamp;
        stamp = now;
        return different;
    };
    QVERIFY(!moved());
    QVERIFY(f.db->listRuns().ok());  // reading is not committing
    QVERIFY(other->run(id).ok());
    QVERIFY(!moved());
    QVERIFY(other->setNotes(id, QStringLiteral("written elsewhere")).ok());  // another connection
    QVERIFY(moved());
    QVERIFY(!moved());
    QVERIFY(other->setMaxRunning(2).ok());  // not the runs table: the changeStamp cannot see it, this must
    QVERIFY(moved());
    RunWriter writer(f.path, id, kForever);  // the worker's own SQLite connection
    QVERIFY(writer.start().ok());
    QVERIFY(moved());
    writer.appendMetric(point("train/loss", 1, 0.5));
    QVERIFY(writer.flush().ok());
    QVERIFY(moved());
    QVERIFY(f.db->renameRun(id, QStringLiteral("renamed here")).ok());  // this connection
    QVERIFY(moved());
    QVERIFY(writer.finish(RunStatus::Finished).ok());
    QVERIFY(moved());
    QVERIFY(!moved());
}

void TestRunSummaries::renameRun()
{
    Fixture f;
    QVERIFY(f.open());
    const qint64 id = f.newRun(QStringLiteral("old"));
    QVERIFY(f.db->renameRun(id, QStringLiteral("  new name ")).ok());
    QCOMPARE(f.db->run(id).value().name, QStringLiteral("new name"));
    QVERIFY(f.db->renameRun(id, QString()).ok());
    QVERIFY(f.db->run(id).value().name.isEmpty());
    const Status missing = f.db->renameRun(999, QStringLiteral("x"));
    QVERIFY(!missing.ok());
    QVERIFY2(missing.error().message.contains(QStringLiteral("no run with id 999")), qPrintable(missing.error().message));
}

// A file written by a build of schema version 1, with metric rows: opening it adds metric_summaries, filled
// from the rows already there.
void TestRunSummaries::migratesVersion1WithMetrics()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("runs.sqlite"));
    {
        RawSqlite raw(path);
        QVERIFY(raw.isOpen());
        for (const QString &statement : runSchemaSteps().at(0).statements)
            QCOMPARE(raw.exec(statement), QString());
        QCOMPARE(raw.exec(QStringLiteral("PRAGMA user_version = 1")), QString());
        QCOMPARE(raw.exec(QStringLiteral("INSERT INTO runs (id, name, status, preset_json) VALUES (1, 'old', 'finished', '{}')")),
                 QString());
        const QString insert = QStringLiteral("INSERT INTO metrics (run_id, name, step, epoch, time, value) VALUES (1, ?, ?, 1, 0, ?)");
        QCOMPARE(raw.exec(insert, {QStringLiteral("val/loss"), 1, 0.5}), QString());
        QCOMPARE(raw.exec(insert, {QStringLiteral("val/loss"), 2, 0.25}), QString());
        QCOMPARE(raw.exec(insert, {QStringLiteral("val/loss"), 3, 0.375}), QString());
        QCOMPARE(raw.exec(insert, {QStringLiteral("test/accuracy"), 3, QVariant()}), QString());  // NaN
    }
    auto opened = RunDatabase::open(path);
    QVERIFY2(opened.ok(), qPrintable(opened.error().toString()));
    QString why;
    QVERIFY2(summariesMatchRows(*opened.value(), 1, &why), qPrintable(why));
    const QList<RunSummaryRow> rows = opened.value()->runSummaries().value();
    QCOMPARE(rows.size(), 1);
    QCOMPARE(rows.at(0).keyMetrics.value(QStringLiteral("val/loss")).best(), 0.25);
    QCOMPARE(rows.at(0).keyMetrics.value(QStringLiteral("val/loss")).last, 0.375);
    QVERIFY(std::isnan(rows.at(0).keyMetrics.value(QStringLiteral("test/accuracy")).best()));
    QVERIFY(rows.at(0).presetName.isEmpty());
    RawSqlite raw(path);
    QCOMPARE(raw.scalar(QStringLiteral("PRAGMA user_version")).toInt(), RunDatabase::kSchemaVersion);
}

void TestRunSummaries::higherIsBetter_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("higher");
    QTest::newRow("accuracy") << "val/accuracy" << true;
    QTest::newRow("top-k") << "test/top5_acc" << true;
    QTest::newRow("f1") << "val/F1" << true;
    QTest::newRow("loss") << "train/loss" << false;
    QTest::newRow("mae") << "val/mae" << false;
    QTest::newRow("lr") << "train/lr" << false;
}

void TestRunSummaries::higherIsBetter()
{
    QFETCH(QString, name);
    QFETCH(bool, higher);
    QCOMPARE(metricHigherIsBetter(name), higher);
}

TY_TEST_CLASS(TestRunSummaries)

#include "test_run_summaries.moc"
