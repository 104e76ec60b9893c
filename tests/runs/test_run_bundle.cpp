// Run bundles by round trip: runs, a sweep with its trials and a run started from another are exported from one
// database and imported into another that already has runs (so ids clash and are renumbered); every record and
// row is then compared with the source's, by uuid, the links are checked to point at the right runs, a second
// import adds nothing, and damaged or altered bundles are refused whole, leaving the database as it was.

#include "test_suite.h"
#include "test_runs_support.h"

#include "run_bundle_export.h"
#include "run_bundle_file.h"
#include "run_bundle_import.h"
#include "run_writer.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QtEndian>
#include <QtTest>

#include <functional>

#include <cmath>
#include <limits>

using namespace ty;
using namespace ty::testing;

namespace {

struct SourceRuns {
    qint64 parent = 0, child = 0, trial0 = 0, trial1 = 0, sweep = 0;
};

QByteArray fileBytes(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// A finished run with metric rows (NaN and infinite values among them), events, a stage, a checkpoint file in its
// folder, tags, notes and an evaluation.
qint64 trainedRun(Fixture &f, const NewRun &newRun, int rows)
{
    const qint64 id = f.db->createRun(newRun).value();
    RunWriter writer(f.path, id, kForever);
    if (!writer.start().ok())
        return 0;
    writer.recordStage(StageRecord{0, QStringLiteral("warm-up"), 0, -1, 0, 2, {QStringLiteral("conv1")}});
    for (int step = 1; step <= rows; ++step) {
        writer.appendMetric(MetricPoint{QStringLiteral("train/loss"), step, step / 10, step * 0.01, valueAt(step)});
        if (step % 10 == 0)
            writer.appendMetric(MetricPoint{QStringLiteral("val/accuracy"), step, step / 10, step * 0.01,
                                            step == 20 ? std::nan("") : step == 30 ? std::numeric_limits<double>::infinity() : valueAt(step) / 100});
    }
    writer.appendEvent(RunEvent{5, 0.05, QStringLiteral("warning"), QStringLiteral("loss spiked ✓")});
    const QString folder = f.db->run(id).value().folder + QStringLiteral("/checkpoints");
    QDir().mkpath(folder);
    const QString checkpoint = folder + QStringLiteral("/step-%1.safetensors").arg(rows, 8, 10, QLatin1Char('0'));
    QFile file(checkpoint);
    file.open(QIODevice::WriteOnly);
    const QByteArray bytes = QByteArray("weights of run ") + QByteArray::number(id) + QByteArray(5000, char(id));
    file.write(bytes);
    file.close();
    writer.recordCheckpoint(CheckpointRecord{rows, rows / 10, checkpoint,
                                             QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex()), true});
    writer.recordStage(StageRecord{0, QStringLiteral("warm-up"), 0, rows, 0, 2, {QStringLiteral("conv1")}});
    if (!writer.finish(RunStatus::Finished, QStringLiteral("done")).ok())
        return 0;
    f.db->setTags(id, {QStringLiteral("baseline"), QStringLiteral("ü-tag")});
    f.db->setNotes(id, QStringLiteral("notes of %1\nsecond line").arg(id));
    EvaluationRecord evaluation;
    evaluation.runId = id;
    evaluation.split = QStringLiteral("test");
    evaluation.checkpointStep = rows;
    evaluation.task = QStringLiteral("classification");
    evaluation.sampleCount = 3;
    evaluation.accuracy = 2.0 / 3;
    evaluation.summary = QJsonObject{{QStringLiteral("accuracy"), 2.0 / 3}};
    f.db->addEvaluation(evaluation, {{0, 1, 1, 0.9}, {1, 0, 2, 0.6}, {7, 2, 2, std::nan("")}});
    return id;
}

SourceRuns makeSource(Fixture &f)
{
    SourceRuns s;
    f.newRun(QStringLiteral("not exported"));
    s.parent = trainedRun(f, sampleNewRun(QStringLiteral("parent")), 120);
    NewRun child = sampleNewRun(QStringLiteral("child"));
    child.provenance.insert(QStringLiteral("init_from"), QJsonObject{{QStringLiteral("run"), double(s.parent)},
                                                                     {QStringLiteral("checkpoint"), QStringLiteral("last")}});
    s.child = trainedRun(f, child, 40);
    s.sweep = f.db->createSweep(sampleNewSweep()).value();
    for (int trial = 0; trial < 2; ++trial) {
        NewRun run = sampleNewRun(QStringLiteral("trial %1").arg(trial));
        run.sweepId = s.sweep;
        run.sweepTrial = trial;
        (trial == 0 ? s.trial0 : s.trial1) = trainedRun(f, run, 30 + trial);
    }
    f.db->setSweepBestRun(s.sweep, s.trial1);
    f.db->setSweepStatus(s.sweep, QStringLiteral("finished"));
    return s;
}

qint64 idOf(RunDatabase &db, const QString &uuid)
{
    for (const RunInfo &run : db.listRuns().value()) {
        if (run.uuid == uuid)
            return run.id;
    }
    return 0;
}

qint64 countRows(const QString &path, const QString &table)
{
    RawSqlite raw(path);
    return raw.scalar(QStringLiteral("SELECT count(*) FROM %1").arg(table)).toLongLong();
}

// Every row of `table` in the file, as text, to see that a refused import changed nothing.
QStringList allRows(const QString &path)
{
    QStringList rows;
    RawSqlite raw(path);
    for (const QString &table : raw.tables()) {
        rows << table + QLatin1Char('=') + raw.scalar(QStringLiteral("SELECT count(*) FROM %1").arg(table)).toString();
    }
    return rows;
}

void compareRun(RunDatabase &from, qint64 a, RunDatabase &to, qint64 b)
{
    const RunInfo x = from.run(a).value(), y = to.run(b).value();
    QCOMPARE(y.uuid, x.uuid);
    QCOMPARE(y.name, x.name);
    QCOMPARE(y.status, x.status);
    QCOMPARE(y.statusMessage, x.statusMessage);
    QCOMPARE(y.preset, x.preset);
    QCOMPARE(y.presetHash, x.presetHash);
    QCOMPARE(y.createdAt, x.createdAt);
    QCOMPARE(y.startedAt, x.startedAt);
    QCOMPARE(y.endedAt, x.endedAt);
    QCOMPARE(y.heartbeatAt, x.heartbeatAt);
    QCOMPARE(y.appVersion, x.appVersion);
    QCOMPARE(y.torchVersion, x.torchVersion);
    QCOMPARE(y.device, x.device);
    QCOMPARE(y.host, x.host);
    QCOMPARE(y.seed, x.seed);
    QCOMPARE(y.notes, x.notes);
    QCOMPARE(y.tags, x.tags);
    QCOMPARE(y.sweepTrial, x.sweepTrial);
    QCOMPARE(y.kind, x.kind);
    QCOMPARE(y.result, x.result);
    QCOMPARE(y.folder, to.runFolder(b));
    QCOMPARE(to.params(b).value(), from.params(a).value());

    const QList<MetricPoint> mx = from.metrics(a).value(), my = to.metrics(b).value();
    QCOMPARE(my.size(), mx.size());
    for (int i = 0; i < mx.size(); ++i) {
        QCOMPARE(my[i].name, mx[i].name);
        QCOMPARE(my[i].step, mx[i].step);
        QCOMPARE(my[i].epoch, mx[i].epoch);
        QCOMPARE(my[i].time, mx[i].time);
        QVERIFY(my[i].value == mx[i].value || (std::isnan(my[i].value) && std::isnan(mx[i].value)));
    }
    const QList<MetricSummary> sx = from.metricSummaries(a).value(), sy = to.metricSummaries(b).value();
    QCOMPARE(sy.size(), sx.size());
    for (int i = 0; i < sx.size(); ++i) {
        QCOMPARE(sy[i].name, sx[i].name);
        QCOMPARE(sy[i].count, sx[i].count);
        QCOMPARE(sy[i].minimum, sx[i].minimum);
        QCOMPARE(sy[i].maximum, sx[i].maximum);
        QCOMPARE(sy[i].lastStep, sx[i].lastStep);
    }
    const QList<RunEvent> ex = from.events(a).value(), ey = to.events(b).value();
    QCOMPARE(ey.size(), ex.size());
    for (int i = 0; i < ex.size(); ++i)
        QVERIFY(ey[i].step == ex[i].step && ey[i].time == ex[i].time && ey[i].kind == ex[i].kind && ey[i].message == ex[i].message);
    const QList<StageRecord> tx = from.stages(a).value(), ty = to.stages(b).value();
    QCOMPARE(ty.size(), tx.size());
    for (int i = 0; i < tx.size(); ++i)
        QVERIFY(ty[i].name == tx[i].name && ty[i].startStep == tx[i].startStep && ty[i].endStep == tx[i].endStep && ty[i].frozen == tx[i].frozen);

    const QList<CheckpointRecord> cx = from.checkpoints(a).value(), cy = to.checkpoints(b).value();
    QCOMPARE(cy.size(), cx.size());
    for (int i = 0; i < cx.size(); ++i) {
        QCOMPARE(cy[i].step, cx[i].step);
        QCOMPARE(cy[i].epoch, cx[i].epoch);
        QCOMPARE(cy[i].sha256, cx[i].sha256);
        QCOMPARE(cy[i].best, cx[i].best);
        QVERIFY2(cy[i].path.startsWith(to.runFolder(b) + QStringLiteral("/checkpoints/")), qPrintable(cy[i].path));
        QCOMPARE(fileBytes(cy[i].path), fileBytes(cx[i].path));
    }
    const QList<EvaluationRecord> vx = from.evaluations(a).value(), vy = to.evaluations(b).value();
    QCOMPARE(vy.size(), vx.size());
    for (int i = 0; i < vx.size(); ++i) {
        QCOMPARE(vy[i].summary, vx[i].summary);
        QCOMPARE(vy[i].accuracy, vx[i].accuracy);
        QCOMPARE(vy[i].checkpointStep, vx[i].checkpointStep);
        const QList<EvaluationSampleRow> px = from.evaluationSamples(vx[i].id).value(), py = to.evaluationSamples(vy[i].id).value();
        QCOMPARE(py.size(), px.size());
        for (int j = 0; j < px.size(); ++j)
            QVERIFY(py[j].index == px[j].index && py[j].label == px[j].label && py[j].predicted == px[j].predicted
                    && (py[j].confidence == px[j].confidence || (std::isnan(py[j].confidence) && std::isnan(px[j].confidence))));
    }
}

// A copy of `bundle` with its manifest changed by `edit` and the sha256 recomputed: what a forger would write.
QString forged(const QString &bundle, const QString &out, const std::function<void(QJsonObject &)> &edit)
{
    RunBundleFile file;
    if (!file.open(bundle).ok())
        return {};
    QJsonObject manifest = file.manifest();
    edit(manifest);
    const QByteArray all = fileBytes(bundle);
    const qint64 footer = all.size() - 56;
    const qint64 manifestOffset = qFromLittleEndian<qint64>(all.constData() + footer);
    RunBundleWriter writer;
    if (!writer.open(out).ok() || !writer.addBlock(all.mid(16, manifestOffset - 16)).ok() || !writer.finish(manifest).ok())
        return {};
    return out;
}

} // namespace

class TestRunBundle : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // A learning-rate range test travels as one: its kind and result (schema 10) with its curve's rows.
    void rangeTestKeepsItsKindAndResult()
    {
        Fixture source;
        QVERIFY(source.open());
        NewRun test = testing::sampleNewRun(QStringLiteral("lrfind"));
        test.kind = QString::fromLatin1(kRunKindLrFind);
        const qint64 id = trainedRun(source, test, 5);
        const QJsonObject result{{QStringLiteral("suggestions"), QJsonObject{{QStringLiteral("valley"), QJsonObject{{QStringLiteral("lr"), 0.004}}}}}};
        QVERIFY(source.db->setRunResult(id, result).ok());
        const qint64 plain = trainedRun(source, testing::sampleNewRun(QStringLiteral("plain")), 3);
        const QString bundle = source.dir.filePath(QStringLiteral("test.tybundle"));
        QVERIFY(exportRunBundle(RunBundleExportRequest{source.path, {id, plain}, {}, bundle, true}).ok());
        Fixture target;
        QVERIFY(target.open());
        const Result<RunBundleImportReport> imported = importRunBundle(target.path, bundle);
        QVERIFY2(imported.ok(), qPrintable(imported.error().toString()));
        const qint64 copy = idOf(*target.db, source.db->run(id).value().uuid);
        compareRun(*source.db, id, *target.db, copy);
        QCOMPARE(target.db->run(copy).value().kind, QString::fromLatin1(kRunKindLrFind));
        QCOMPARE(target.db->run(copy).value().result, result);
        QCOMPARE(target.db->run(idOf(*target.db, source.db->run(plain).value().uuid)).value().kind, QString::fromLatin1(kRunKindTrain));
    }

    void roundTripKeepsEveryRowAndLink()
    {
        Fixture source;
        QVERIFY(source.open());
        const SourceRuns s = makeSource(source);
        QVERIFY(s.parent && s.child && s.trial0 && s.trial1);
        const QString bundle = source.dir.filePath(QStringLiteral("runs.tybundle"));
        RunBundleExportRequest request{source.path, {s.child, s.parent}, {s.sweep}, bundle, true};
        const Result<RunBundleExportReport> exported = exportRunBundle(request);
        QVERIFY2(exported.ok(), qPrintable(exported.error().toString()));
        QCOMPARE(exported.value().runIds, (QList<qint64>{s.parent, s.child, s.trial0, s.trial1}));
        QCOMPARE(exported.value().checkpoints, 4);
        QVERIFY(!QFileInfo::exists(bundle + QStringLiteral(".part")));

        // The target already has runs 1-3 and a sweep: the bundle's ids clash and are renumbered.
        Fixture target;
        QVERIFY(target.open());
        for (int i = 0; i < 3; ++i)
            target.newRun(QStringLiteral("local %1").arg(i));
        target.db->setStatus(1, RunStatus::Finished);
        const qint64 localSweep = target.db->createSweep(NewSweep{QStringLiteral("local"), {}, {}, {}, {}, QStringLiteral("val/loss"), false}).value();
        const Result<RunBundleImportReport> imported = importRunBundle(target.path, bundle);
        QVERIFY2(imported.ok(), qPrintable(imported.error().toString()));
        QCOMPARE(imported.value().runsAdded(), 4);
        QCOMPARE(imported.value().sweepsAdded(), 1);

        RunDatabase &from = *source.db, &to = *target.db;
        const qint64 parent = idOf(to, from.run(s.parent).value().uuid), child = idOf(to, from.run(s.child).value().uuid);
        const qint64 trial0 = idOf(to, from.run(s.trial0).value().uuid), trial1 = idOf(to, from.run(s.trial1).value().uuid);
        QVERIFY(parent > 3 && child > 3 && trial0 > 3 && trial1 > 3);
        QCOMPARE(QSet<qint64>({parent, child, trial0, trial1}).size(), 4);
        compareRun(from, s.parent, to, parent);
        compareRun(from, s.child, to, child);
        compareRun(from, s.trial0, to, trial0);
        compareRun(from, s.trial1, to, trial1);

        // The child still starts from the parent, by its id here.
        QCOMPARE(to.run(child).value().provenance.value(QStringLiteral("init_from")).toObject().value(QStringLiteral("run")).toDouble(), double(parent));
        // The trials belong to the imported sweep (a new id: the local sweep holds the old one), which names its best.
        const SweepRecord sx = from.sweep(s.sweep).value();
        qint64 sweepId = 0;
        for (const SweepRecord &sweep : to.listSweeps().value())
            sweepId = sweep.uuid == sx.uuid ? sweep.id : sweepId;
        QVERIFY(sweepId > 0 && sweepId != localSweep);
        const SweepRecord sy = to.sweep(sweepId).value();
        QCOMPARE(sy.name, sx.name);
        QCOMPARE(sy.spec, sx.spec);
        QCOMPARE(sy.trials, sx.trials);
        QCOMPARE(sy.status, QStringLiteral("finished"));
        QCOMPARE(sy.bestRun, trial1);
        QCOMPARE(to.sweepRuns(sweepId).value().value(0).id, trial0);
        QCOMPARE(to.sweepRuns(sweepId).value().value(1).id, trial1);
        QVERIFY(to.checkIntegrity().ok());

        // A second import adds nothing.
        const qint64 metricRows = countRows(target.path, QStringLiteral("metrics"));
        const Result<RunBundleImportReport> again = importRunBundle(target.path, bundle);
        QVERIFY2(again.ok(), qPrintable(again.error().toString()));
        QCOMPARE(again.value().runsAdded(), 0);
        QCOMPARE(again.value().sweepsAdded(), 0);
        QCOMPARE(countRows(target.path, QStringLiteral("metrics")), metricRows);
        QCOMPARE(countRows(target.path, QStringLiteral("runs")), qint64(7));

        // Into an empty database the runs keep their ids.
        QTemporaryDir empty;
        const QString fresh = empty.filePath(QStringLiteral("fresh.sqlite"));
        const Result<RunBundleImportReport> kept = importRunBundle(fresh, bundle);
        QVERIFY2(kept.ok(), qPrintable(kept.error().toString()));
        for (const RunBundleImportReport::Item &item : kept.value().runs)
            QCOMPARE(item.id, item.bundleId);
    }

    void damagedBundleIsRefusedWhole()
    {
        Fixture source;
        QVERIFY(source.open());
        const SourceRuns s = makeSource(source);
        const QString bundle = source.dir.filePath(QStringLiteral("runs.tybundle"));
        QVERIFY(exportRunBundle(RunBundleExportRequest{source.path, {s.parent, s.child}, {}, bundle, true}).ok());
        const QByteArray good = fileBytes(bundle);

        Fixture target;
        QVERIFY(target.open());
        target.newRun(QStringLiteral("local"));
        const QStringList before = allRows(target.path);
        const QStringList foldersBefore = QDir(target.path + QStringLiteral("-runs")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        // A flipped byte anywhere: the header, the blocks (metric rows, a checkpoint), the manifest, the footer.
        for (const qint64 at : {qint64(3), qint64(20), good.size() / 3, good.size() / 2, good.size() - 500, good.size() - 40, good.size() - 1}) {
            QByteArray bad = good;
            bad[at] = char(bad[at] ^ 0x20);
            const QString path = source.dir.filePath(QStringLiteral("bad-%1.tybundle").arg(at));
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(bad);
            file.close();
            const Result<RunBundleImportReport> refused = importRunBundle(target.path, path);
            QVERIFY2(!refused.ok(), qPrintable(QStringLiteral("byte %1").arg(at)));
            QCOMPARE(refused.error().file, path);
            QCOMPARE(allRows(target.path), before);
            // And no database is created where there was none.
            const QString none = source.dir.filePath(QStringLiteral("none.sqlite"));
            QVERIFY(!importRunBundle(none, path).ok());
            QVERIFY(!QFileInfo::exists(none));
        }
        // Truncated.
        QFile cut(source.dir.filePath(QStringLiteral("cut.tybundle")));
        QVERIFY(cut.open(QIODevice::WriteOnly));
        cut.write(good.left(good.size() - 100));
        cut.close();
        QVERIFY(!importRunBundle(target.path, cut.fileName()).ok());
        QCOMPARE(allRows(target.path), before);
        QCOMPARE(QDir(target.path + QStringLiteral("-runs")).entryList(QDir::Dirs | QDir::NoDotAndDotDot), foldersBefore);
    }

    void forgedBundleIsRefusedNamingTheField_data()
    {
        QTest::addColumn<QString>("field");
        QTest::newRow("run still running") << QStringLiteral("runs[0].status");
        QTest::newRow("uuid") << QStringLiteral("runs[1].uuid");
        QTest::newRow("checkpoint bytes") << QStringLiteral("runs[0].checkpoints[0]");
        QTest::newRow("checkpoint file name") << QStringLiteral("runs[0].checkpoints[0].file");
        QTest::newRow("metric block outside") << QStringLiteral("runs[0].metrics");
        QTest::newRow("metric rows") << QStringLiteral("runs[1].metrics");
        QTest::newRow("unknown field") << QStringLiteral("runs[0].folder");
        QTest::newRow("preset not JSON") << QStringLiteral("runs[0].preset_json");
        QTest::newRow("dangling sweep") << QStringLiteral("runs[0].sweep_uuid");
        QTest::newRow("a block used twice") << QStringLiteral("runs[1].checkpoints[0]");
    }

    void forgedBundleIsRefusedNamingTheField()
    {
        QFETCH(QString, field);
        Fixture source;
        QVERIFY(source.open());
        const SourceRuns s = makeSource(source);
        const QString bundle = source.dir.filePath(QStringLiteral("runs.tybundle"));
        QVERIFY(exportRunBundle(RunBundleExportRequest{source.path, {s.parent, s.child}, {}, bundle, true}).ok());
        const QString path = forged(bundle, source.dir.filePath(QStringLiteral("forged.tybundle")), [&](QJsonObject &manifest) {
            QJsonArray runs = manifest.value(QStringLiteral("runs")).toArray();
            QJsonObject first = runs[0].toObject(), second = runs[1].toObject();
            QJsonArray checkpoints = first.value(QStringLiteral("checkpoints")).toArray();
            QJsonObject checkpoint = checkpoints[0].toObject();
            QJsonObject metrics = first.value(QStringLiteral("metrics")).toObject();
            if (field == QLatin1String("runs[0].status"))
                first.insert(QStringLiteral("status"), QStringLiteral("running"));
            else if (field == QLatin1String("runs[1].uuid"))
                second.insert(QStringLiteral("uuid"), QStringLiteral("../../etc"));
            else if (field == QLatin1String("runs[0].checkpoints[0]"))
                checkpoint.insert(QStringLiteral("offset"), checkpoint.value(QStringLiteral("offset")).toDouble() + 1);
            else if (field == QLatin1String("runs[0].checkpoints[0].file"))
                checkpoint.insert(QStringLiteral("file"), QStringLiteral("../../escape.safetensors"));
            else if (field == QLatin1String("runs[0].metrics"))
                metrics.insert(QStringLiteral("offset"), 1e12);
            else if (field == QLatin1String("runs[1].metrics"))
                second.insert(QStringLiteral("metrics"), QJsonObject{{QStringLiteral("names"), QJsonArray{}},
                                                                     {QStringLiteral("offset"), 16},
                                                                     {QStringLiteral("rows"), 2}});
            else if (field == QLatin1String("runs[0].folder"))
                first.insert(QStringLiteral("folder"), QStringLiteral("/tmp/elsewhere"));
            else if (field == QLatin1String("runs[0].preset_json"))
                first.insert(QStringLiteral("preset_json"), QStringLiteral("{not json"));
            else if (field == QLatin1String("runs[1].checkpoints[0]")) {
                // The second run's checkpoint points at the first's bytes (sha256 and all): one block, two files.
                QJsonArray copied{checkpoint};
                second.insert(QStringLiteral("checkpoints"), copied);
            } else if (field == QLatin1String("runs[0].sweep_uuid")) {
                first.insert(QStringLiteral("sweep_uuid"), QStringLiteral("00000000-0000-4000-8000-000000000000"));
                first.insert(QStringLiteral("sweep_trial"), 0);
            }
            checkpoints[0] = checkpoint;
            first.insert(QStringLiteral("checkpoints"), checkpoints);
            first.insert(QStringLiteral("metrics"), metrics);
            runs[0] = first;
            runs[1] = second;
            manifest.insert(QStringLiteral("runs"), runs);
        });
        QVERIFY(!path.isEmpty());
        Fixture target;
        QVERIFY(target.open());
        const QStringList before = allRows(target.path);
        const Result<RunBundleImportReport> refused = importRunBundle(target.path, path);
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error().field.startsWith(field), qPrintable(refused.error().toString()));
        QCOMPARE(refused.error().file, path);
        QCOMPARE(allRows(target.path), before);
        QVERIFY(!QFileInfo::exists(target.path + QStringLiteral("-runs/1")));
    }

    void exportRefusesARunStillRunningAndAChangedCheckpoint()
    {
        Fixture f;
        QVERIFY(f.open());
        const qint64 queued = f.newRun(QStringLiteral("queued"));
        const QString bundle = f.dir.filePath(QStringLiteral("b.tybundle"));
        Result<RunBundleExportReport> refused = exportRunBundle(RunBundleExportRequest{f.path, {queued}, {}, bundle, true});
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error().message.contains(QStringLiteral("is queued")), qPrintable(refused.error().toString()));
        QVERIFY(!QFileInfo::exists(bundle) && !QFileInfo::exists(bundle + QStringLiteral(".part")));

        const qint64 done = trainedRun(f, sampleNewRun(QStringLiteral("done")), 20);
        const QString checkpoint = f.db->checkpoints(done).value().first().path;
        QFile file(checkpoint);
        QVERIFY(file.open(QIODevice::Append));
        file.write("x");
        file.close();
        refused = exportRunBundle(RunBundleExportRequest{f.path, {done}, {}, bundle, true});
        QVERIFY(!refused.ok());
        QCOMPARE(refused.error().file, checkpoint);
        QVERIFY(!QFileInfo::exists(bundle) && !QFileInfo::exists(bundle + QStringLiteral(".part")));
        // Without checkpoints it goes.
        QVERIFY(exportRunBundle(RunBundleExportRequest{f.path, {done}, {}, bundle, false}).ok());
        QVERIFY(!exportRunBundle(RunBundleExportRequest{f.path, {done + 10}, {}, bundle, false}).ok());
    }

    // What the app takes for a dropped bundle: the .tybundle name, or the magic whatever the name.
    void bundleIsKnownByNameOrMagic()
    {
        Fixture f;
        QVERIFY(f.open());
        const qint64 done = trainedRun(f, sampleNewRun(QStringLiteral("done")), 20);
        const QString bundle = f.dir.filePath(QStringLiteral("b.tybundle"));
        QVERIFY(exportRunBundle(RunBundleExportRequest{f.path, {done}, {}, bundle, true}).ok());
        QVERIFY(looksLikeRunBundle(bundle));
        const QString renamed = f.dir.filePath(QStringLiteral("runs.bin"));
        QVERIFY(QFile::copy(bundle, renamed));
        QVERIFY(looksLikeRunBundle(renamed));
        const QString preset = f.dir.filePath(QStringLiteral("p.trainyard.json"));
        QFile other(preset);
        QVERIFY(other.open(QIODevice::WriteOnly));
        other.write("{\"name\": \"TYBUNDLE is not at its start\"}");
        other.close();
        QVERIFY(!looksLikeRunBundle(preset));
        QVERIFY(!looksLikeRunBundle(f.dir.filePath(QStringLiteral("missing.bin"))));
        QVERIFY(QDir(f.dir.path()).mkdir(QStringLiteral("folder.tybundle")));
        QVERIFY(!looksLikeRunBundle(f.dir.filePath(QStringLiteral("folder.tybundle"))));
        QFile empty(f.dir.filePath(QStringLiteral("empty.TYBUNDLE")));
        QVERIFY(empty.open(QIODevice::WriteOnly));
        empty.close();
        QVERIFY(looksLikeRunBundle(empty.fileName()));  // by its name; importing it says what is wrong
    }
};

TY_TEST_CLASS(TestRunBundle)
#include "test_run_bundle.moc"
