// TensorBoard while a run trains (`run --tensorboard DIR`, training.tensorboard_dir; app/cli/live_tensorboard.h):
// the event files read back by an independent reader (tests/common/tensorboard_reader.h) hold exactly the run
// database's metric rows, as `runs export --tensorboard` writes them; a resumed run adds a file that TensorBoard reads
// as the database holds the run; a folder that cannot be made is bad input before anything is recorded; a file that
// stops being writable is reported once and the run goes on.

#include "blobs_preset.h"
#include "cli.h"
#include "cli_in_process.h"
#include "event_stream.h"
#include "run_database.h"
#include "run_recorder.h"
#include "run_writer.h"
#include "tensorboard_reader.h"
#include "training_module.h"

#include <QDir>
#include <QFile>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <tuple>

using namespace ty;

namespace {

using Output = tytest::CliOutput;
using tytest::TensorBoardEvent;
using tytest::trainyard;

// The CLI suites' synthetic classifier: 3 epochs of 15 steps, a checkpoint after each, seed 0.
QString writePreset(const QTemporaryDir &dir, const QByteArray &extraTraining = "")
{
    return tytest::writeBlobsPreset(dir, R"("epochs": 3, "batch_size": 32, "device": "cpu", "seed": 0)" + extraTraining);
}

using Row = std::tuple<QString, qint64, float>;  // tag, step, value as the file holds it

QList<Row> sorted(QList<Row> rows)
{
    std::sort(rows.begin(), rows.end());
    return rows;
}

QList<Row> databaseRows(const QString &db, qint64 id)
{
    QList<Row> rows;
    for (const MetricPoint &p : RunDatabase::open(db).value()->metrics(id, QString()).value())
        rows << Row{p.name, p.step, float(p.value)};
    return sorted(rows);
}

// The event files of a run's folder, in the order TensorBoard reads them (by name).
QStringList eventFiles(const QString &folder)
{
    QStringList files;
    for (const QString &name : QDir(folder).entryList({QStringLiteral("events.out.tfevents.*")}, QDir::Files, QDir::Name))
        files << QDir(folder).filePath(name);
    return files;
}

QList<TensorBoardEvent> readEvents(const QString &path)
{
    QList<TensorBoardEvent> events;
    QString problem;
    if (!tytest::readTensorBoardFile(path, &events, &problem))
        qWarning("%s", qPrintable(problem));
    return events;
}

// What TensorBoard shows of a run's folder: its files in name order; a SessionLog START at step S drops the scalars
// read before with a step of S or more (the Python loader's purge; the Rust one drops a tag's later points when it
// goes back to an earlier step, which comes to the same for a run that trains on past its checkpoint).
QList<Row> tensorBoardView(const QString &folder)
{
    QList<Row> rows;
    for (const QString &file : eventFiles(folder))
        for (const TensorBoardEvent &event : readEvents(file)) {
            if (event.sessionStatus == 1)
                rows.erase(std::remove_if(rows.begin(), rows.end(), [&](const Row &r) { return std::get<1>(r) >= event.step; }), rows.end());
            else if (event.hasValue)
                rows << Row{event.tag, event.step, event.value};
        }
    return sorted(rows);
}

bool sql(const QString &db, const QString &statement)
{
    bool ok = false;
    {
        QSqlDatabase raw = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("raw"));
        raw.setDatabaseName(db);
        ok = raw.open() && QSqlQuery(raw).exec(statement);
        raw.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("raw"));
    return ok;
}

} // namespace

class TestCliTensorBoard : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { cli::linkTrainingCommands(); }

    // `run --tensorboard DIR` (relative: against the current folder): one event file in DIR/1-blobs/, whose every
    // record has its framing and both CRCs right, holding every metric row of the database, with the wall times and
    // in the very records of `runs export --tensorboard`.
    void liveFileHoldsTheRunsRows()
    {
        QTemporaryDir dir;
        const QString preset = writePreset(dir);
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const QString before = QDir::currentPath();
        QVERIFY(QDir::setCurrent(dir.path()));
        const Output run = trainyard({QStringLiteral("run"), preset, QStringLiteral("--db"), db, QStringLiteral("--tensorboard"),
                                      QStringLiteral("board")});
        QDir::setCurrent(before);
        QVERIFY2(run.code == 0, qPrintable(run.err));
        const QString folder = dir.filePath(QStringLiteral("board/1-blobs"));
        QVERIFY2(run.err.contains(QStringLiteral("TensorBoard event file ") + folder), qPrintable(run.err));
        const QStringList files = eventFiles(folder);
        QCOMPARE(files.size(), 1);
        QString problem;
        QList<TensorBoardEvent> events;
        QVERIFY2(tytest::readTensorBoardFile(files.first(), &events, &problem), qPrintable(problem));
        QCOMPARE(events.first().fileVersion, QStringLiteral("brain.Event:2"));
        const QList<Row> stored = databaseRows(db, 1);
        QVERIFY(stored.size() > 45);  // every step's loss and accuracy, each epoch's validation, speed
        QList<Row> live;
        for (const TensorBoardEvent &event : events.mid(1)) {
            QVERIFY(event.hasValue);
            live << Row{event.tag, event.step, event.value};
        }
        QCOMPARE(sorted(live), stored);

        // The same records as the export's, wall times included (the export's order is the database's).
        const QString exported = dir.filePath(QStringLiteral("exported"));
        QCOMPARE(trainyard({QStringLiteral("runs"), QStringLiteral("export"), QStringLiteral("1"), QStringLiteral("--tensorboard"),
                            exported, QStringLiteral("--db"), db}).code, 0);
        const QList<TensorBoardEvent> again = readEvents(eventFiles(exported + QStringLiteral("/1-blobs")).value(0));
        QCOMPARE(again.size(), events.size());
        const auto key = [](const TensorBoardEvent &e) { return std::make_tuple(e.tag, e.step, e.value, e.wallTime); };
        QList<std::tuple<QString, qint64, float, double>> liveRecords, exportedRecords;
        for (int i = 1; i < events.size(); ++i) {
            liveRecords << key(events[i]);
            exportedRecords << key(again[i]);
        }
        std::sort(liveRecords.begin(), liveRecords.end());
        std::sort(exportedRecords.begin(), exportedRecords.end());
        QVERIFY(liveRecords == exportedRecords);
        const RunInfo info = RunDatabase::open(db).value()->run(1).value();
        QVERIFY(std::get<3>(liveRecords.first()) >= double(info.startedAt.toMSecsSinceEpoch()) / 1000.0);
    }

    // training.tensorboard_dir: relative to the preset's folder, recorded with the run's preset; --tensorboard ''
    // turns it off for one run; a value that is not a string is bad input naming the field.
    void presetFieldLogsBesideThePreset()
    {
        QTemporaryDir dir;
        const QString preset = writePreset(dir, R"(, "tensorboard_dir": "logs")");
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const Output run = trainyard({QStringLiteral("run"), preset, QStringLiteral("--db"), db, QStringLiteral("--quiet"),
                                      QStringLiteral("--name"), QStringLiteral("field run")});
        QVERIFY2(run.code == 0, qPrintable(run.err));
        const QStringList files = eventFiles(dir.filePath(QStringLiteral("logs/1-field_run")));
        QCOMPARE(files.size(), 1);
        QList<Row> live;
        for (const TensorBoardEvent &event : readEvents(files.first()))
            if (event.hasValue)
                live << Row{event.tag, event.step, event.value};
        QCOMPARE(sorted(live), databaseRows(db, 1));
        QCOMPARE(RunDatabase::open(db).value()->run(1).value().preset.value(QStringLiteral("training")).toObject()
                     .value(QStringLiteral("tensorboard_dir")).toString(), QStringLiteral("logs"));

        const Output off = trainyard({QStringLiteral("run"), preset, QStringLiteral("--db"), db, QStringLiteral("--quiet"),
                                      QStringLiteral("--tensorboard"), QString()});
        QVERIFY2(off.code == 0, qPrintable(off.err));
        QCOMPARE(QDir(dir.filePath(QStringLiteral("logs"))).entryList(QDir::Dirs | QDir::NoDotAndDotDot), QStringList{QStringLiteral("1-field_run")});

        QTemporaryDir other;
        const QString wrong = writePreset(other, R"(, "tensorboard_dir": 3)");
        const QString otherDb = other.filePath(QStringLiteral("runs.sqlite"));
        const Output refused = trainyard({QStringLiteral("run"), wrong, QStringLiteral("--db"), otherDb});
        QCOMPARE(refused.code, 2);
        QVERIFY2(refused.err.contains(QStringLiteral("training.tensorboard_dir")) && refused.err.contains(QStringLiteral("expected a string")),
                 qPrintable(refused.err));
        QVERIFY(!QFile::exists(otherDb));
    }

    // A folder that cannot be made (a file is in its way) is bad input: exit 2, the error names the preset, the field
    // and the folder, and no run is recorded or trained; from the preset's field as from --tensorboard.
    void folderThatCannotBeMadeIsBadInput()
    {
        QTemporaryDir dir;
        QFile blocker(dir.filePath(QStringLiteral("taken")));
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const QString preset = writePreset(dir);
        const QString below = dir.filePath(QStringLiteral("taken/board"));
        const Output option = trainyard({QStringLiteral("run"), preset, QStringLiteral("--db"), db, QStringLiteral("--tensorboard"), below});
        QCOMPARE(option.code, 2);
        QVERIFY2(option.err.contains(preset) && option.err.contains(QStringLiteral("field 'training.tensorboard_dir'"))
                     && option.err.contains(QStringLiteral("cannot create the folder ") + below),
                 qPrintable(option.err));
        QVERIFY(!QFile::exists(db));

        QTemporaryDir other;
        const QString field = writePreset(other, R"(, "tensorboard_dir": ")" + blocker.fileName().toUtf8() + R"(")");
        const Output fromField = trainyard({QStringLiteral("run"), field, QStringLiteral("--db"), db, QStringLiteral("--events")});
        QCOMPARE(fromField.code, 2);
        QVERIFY2(fromField.err.contains(QStringLiteral("is not a folder")), qPrintable(fromField.err));
        QVERIFY2(fromField.out.contains(QStringLiteral("\"event\":\"error\"")), qPrintable(fromField.out));
        QVERIFY(!QFile::exists(db));
        QCOMPARE(QFileInfo(blocker.fileName()).size(), 0);

        // A folder that can be made is made only once the run is recorded: bad input found later (a truncated data
        // file, read when the data loads) leaves none behind.
        QFile images(dir.filePath(QStringLiteral("images.idx")));
        QVERIFY(images.open(QIODevice::WriteOnly));
        images.write(QByteArray::fromHex("00000803" "0000000a" "00000004" "00000004") + QByteArray(5 * 16, '\x7f'));
        images.close();
        QFile labels(dir.filePath(QStringLiteral("labels.idx")));
        QVERIFY(labels.open(QIODevice::WriteOnly));
        labels.write(QByteArray::fromHex("00000801" "0000000a" "00010001000100010001"));
        labels.close();
        const QString truncated = dir.filePath(QStringLiteral("truncated.trainyard.json"));
        QFile file(truncated);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"format":"trainyard-preset","version":1,"nodes":[
            {"id":"data","block":"dataset.idx","params":{"train_images":"images.idx","train_labels":"labels.idx"}},
            {"id":"flat","block":"layer.flatten"},{"id":"fc","block":"layer.linear","params":{"out_features":2}},
            {"id":"loss","block":"loss.cross_entropy"},{"id":"opt","block":"optimizer.sgd"}],
            "edges":[{"from":"data.images","to":"flat.in"},{"from":"flat.out","to":"fc.in"},{"from":"fc.out","to":"loss.input"},
            {"from":"data.labels","to":"loss.target"},{"from":"loss.loss","to":"opt.loss"}]})");
        file.close();
        const QString fresh = dir.filePath(QStringLiteral("fresh/board"));
        const Output late = trainyard({QStringLiteral("run"), truncated, QStringLiteral("--db"), db, QStringLiteral("--tensorboard"), fresh});
        QCOMPARE(late.code, 2);
        QVERIFY2(late.err.contains(QStringLiteral("images.idx: truncated")), qPrintable(late.err));
        QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("fresh"))));
        QVERIFY(!QFile::exists(db));
    }

    // A resumed run writes a new file into the same folder, beginning with TensorBoard's restart mark at the first
    // step it trains again: read as TensorBoard reads the folder, the files hold what the database holds.
    void resumedRunAddsAFileTensorBoardReadsAsTheDatabase()
    {
        QTemporaryDir dir;
        const QString preset = writePreset(dir, R"(, "checkpoint_every": 1)");
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const QString board = dir.filePath(QStringLiteral("board"));
        QCOMPARE(trainyard({QStringLiteral("run"), preset, QStringLiteral("--db"), db, QStringLiteral("--quiet"),
                            QStringLiteral("--tensorboard"), board}).code, 0);
        const QString folder = board + QStringLiteral("/1-blobs");
        // As after a crash in the last epoch: only the first checkpoint is recorded.
        const QList<CheckpointRecord> checkpoints = RunDatabase::open(db).value()->checkpoints(1).value();
        qint64 first = std::numeric_limits<qint64>::max();
        for (const CheckpointRecord &c : checkpoints)
            first = std::min(first, c.step);
        QVERIFY(first > 0 && first < 45);
        QVERIFY(sql(db, QStringLiteral("UPDATE runs SET status = 'interrupted' WHERE id = 1")));
        QVERIFY(sql(db, QStringLiteral("DELETE FROM checkpoints WHERE run_id = 1 AND step > %1").arg(first)));
        // The preset recorded with the run says where its files go: no option needed.
        const Output resumed = trainyard({QStringLiteral("resume"), QStringLiteral("1"), QStringLiteral("--db"), db, QStringLiteral("--quiet")});
        QVERIFY2(resumed.code == 0, qPrintable(resumed.err));

        const QStringList files = eventFiles(folder);
        QCOMPARE(files.size(), 2);
        const QList<TensorBoardEvent> second = readEvents(files.last());
        QVERIFY(second.size() > 2);
        QCOMPARE(second.at(1).sessionStatus, 1);
        QCOMPARE(second.at(1).step, first + 1);
        qint64 lowest = std::numeric_limits<qint64>::max();
        for (const TensorBoardEvent &event : second.mid(2))
            lowest = std::min(lowest, event.step);
        QCOMPARE(lowest, first + 1);
        // The first file still holds the steps the resume trained again; TensorBoard drops them.
        QVERIFY(readEvents(files.first()).size() > second.size());
        QCOMPARE(tensorBoardView(folder), databaseRows(db, 1));
    }

    // A file that can no longer be written stops, once: the writer records a warning event, and the recorder says
    // so once on stderr and in the event stream; the run's rows are all in the database.
    void stoppedFileIsReportedOnce()
    {
        QTemporaryDir dir;
        Result<std::unique_ptr<RunDatabase>> db = RunDatabase::open(dir.filePath(QStringLiteral("runs.sqlite")));
        NewRun newRun;
        newRun.name = QStringLiteral("full disk");
        const qint64 id = db.value()->createRun(newRun).value();
        RunWriter writer(db.value()->path(), id, 3600 * 1000);
        QVERIFY(writer.start().ok());
        writer.setMetricSink([](const std::vector<MetricPoint> &) -> Status { return Error(QStringLiteral("no space left on device")); });
        QString out, err;
        QTextStream outStream(&out), errStream(&err);
        cli::Io io{outStream, errStream, false};
        cli::EventStream stream(outStream);
        {
            cli::RunRecorder recorder(writer, io, false);
            recorder.setEventStream(&stream, id, db.value()->path());
            recorder.onMetrics({MetricSample{QStringLiteral("train/loss"), 1, 1, 0.01, 0.5}});
            recorder.onProgress(1, 10, 1, 0.5);
            // The sink runs right after a commit: after the second flush, the first one's commit has been fed to it.
            QVERIFY(writer.flush().ok());
            QVERIFY(writer.flush().ok());
            for (qint64 step = 2; step <= 4; ++step) {
                recorder.onMetrics({MetricSample{QStringLiteral("train/loss"), step, 1, step * 0.01, 0.5}});
                recorder.onProgress(step, 10, 1, 0.5);
            }
        }
        QVERIFY(writer.finish(RunStatus::Finished).ok());
        QCOMPARE(err.count(QStringLiteral("warning: no space left on device")), 1);
        QCOMPARE(out.count(QStringLiteral("\"event\":\"warning\"")), 1);
        QCOMPARE(db.value()->metrics(id, QString()).value().size(), 4);
        QCOMPARE(db.value()->run(id).value().status, RunStatus::Finished);
    }
};

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    TestCliTensorBoard tests;
    return QTest::qExec(&tests, argc, argv);
}

#include "test_cli_tensorboard.moc"
