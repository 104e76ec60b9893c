// trainyard-cli run in-process with captured output: every command, exit codes, and bad input that changes
// nothing.

#include "required_data.h"
#include "block_registry.h"
#include "cli.h"
#include "blobs_preset.h"
#include "cli_in_process.h"
#include "run_database.h"
#include "idx_reader.h"
#include "preset_format.h"
#include "safetensors_file.h"
#include "training_module.h"

#include <QSysInfo>
#include <QUuid>
#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QRegularExpression>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstring>
#include <functional>
#include <sys/stat.h>
#include <sys/types.h>

using namespace ty;

namespace {

using Output = tytest::CliOutput;
using tytest::trainyard;

QString preset(const char *name) { return QStringLiteral(TRAINYARD_SOURCE_DIR "/presets/%1.trainyard.json").arg(QLatin1String(name)); }

// The CLI suites' synthetic classifier (tests/common/blobs_preset.h): 3 epochs, plus `extraTraining`.
QString writeSyntheticPreset(const QTemporaryDir &dir, const QByteArray &extraTraining = "")
{
    return tytest::writeBlobsPreset(dir, R"("epochs": 3, "batch_size": 32, "device": "cpu")" + extraTraining);
}

// images.idx claims 10 images of 4x4 bytes but holds 5; labels.idx holds the 10 labels. The header is fine,
// so only reading the data finds the problem.
void writeTruncatedIdxPair(const QTemporaryDir &dir)
{
    QFile images(dir.filePath(QStringLiteral("images.idx")));
    images.open(QIODevice::WriteOnly);
    images.write(QByteArray::fromHex("00000803" "0000000a" "00000004" "00000004"));
    images.write(QByteArray(5 * 16, '\x7f'));
    QFile labels(dir.filePath(QStringLiteral("labels.idx")));
    labels.open(QIODevice::WriteOnly);
    labels.write(QByteArray::fromHex("00000801" "0000000a" "00010001000100010001"));
}

QJsonObject jsonObject(const QString &text)
{
    return QJsonDocument::fromJson(text.toUtf8()).object();
}

// The real trainyard-cli at `program`, with the dynamic loader listing the libraries it loads (LD_DEBUG=libs).
Output realTrainyard(const QString &program, const QStringList &arguments)
{
    tytest::ProgramOptions options;
    options.environment.insert(QStringLiteral("LD_DEBUG"), QStringLiteral("libs"));
    options.timeoutMs = 120000;
    return tytest::runProgram(program, arguments, options);
}

bool loadedLibTorch(const Output &output) { return output.err.contains(QStringLiteral("libtorch_cpu.so")); }

// The checkpoints written at epoch ends and at the end, without the best ones.
QList<CheckpointRecord> periodic(const QList<CheckpointRecord> &all)
{
    QList<CheckpointRecord> out;
    for (const CheckpointRecord &c : all)
        if (!c.best)
            out.append(c);
    return out;
}

} // namespace

class TestCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { cli::linkTrainingCommands(); }

    void onlyTrainingLoadsLibTorch()
    {
        QTemporaryDir dir;
        const QString cliPath = QStringLiteral(TRAINYARD_CLI);
        const Output validate = realTrainyard(cliPath, {QStringLiteral("validate"), preset("wine-tabular")});
        QVERIFY2(validate.code == 0 && validate.out.contains(QStringLiteral("no issues")), qPrintable(validate.out + validate.err.right(2000)));
        QVERIFY2(!loadedLibTorch(validate), "validate loaded LibTorch");
        const QString db = dir.filePath(QStringLiteral("runs.db"));
        const Output runs = realTrainyard(cliPath, {QStringLiteral("runs"), QStringLiteral("list"), QStringLiteral("--db"), db});
        QCOMPARE(runs.code, 0);
        QVERIFY2(!loadedLibTorch(runs), "runs list loaded LibTorch");
        const Output run = realTrainyard(cliPath, {QStringLiteral("run"), writeSyntheticPreset(dir), QStringLiteral("--db"), db,
                                                   QStringLiteral("--set"), QStringLiteral("training.epochs=1"), QStringLiteral("--quiet")});
        QVERIFY2(run.code == 0, qPrintable(run.err.right(2000)));
        QVERIFY2(loadedLibTorch(run), "run trained without loading LibTorch?");
    }

    // The real program decodes the data set while its training module loads LibTorch, and the module takes that
    // data set (its own copy of the data library reaches the program's): the run says so, and the test split the
    // run scored is the one `evaluate` loads afresh, to the last digit. A run that queues drops what it loaded.
    void runDecodesItsDataWhileLibTorchLoads()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.db"));
        const Output run = realTrainyard(QStringLiteral(TRAINYARD_CLI), {QStringLiteral("run"), writeSyntheticPreset(dir), QStringLiteral("--db"), db,
                                                                        QStringLiteral("--set"), QStringLiteral("training.epochs=1"), QStringLiteral("--events")});
        QVERIFY2(run.code == 0, qPrintable(run.err.right(2000)));
        const QJsonObject started = jsonObject(run.out.section(QLatin1Char('\n'), 0, 0));
        QCOMPARE(started.value(QStringLiteral("event")).toString(), QStringLiteral("started"));
        QVERIFY2(started.value(QStringLiteral("data_loaded_ahead")).toBool(), qPrintable(run.out.left(400)));
        const double recorded = RunDatabase::open(db).value()->lastMetricValues(1).value().value(QStringLiteral("test/accuracy"));
        const Output evaluated = trainyard({QStringLiteral("evaluate"), QStringLiteral("1"), QStringLiteral("--db"), db, QStringLiteral("--json")});
        QVERIFY2(evaluated.code == 0, qPrintable(evaluated.err));
        QCOMPARE(jsonObject(evaluated.out).value(QStringLiteral("accuracy")).toDouble(), recorded);

        // With a run queue full, the run waits: it frees what it loaded ahead and loads the data set when its turn comes.
        QCOMPARE(trainyard({QStringLiteral("queue"), QStringLiteral("limit"), QStringLiteral("1"), QStringLiteral("--db"), db}).code, 0);
        QVERIFY(RunDatabase::open(db).value()->enqueue(NewQueueEntry{QStringLiteral("holder"), QStringLiteral("run")}).ok());
        QProcess queued;
        queued.start(QStringLiteral(TRAINYARD_CLI), {QStringLiteral("run"), writeSyntheticPreset(dir), QStringLiteral("--db"), db,
                                                     QStringLiteral("--set"), QStringLiteral("training.epochs=1"), QStringLiteral("--events")});
        QVERIFY(queued.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(queued.canReadLine(), 30000);
        QCOMPARE(jsonObject(QString::fromUtf8(queued.readLine())).value(QStringLiteral("event")).toString(), QStringLiteral("queued"));
        QCOMPARE(trainyard({QStringLiteral("queue"), QStringLiteral("cancel"), QStringLiteral("1"), QStringLiteral("--db"), db}).code, 0);
        QVERIFY(queued.waitForFinished(120000));
        QCOMPARE(queued.exitCode(), 0);
        const QJsonObject secondStart = jsonObject(QString::fromUtf8(queued.readLine()));
        QCOMPARE(secondStart.value(QStringLiteral("event")).toString(), QStringLiteral("started"));
        QVERIFY(secondStart.contains(QStringLiteral("data_loaded_ahead")));
        QVERIFY(!secondStart.value(QStringLiteral("data_loaded_ahead")).toBool());
    }

    void withoutTheTrainingModuleOnlyTrainingFails()
    {
        QTemporaryDir dir;
        const QString alone = dir.filePath(QStringLiteral("trainyard-cli"));
        QVERIFY(QFile::copy(QStringLiteral(TRAINYARD_CLI), alone));
        const Output validate = realTrainyard(alone, {QStringLiteral("validate"), preset("wine-tabular")});
        QVERIFY2(validate.code == 0 && validate.out.contains(QStringLiteral("no issues")), qPrintable(validate.err.right(2000)));
        const QString db = dir.filePath(QStringLiteral("runs.db"));
        const Output run = realTrainyard(alone, {QStringLiteral("run"), writeSyntheticPreset(dir), QStringLiteral("--db"), db});
        QCOMPARE(run.code, 1);
        QVERIFY2(run.err.contains(QStringLiteral("error: cannot run: the training engine did not load: trainyard-training.so is missing")),
                 qPrintable(run.err.right(2000)));
        QVERIFY(!QFile::exists(db));
    }

    void usageAndUnknownCommand()
    {
        QCOMPARE(trainyard({}).code, 2);
        const Output unknown = trainyard({QStringLiteral("fly")});
        QCOMPARE(unknown.code, 2);
        QVERIFY(unknown.err.contains(QStringLiteral("unknown command \"fly\"")));
        QCOMPARE(trainyard({QStringLiteral("--help")}).code, 0);
        QCOMPARE(trainyard({QStringLiteral("run")}).code, 2);
        QCOMPARE(trainyard({QStringLiteral("run"), preset("fashion-mnist-mlp"), QStringLiteral("--bogus")}).code, 2);

        // The top-level help names every option and format each command's own usage names.
        const QString help = trainyard({QStringLiteral("--help")}).out;
        const QRegularExpression option(QStringLiteral("--[a-z][a-z-]*"));
        for (const QString &command : {QStringLiteral("run"), QStringLiteral("resume"), QStringLiteral("evaluate"), QStringLiteral("predict"),
                                       QStringLiteral("export"), QStringLiteral("sweep"), QStringLiteral("validate"), QStringLiteral("report")}) {
            const Output usage = trainyard({command});
            QCOMPARE(usage.code, 2);
            QVERIFY2(usage.err.contains(QStringLiteral("usage:")), qPrintable(command));
            for (auto it = option.globalMatch(usage.err); it.hasNext();) {
                const QString name = it.next().captured();
                QVERIFY2(help.contains(name), qPrintable(QStringLiteral("%1's %2 is missing from --help").arg(command, name)));
            }
        }
        QVERIFY(help.contains(QStringLiteral("safetensors|onnx")));
    }

    void blocksListsTheRegistry()
    {
        const Output text = trainyard({QStringLiteral("blocks")});
        QCOMPARE(text.code, 0);
        for (const BlockDescriptor &block : BlockRegistry::builtin().all())
            QVERIFY2(text.out.contains(block.typeId), qPrintable(block.typeId));
        const Output json = trainyard({QStringLiteral("blocks"), QStringLiteral("--json")});
        QCOMPARE(json.code, 0);
        const QJsonArray blocks = QJsonDocument::fromJson(json.out.toUtf8()).array();
        QCOMPARE(blocks.size(), BlockRegistry::builtin().all().size());
        QCOMPARE(blocks.first().toObject().value(QStringLiteral("type")).toString(), BlockRegistry::builtin().all().first().typeId);
        QVERIFY(blocks.first().toObject().value(QStringLiteral("params")).isArray());
    }

    void validateReportsParameterTotals_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<qint64>("total");
        QTest::newRow("mlp") << "fashion-mnist-mlp" << qint64(247766);
        QTest::newRow("cnn") << "fashion-mnist-cnn" << qint64(3274634);
    }

    void validateReportsParameterTotals()
    {
        QFETCH(QString, name);
        QFETCH(qint64, total);
        if (!QDir(QStringLiteral("/usr/share/datasets/fashion-mnist")).exists())
            TY_SKIP_WITHOUT_DATA("Fashion-MNIST is not installed (dataset-fashion-mnist)");
        const Output json = trainyard({QStringLiteral("validate"), preset(name.toLatin1().constData()), QStringLiteral("--json")});
        QCOMPARE(json.code, 0);
        const QJsonObject report = jsonObject(json.out);
        QCOMPARE(report.value(QStringLiteral("ok")).toBool(), true);
        QCOMPARE(qint64(report.value(QStringLiteral("total_params")).toDouble()), total);
        const Output text = trainyard({QStringLiteral("validate"), preset(name.toLatin1().constData())});
        QCOMPARE(text.code, 0);
        QVERIFY(text.out.contains(QLocale(QLocale::English).toString(total)));
        QVERIFY(text.out.contains(QStringLiteral("no issues")));
    }

    void validateWithOverride()
    {
        QTemporaryDir dir;
        const QString path = writeSyntheticPreset(dir);
        const Output changed = trainyard({QStringLiteral("validate"), path, QStringLiteral("--set"), QStringLiteral("fc1.out_features=10"), QStringLiteral("--json")});
        QCOMPARE(changed.code, 0);
        // 8*10+10 + 10*4+4
        QCOMPARE(jsonObject(changed.out).value(QStringLiteral("total_params")).toInt(), 134);
        const Output broken = trainyard({QStringLiteral("validate"), path, QStringLiteral("--set=fc2.out_features=3")});
        QCOMPARE(broken.code, 2);
        QVERIFY2(broken.err.contains(QStringLiteral("node 'loss', port 'input': expects [4] logits")), qPrintable(broken.err));
    }

    // keep_classes through --set: validate counts the kept classes from the headers alone, so the head must have
    // as many outputs (the shape rule compares them exactly, so a 10-output head is an error on the loss); a
    // class the data set lacks is an error on the dataset node's field.
    // What run refuses about the data's split, validate (and so the editor's issues, the same inspection) refuses
    // too, with the same message: a preset is never said to have no issues when run would refuse it.
    // Notes and tags from the command line write the records the run browser edits: `run --tag --note`, `runs
    // tag` adding and removing, `runs note`, `runs list --tag` filtering; a tag the browser could not edit back (a
    // comma) is refused with exit 2, naming it, and a `run` with one records nothing.
    void notesAndTagsFromTheCommandLine()
    {
        QTemporaryDir dir;
        const QString path = writeSyntheticPreset(dir);
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        auto cli = [&](QStringList arguments) { return trainyard(arguments << QStringLiteral("--db") << db); };
        const Output refused = cli({QStringLiteral("run"), path, QStringLiteral("--tag"), QStringLiteral("a,b")});
        QCOMPARE(refused.code, 2);
        QVERIFY2(refused.err.contains(QStringLiteral("--tag \"a,b\": a tag cannot contain a comma")), qPrintable(refused.err));
        QVERIFY(!QFileInfo::exists(db) || RunDatabase::open(db).value()->listRuns().value().isEmpty());

        QCOMPARE(cli({QStringLiteral("run"), path, QStringLiteral("--tag"), QStringLiteral("baseline"), QStringLiteral("--tag"),
                      QStringLiteral(" small "), QStringLiteral("--note"), QStringLiteral("first try")}).code, 0);
        QCOMPARE(cli({QStringLiteral("run"), path, QStringLiteral("--set"), QStringLiteral("opt.lr=0.02")}).code, 0);
        auto info = [&](qint64 id) { return RunDatabase::open(db).value()->run(id).value(); };
        QCOMPARE(info(1).tags, (QStringList{"baseline", "small"}));
        QCOMPARE(info(1).notes, QStringLiteral("first try"));
        QCOMPARE(info(2).tags, QStringList());

        const Output tagged = cli({QStringLiteral("runs"), QStringLiteral("tag"), QStringLiteral("2"), QStringLiteral("lr-test"),
                                   QStringLiteral("baseline")});
        QCOMPARE(tagged.code, 0);
        QCOMPARE(tagged.out, QStringLiteral("run 2: tags baseline, lr-test\n"));
        QCOMPARE(cli({QStringLiteral("runs"), QStringLiteral("tag"), QStringLiteral("1"), QStringLiteral("baseline"),
                      QStringLiteral("--remove")}).code, 0);
        QCOMPARE(info(1).tags, QStringList{QStringLiteral("small")});
        QCOMPARE(cli({QStringLiteral("runs"), QStringLiteral("note"), QStringLiteral("2"), QStringLiteral("lr 0.02 diverges?")}).code, 0);
        QCOMPARE(info(2).notes, QStringLiteral("lr 0.02 diverges?"));
        const Output comma = cli({QStringLiteral("runs"), QStringLiteral("tag"), QStringLiteral("2"), QStringLiteral("x,y")});
        QCOMPARE(comma.code, 2);
        QCOMPARE(info(2).tags, (QStringList{"baseline", "lr-test"}));
        QCOMPARE(cli({QStringLiteral("runs"), QStringLiteral("note"), QStringLiteral("9"), QStringLiteral("x")}).code, 2);

        // A preset's hypothesis is shown with its runs.
        QFile source(path);
        QVERIFY(source.open(QIODevice::ReadOnly));
        QJsonObject withHypothesis = QJsonDocument::fromJson(source.readAll()).object();
        withHypothesis.insert(QStringLiteral("hypothesis"), QStringLiteral("blobs separate within 3 epochs"));
        const QString hypothesisPath = dir.filePath(QStringLiteral("hypothesis.trainyard.json"));
        QFile target(hypothesisPath);
        QVERIFY(target.open(QIODevice::WriteOnly));
        target.write(QJsonDocument(withHypothesis).toJson());
        target.close();
        QCOMPARE(cli({QStringLiteral("run"), hypothesisPath}).code, 0);
        QCOMPARE(jsonObject(cli({QStringLiteral("runs"), QStringLiteral("show"), QStringLiteral("3"), QStringLiteral("--json")}).out)
                     .value(QStringLiteral("hypothesis")).toString(),
                 QStringLiteral("blobs separate within 3 epochs"));
        QVERIFY(cli({QStringLiteral("runs"), QStringLiteral("show"), QStringLiteral("3")}).out.contains(
            QStringLiteral("  hypothesis blobs separate within 3 epochs\n")));

        const QJsonArray listed = QJsonDocument::fromJson(cli({QStringLiteral("runs"), QStringLiteral("list"), QStringLiteral("--tag"),
                                                              QStringLiteral("baseline"), QStringLiteral("--json")}).out.toUtf8()).array();
        QCOMPARE(listed.size(), 1);
        QCOMPARE(listed.first().toObject().value(QStringLiteral("id")).toInt(), 2);
        QCOMPARE(QJsonDocument::fromJson(cli({QStringLiteral("runs"), QStringLiteral("list"), QStringLiteral("--tag"), QStringLiteral("baseline"),
                                              QStringLiteral("--tag"), QStringLiteral("small"), QStringLiteral("--json")}).out.toUtf8()).array().size(),
                 0);
    }

    // `runs metrics ID ID...`: every run's rows in long form, each with its run's id and uuid, equal to the rows of
    // each run alone; an unknown id anywhere prints nothing and exits 2.
    void metricsOfManyRunsInLongForm()
    {
        QTemporaryDir dir;
        const QString path = writeSyntheticPreset(dir);
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        auto cli = [&](QStringList arguments) { return trainyard(arguments << QStringLiteral("--db") << db); };
        QCOMPARE(cli({QStringLiteral("run"), path}).code, 0);
        QCOMPARE(cli({QStringLiteral("run"), path, QStringLiteral("--set"), QStringLiteral("opt.lr=0.02")}).code, 0);
        const Output both = cli({QStringLiteral("runs"), QStringLiteral("metrics"), QStringLiteral("2"), QStringLiteral("1"),
                                 QStringLiteral("--metric"), QStringLiteral("val/loss"), QStringLiteral("--csv")});
        QCOMPARE(both.code, 0);
        const QStringList lines = both.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.first(), QStringLiteral("run,uuid,name,step,epoch,time,value"));
        QStringList expected;
        for (const qint64 id : {2, 1}) {
            const QString uuid = RunDatabase::open(db).value()->run(id).value().uuid;
            const Output alone = cli({QStringLiteral("runs"), QStringLiteral("metrics"), QString::number(id), QStringLiteral("--metric"),
                                      QStringLiteral("val/loss"), QStringLiteral("--csv")});
            for (const QString &row : alone.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts).mid(1))
                expected << QStringLiteral("%1,%2,%3").arg(id).arg(uuid, row);
        }
        QCOMPARE(expected.size(), 6);  // 3 epochs each
        QCOMPARE(lines.mid(1), expected);
        const Output unknown = cli({QStringLiteral("runs"), QStringLiteral("metrics"), QStringLiteral("1"), QStringLiteral("9"),
                                    QStringLiteral("--csv")});
        QCOMPARE(unknown.code, 2);
        QCOMPARE(unknown.out, QString());
    }

    // `runs export ID... --tensorboard DIR`: one event file per run, in DIR/ID-NAME/, holding every metric row (the
    // file's contents are checked by TestTensorBoardEvents); an unknown id writes nothing and exits 2.
    void runsExportToTensorBoard()
    {
        QTemporaryDir dir;
        const QString path = writeSyntheticPreset(dir);
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        auto cli = [&](QStringList arguments) { return trainyard(arguments << QStringLiteral("--db") << db); };
        QCOMPARE(cli({QStringLiteral("run"), path, QStringLiteral("--name"), QStringLiteral("blobs a")}).code, 0);
        QCOMPARE(cli({QStringLiteral("run"), path, QStringLiteral("--name"), QStringLiteral("blobs/b")}).code, 0);
        const QString board = dir.filePath(QStringLiteral("board"));
        const Output unknown = cli({QStringLiteral("runs"), QStringLiteral("export"), QStringLiteral("1"), QStringLiteral("5"),
                                    QStringLiteral("--tensorboard"), board});
        QCOMPARE(unknown.code, 2);
        QVERIFY(!QFileInfo::exists(board));
        const Output exported = cli({QStringLiteral("runs"), QStringLiteral("export"), QStringLiteral("1"), QStringLiteral("2"),
                                     QStringLiteral("--tensorboard"), board});
        QCOMPARE(exported.code, 0);
        QCOMPARE(QDir(board).entryList(QDir::Dirs | QDir::NoDotAndDotDot), (QStringList{"1-blobs_a", "2-blobs_b"}));
        const qsizetype rows = RunDatabase::open(db).value()->metrics(2, QString()).value().size();
        QVERIFY2(exported.out.contains(QStringLiteral("run 2: %1 rows -> ").arg(rows)), qPrintable(exported.out));
        const QStringList files = QDir(board + QStringLiteral("/2-blobs_b")).entryList(QDir::Files);
        QCOMPARE(files.size(), 1);
        QVERIFY(files.first().startsWith(QStringLiteral("events.out.tfevents.")));
        QVERIFY(QFileInfo(board + QStringLiteral("/2-blobs_b/") + files.first()).size() > rows * 30);
    }

    void validateRefusesWhatRunRefuses()
    {
        QTemporaryDir dir;
        const QString path = writeSyntheticPreset(dir);
        for (const QStringList &sets : {QStringList{QStringLiteral("data.val_count=100000")},
                                        QStringList{QStringLiteral("data.limit=30"), QStringLiteral("data.val_count=30")},
                                        QStringList{QStringLiteral("data.limit=1"), QStringLiteral("data.val_fraction=0.9")}}) {
            QStringList extra;
            for (const QString &set : sets)
                extra << QStringLiteral("--set") << set;
            const Output validated = trainyard(QStringList{QStringLiteral("validate"), path} + extra);
            const Output run = trainyard(QStringList{QStringLiteral("run"), path, QStringLiteral("--db"), dir.filePath(QStringLiteral("r.sqlite"))} + extra);
            QCOMPARE(run.code, 2);
            QCOMPARE(validated.code, 2);
            QVERIFY2(run.err.contains(QStringLiteral("leaves no training examples")), qPrintable(run.err));
            const QString reason = run.err.section(QStringLiteral("error: "), 1).section(QLatin1Char('\n'), 0, 0);
            QVERIFY2(validated.err.contains(reason), qPrintable(QStringLiteral("validate: %1\nrun: %2").arg(validated.err, reason)));
        }
    }

    void validateKeptClasses()
    {
        if (!QDir(QStringLiteral("/usr/share/datasets/fashion-mnist")).exists())
            TY_SKIP_WITHOUT_DATA("Fashion-MNIST is not installed (dataset-fashion-mnist)");
        const QString mlp = preset("fashion-mnist-mlp");
        const QString keep = QStringLiteral("data.keep_classes=0,1,2,3,4");
        const Output five = trainyard({QStringLiteral("validate"), mlp, QStringLiteral("--set"), keep, QStringLiteral("--set"),
                                       QStringLiteral("fc4.out_features=5"), QStringLiteral("--json")});
        QCOMPARE(five.code, 0);
        QCOMPARE(jsonObject(five.out).value(QStringLiteral("ok")).toBool(), true);
        QCOMPARE(qint64(jsonObject(five.out).value(QStringLiteral("total_params")).toDouble()), qint64(247766 - 5 * 101));

        const Output ten = trainyard({QStringLiteral("validate"), mlp, QStringLiteral("--set"), keep});
        QCOMPARE(ten.code, 2);
        QVERIFY2(ten.err.contains(QStringLiteral("node 'loss', port 'input': expects [5] logits per sample (5 classes), got [10]")), qPrintable(ten.err));

        const Output unknown = trainyard({QStringLiteral("validate"), mlp, QStringLiteral("--set"), QStringLiteral("data.keep_classes=0,10")});
        QCOMPARE(unknown.code, 2);
        QVERIFY2(unknown.err.contains(QStringLiteral("node 'data', param 'keep_classes': class 10 is not a class of this data set (it has 10: 0 to 9)")),
                 qPrintable(unknown.err));
    }

    // A CSV's classes are kept by label: two of the wine cultivars and a head of two.
    void validateKeptClassesOfACsvByLabel()
    {
        const QString wine = preset("wine-tabular");
        const Output two = trainyard({QStringLiteral("validate"), wine, QStringLiteral("--set"), QStringLiteral("data.keep_classes=cultivar_2,cultivar_0"),
                                      QStringLiteral("--set"), QStringLiteral("fc2.out_features=2")});
        QVERIFY2(two.code == 0 && two.out.contains(QStringLiteral("no issues")), qPrintable(two.out + two.err));
        const Output positional = trainyard({QStringLiteral("validate"), wine, QStringLiteral("--set"), QStringLiteral("data.keep_classes=0,2"),
                                             QStringLiteral("--set"), QStringLiteral("fc2.out_features=2")});
        QCOMPARE(positional.code, 2);
        QVERIFY2(positional.err.contains(QStringLiteral("node 'data', param 'keep_classes': no class \"0\" in this data set (its classes are: "
                                                        "cultivar_0, cultivar_1, cultivar_2)")),
                 qPrintable(positional.err));
    }

    void validateReadsEveryCsvCell()
    {
        // A text column among the features: validate refuses it, naming the file, line and column, as run would.
        QTemporaryDir dir;
        QFile csv(dir.filePath(QStringLiteral("colours.csv")));
        QVERIFY(csv.open(QIODevice::WriteOnly));
        csv.write("size,colour,label\n1.5,2,0\n2.5,3,1\n0.5,red,0\n");
        csv.close();
        const QString wine = preset("wine-tabular");
        const QStringList args{QStringLiteral("--set"), QStringLiteral("data.path=") + csv.fileName(), QStringLiteral("--set"),
                               QStringLiteral("data.target=label"), QStringLiteral("--set"), QStringLiteral("fc2.out_features=2")};
        const Output validated = trainyard(QStringList{QStringLiteral("validate"), wine} + args);
        QCOMPARE(validated.code, 2);
        QVERIFY2(validated.err.contains(QStringLiteral("node 'data', param 'features': %1:4: column 'colour': 'red' is not a number")
                                            .arg(csv.fileName())),
                 qPrintable(validated.err));
    }

    void badInputExitsTwoAndRecordsNothing_data()
    {
        QTest::addColumn<QByteArray>("content");   // preset file content ("" keeps the synthetic preset)
        QTest::addColumn<QStringList>("extra");     // extra arguments
        QTest::addColumn<QString>("message");       // expected in stderr

        QTest::newRow("malformed json") << QByteArray("{\n  \"format\": \"trainyard-preset\",\n  \"nodes\": [,]\n}") << QStringList()
                                        << "bad.trainyard.json:3:";
        QTest::newRow("unknown block") << QByteArray(R"({"format":"trainyard-preset","version":1,"nodes":[{"id":"x","block":"layer.magic"}]})")
                                       << QStringList() << "node 'x', param 'block': unknown block \"layer.magic\"";
        QTest::newRow("set names nothing") << QByteArray() << QStringList{QStringLiteral("--set"), QStringLiteral("nothing.lr=1")}
                                           << "no node \"nothing\"";
        QTest::newRow("set wrong type") << QByteArray() << QStringList{QStringLiteral("--set"), QStringLiteral("fc1.out_features=many")}
                                        << "node 'fc1', field 'out_features': --set fc1.out_features=many: expected an integer";
        QTest::newRow("negative epochs") << QByteArray() << QStringList{QStringLiteral("--set"), QStringLiteral("training.epochs=-1")}
                                         << "must be at least 0";
        QTest::newRow("absurd size") << QByteArray() << QStringList{QStringLiteral("--set"), QStringLiteral("fc1.out_features=100000000")}
                                     << "must be at most";
        QTest::newRow("bad device") << QByteArray() << QStringList{QStringLiteral("--device"), QStringLiteral("tpu")} << "expected one of auto, cpu, cuda";
        QTest::newRow("cycle") << QByteArray(R"({"format":"trainyard-preset","version":1,"nodes":[
            {"id":"data","block":"dataset.synthetic"},{"id":"a","block":"layer.relu"},{"id":"b","block":"layer.add"},
            {"id":"loss","block":"loss.cross_entropy"},{"id":"opt","block":"optimizer.sgd"}],
            "edges":[{"from":"data.features","to":"b.a"},{"from":"b.out","to":"a.in"},{"from":"a.out","to":"b.b"},
            {"from":"a.out","to":"loss.input"},{"from":"data.target","to":"loss.target"},{"from":"loss.loss","to":"opt.loss"}]})")
                               << QStringList() << "node is on a cycle";
        QTest::newRow("dangling edge") << QByteArray(R"({"format":"trainyard-preset","version":1,"nodes":[{"id":"data","block":"dataset.synthetic"}],
            "edges":[{"from":"data.features","to":"ghost.in"}]})") << QStringList() << "names node \"ghost\", which does not exist";
        QTest::newRow("missing data file") << QByteArray(R"({"format":"trainyard-preset","version":1,"nodes":[
            {"id":"data","block":"dataset.csv","params":{"path":"missing.csv"}},{"id":"fc","block":"layer.linear"},
            {"id":"loss","block":"loss.cross_entropy"},{"id":"opt","block":"optimizer.sgd"}],
            "edges":[{"from":"data.features","to":"fc.in"},{"from":"fc.out","to":"loss.input"},{"from":"data.target","to":"loss.target"},
            {"from":"loss.loss","to":"opt.loss"}]})") << QStringList() << "missing.csv";
        QTest::newRow("truncated data file") << QByteArray(R"({"format":"trainyard-preset","version":1,"nodes":[
            {"id":"data","block":"dataset.idx","params":{"train_images":"images.idx","train_labels":"labels.idx"}},
            {"id":"flat","block":"layer.flatten"},{"id":"fc","block":"layer.linear","params":{"out_features":2}},
            {"id":"loss","block":"loss.cross_entropy"},{"id":"opt","block":"optimizer.sgd"}],
            "edges":[{"from":"data.images","to":"flat.in"},{"from":"flat.out","to":"fc.in"},{"from":"fc.out","to":"loss.input"},
            {"from":"data.labels","to":"loss.target"},{"from":"loss.loss","to":"opt.loss"}]})") << QStringList() << "images.idx: truncated";
        QTest::newRow("missing overlay") << QByteArray() << QStringList{QStringLiteral("--overlay"), QStringLiteral("/nonexistent/gpu.json")}
                                         << "/nonexistent/gpu.json: file not found";
        QTest::newRow("incompatible swap") << QByteArray() << QStringList{QStringLiteral("--set"), QStringLiteral("act.block=loss.mse")}
                                           << "loss.mse cannot replace layer.tanh: it has no input \"in\"";
        QTest::newRow("kept class beyond the data set") << QByteArray() << QStringList{QStringLiteral("--set"), QStringLiteral("data.keep_classes=1,4")}
                                                        << "node 'data', param 'keep_classes': class 4 is not a class of this data set (it has 4: 0 to 3)";
        QTest::newRow("huge --set value") << QByteArray() << QStringList{QStringLiteral("--set"), QStringLiteral("opt.lr=") + QString(120000, QLatin1Char('x'))}
                                          << "expected a number, got \"xxxx";
        QTest::newRow("repeat of an unknown block") << QByteArray(R"({"format":"trainyard-preset","version":1,"nodes":[
            {"id":"data","block":"dataset.synthetic"},{"id":"fc","block":"layer.nosuch","repeat":3},
            {"id":"loss","block":"loss.cross_entropy"},{"id":"opt","block":"optimizer.sgd"}],
            "edges":[{"from":"data.features","to":"fc.in"},{"from":"fc.out","to":"loss.input"},{"from":"data.target","to":"loss.target"},
            {"from":"loss.loss","to":"opt.loss"}]})") << QStringList() << "unknown block \"layer.nosuch\"";
    }

    void badInputExitsTwoAndRecordsNothing()
    {
        QFETCH(QByteArray, content);
        QFETCH(QStringList, extra);
        QFETCH(QString, message);
        QTemporaryDir dir;
        QString path = writeSyntheticPreset(dir);
        if (!content.isEmpty()) {
            path = dir.filePath(QStringLiteral("bad.trainyard.json"));
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(content);
        }
        writeTruncatedIdxPair(dir);
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const Output run = trainyard(QStringList{QStringLiteral("run"), path, QStringLiteral("--db"), db} + extra);
        QCOMPARE(run.code, 2);
        QVERIFY2(run.err.contains(message), qPrintable(run.err.left(2000)));
        QVERIFY2(run.err.size() < 2000, qPrintable(QStringLiteral("a message of %1 characters").arg(run.err.size())));
        QVERIFY2(!QFile::exists(db), "the database must not be touched by bad input");
    }

    void runRecordsAFinishedRun()
    {
        QTemporaryDir dir;
        const QString path = writeSyntheticPreset(dir);
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const Output run = trainyard({QStringLiteral("run"), path, QStringLiteral("--db"), db, QStringLiteral("--name"), QStringLiteral("first"),
                                QStringLiteral("--set"), QStringLiteral("opt.lr=0.02")});
        QCOMPARE(run.code, 0);
        QVERIFY2(run.out.contains(QStringLiteral("run 1 finished after 3 epochs")), qPrintable(run.out + run.err));

        const Output show = trainyard({QStringLiteral("runs"), QStringLiteral("show"), QStringLiteral("1"), QStringLiteral("--db"), db, QStringLiteral("--json")});
        QCOMPARE(show.code, 0);
        const QJsonObject json = jsonObject(show.out);
        QCOMPARE(json.value(QStringLiteral("id")).toInt(), 1);
        QCOMPARE(json.value(QStringLiteral("name")).toString(), QStringLiteral("first"));
        QCOMPARE(json.value(QStringLiteral("status")).toString(), QStringLiteral("finished"));
        // Its identity across databases, and the machine it ran on.
        QCOMPARE(QUuid::fromString(json.value(QStringLiteral("uuid")).toString()).version(), QUuid::Random);
        QCOMPARE(json.value(QStringLiteral("host")).toString(), QSysInfo::machineHostName());
        // The preset as run, with the override applied.
        const QJsonArray nodes = json.value(QStringLiteral("preset")).toObject().value(QStringLiteral("nodes")).toArray();
        QCOMPARE(nodes.at(6).toObject().value(QStringLiteral("params")).toObject().value(QStringLiteral("lr")).toDouble(), 0.02);
        const QJsonObject summary = json.value(QStringLiteral("summary")).toObject();
        QVERIFY2(summary.value(QStringLiteral("test/accuracy")).toDouble() > 0.7, qPrintable(show.out));
        QVERIFY(summary.contains(QStringLiteral("train/loss")));
        QVERIFY(summary.contains(QStringLiteral("val/loss")));
        QVERIFY(!json.value(QStringLiteral("checkpoints")).toArray().isEmpty());
        QVERIFY(QFile::exists(json.value(QStringLiteral("checkpoints")).toArray().last().toObject().value(QStringLiteral("path")).toString()));

        const Output list = trainyard({QStringLiteral("runs"), QStringLiteral("list"), QStringLiteral("--db"), db});
        QCOMPARE(list.code, 0);
        QVERIFY(list.out.contains(QStringLiteral("finished")));
        QVERIFY(list.out.contains(QStringLiteral("first")));

        const Output csv = trainyard({QStringLiteral("runs"), QStringLiteral("metrics"), QStringLiteral("1"), QStringLiteral("--db"), db,
                                QStringLiteral("--metric"), QStringLiteral("train/loss"), QStringLiteral("--csv")});
        QCOMPARE(csv.code, 0);
        const QStringList lines = csv.out.trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.first(), QStringLiteral("name,step,epoch,time,value"));
        // 600 samples, 60 for validation, batches of 32: 17 steps per epoch, 3 epochs.
        QCOMPARE(lines.size(), 1 + 51);
        QVERIFY(lines.at(1).startsWith(QStringLiteral("train/loss,1,1,")));

        QCOMPARE(trainyard({QStringLiteral("runs"), QStringLiteral("show"), QStringLiteral("99"), QStringLiteral("--db"), db}).code, 2);
    }

    // A run from a preset merged with an overlay file and a block swapped by --set: the merged preset is what
    // runs and is recorded, with the overlay's path and sha256; validate names the overlays it merged.
    void runWithAnOverlayAndASwap()
    {
        QTemporaryDir dir;
        const QString path = writeSyntheticPreset(dir);
        const QString overlay = dir.filePath(QStringLiteral("short.json"));
        {
            QFile file(overlay);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(R"({"name": "short", "training": {"epochs": 2}, "nodes": {"fc1": {"params": {"out_features": 12}}}})");
        }
        const Output validated = trainyard({QStringLiteral("validate"), path, QStringLiteral("--overlay"), overlay, QStringLiteral("--set"),
                                            QStringLiteral("act.block=layer.relu")});
        QCOMPARE(validated.code, 0);
        QVERIFY2(validated.out.startsWith(path + QStringLiteral(" + ") + overlay + QStringLiteral(": short")), qPrintable(validated.out));
        QVERIFY2(validated.out.contains(QStringLiteral("layer.relu")), qPrintable(validated.out));

        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const Output run = trainyard({QStringLiteral("run"), path, QStringLiteral("--overlay"), overlay, QStringLiteral("--set"),
                                      QStringLiteral("act.block=layer.relu"), QStringLiteral("--db"), db, QStringLiteral("--quiet")});
        QCOMPARE(run.code, 0);
        QVERIFY2(run.out.contains(QStringLiteral("run 1 finished after 2 epochs")), qPrintable(run.out + run.err));
        const QJsonObject json = jsonObject(trainyard({QStringLiteral("runs"), QStringLiteral("show"), QStringLiteral("1"), QStringLiteral("--db"), db,
                                                       QStringLiteral("--json")}).out);
        QCOMPARE(json.value(QStringLiteral("name")).toString(), QStringLiteral("short"));
        const Result<Preset> ran = presetFromJson(json.value(QStringLiteral("preset")).toObject(), path);
        QVERIFY(ran.ok());
        QCOMPARE(ran.value().graph.node(QStringLiteral("fc1"))->params.value(QStringLiteral("out_features")).toInt(), 12);
        QCOMPARE(ran.value().graph.node(QStringLiteral("act"))->block, QStringLiteral("layer.relu"));
        const QJsonArray sources = json.value(QStringLiteral("provenance")).toObject().value(QStringLiteral("overlays")).toArray();
        QCOMPARE(sources.size(), 1);
        // The thread settings that decide the order of sums are recorded, so the run can be repeated bit for bit.
        const QJsonObject threads = json.value(QStringLiteral("provenance")).toObject().value(QStringLiteral("threads")).toObject();
        QVERIFY(threads.value(QStringLiteral("torch")).toInt() >= 1);
        QCOMPARE(threads.value(QStringLiteral("OMP_NUM_THREADS")).toString(), QString::fromLocal8Bit(qgetenv("OMP_NUM_THREADS")));
        for (const QJsonValue checkpoint : json.value(QStringLiteral("checkpoints")).toArray())
            QVERIFY(QStringList({QStringLiteral("best"), QStringLiteral("periodic")}).contains(checkpoint.toObject().value(QStringLiteral("kind")).toString()));
        QCOMPARE(sources.at(0).toObject().value(QStringLiteral("file")).toString(), QFileInfo(overlay).absoluteFilePath());
        QFile merged(overlay);
        QVERIFY(merged.open(QIODevice::ReadOnly));
        QCOMPARE(sources.at(0).toObject().value(QStringLiteral("sha256")).toString(),
                 QString::fromLatin1(QCryptographicHash::hash(merged.readAll(), QCryptographicHash::Sha256).toHex()));
        // Commands that load no preset refuse the option.
        QCOMPARE(trainyard({QStringLiteral("runs"), QStringLiteral("list"), QStringLiteral("--db"), db, QStringLiteral("--overlay"), overlay}).code, 2);
    }

    void divergedRunExitsOne()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("regression.trainyard.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"format": "trainyard-preset", "version": 1, "nodes": [
            {"id": "data", "block": "dataset.synthetic", "params": {"kind": "regression", "samples": 500}},
            {"id": "fc", "block": "layer.linear", "params": {"out_features": 1}},
            {"id": "loss", "block": "loss.mse"}, {"id": "opt", "block": "optimizer.sgd", "params": {"lr": 10}}],
          "edges": [{"from": "data.features", "to": "fc.in"}, {"from": "fc.out", "to": "loss.input"},
                    {"from": "data.target", "to": "loss.target"}, {"from": "loss.loss", "to": "opt.loss"}],
          "training": {"epochs": 5, "batch_size": 16, "device": "cpu"}})");
        file.close();
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const Output run = trainyard({QStringLiteral("run"), path, QStringLiteral("--db"), db});
        QCOMPARE(run.code, 1);
        QVERIFY2(run.out.contains(QStringLiteral("diverged")), qPrintable(run.out));
        const Output show = trainyard({QStringLiteral("runs"), QStringLiteral("show"), QStringLiteral("1"), QStringLiteral("--db"), db, QStringLiteral("--json")});
        const QJsonObject json = jsonObject(show.out);
        QCOMPARE(json.value(QStringLiteral("status")).toString(), QStringLiteral("diverged"));
        QVERIFY(json.value(QStringLiteral("status_message")).toString().contains(QStringLiteral("the loss became")));
    }

    void eventStreamIsJsonLines()
    {
        QTemporaryDir dir;
        const QString path = writeSyntheticPreset(dir);
        const Output run = trainyard({QStringLiteral("run"), path, QStringLiteral("--db"), dir.filePath(QStringLiteral("runs.sqlite")),
                                      QStringLiteral("--events")});
        QCOMPARE(run.code, 0);
        QStringList kinds;
        int trainLossRows = 0;
        QJsonObject last;
        for (const QString &line : run.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
            QJsonParseError error;
            const QJsonDocument doc = QJsonDocument::fromJson(line.toUtf8(), &error);
            QVERIFY2(error.error == QJsonParseError::NoError && doc.isObject(), qPrintable(line));
            last = doc.object();
            kinds << last.value(QStringLiteral("event")).toString();
            if (kinds.last() == QStringLiteral("metrics"))
                for (const QJsonValue &row : last.value(QStringLiteral("rows")).toArray())
                    trainLossRows += row.toArray().at(0).toString() == QStringLiteral("train/loss");
        }
        QCOMPARE(kinds.first(), QStringLiteral("started"));
        QCOMPARE(kinds.last(), QStringLiteral("finished"));
        QCOMPARE(kinds.count(QStringLiteral("epoch")), 3);
        QVERIFY(kinds.count(QStringLiteral("checkpoint")) >= 1);
        QCOMPARE(trainLossRows, 51);
        QCOMPARE(last.value(QStringLiteral("status")).toString(), QStringLiteral("finished"));
        QVERIFY(last.value(QStringLiteral("summary")).toObject().contains(QStringLiteral("test/accuracy")));

        // Bad input: an "error" event pinned to the node, nothing recorded.
        const Output bad = trainyard({QStringLiteral("run"), path, QStringLiteral("--db"), dir.filePath(QStringLiteral("other.sqlite")),
                                      QStringLiteral("--events"), QStringLiteral("--set"), QStringLiteral("fc2.out_features=5")});
        QCOMPARE(bad.code, 2);
        const QJsonObject error = QJsonDocument::fromJson(bad.out.split(QLatin1Char('\n')).first().toUtf8()).object();
        QCOMPARE(error.value(QStringLiteral("event")).toString(), QStringLiteral("error"));
        QCOMPARE(error.value(QStringLiteral("node")).toString(), QStringLiteral("loss"));
        QCOMPARE(error.value(QStringLiteral("field")).toString(), QStringLiteral("input"));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("other.sqlite"))));
    }

    void unwritableDatabaseIsBadInput()
    {
        QTemporaryDir dir;
        const QString path = writeSyntheticPreset(dir);
        const Output run = trainyard({QStringLiteral("run"), path, QStringLiteral("--db"), QStringLiteral("/proc/trainyard/runs.sqlite")});
        QCOMPARE(run.code, 2);
        QVERIFY2(run.err.contains(QStringLiteral("/proc/trainyard")), qPrintable(run.err));
        QVERIFY(!run.out.contains(QStringLiteral("finished")));
    }

    void runJsonSummary()
    {
        QTemporaryDir dir;
        const QString path = writeSyntheticPreset(dir);
        const Output run = trainyard({QStringLiteral("run"), path, QStringLiteral("--db"), dir.filePath(QStringLiteral("runs.sqlite")), QStringLiteral("--json")});
        QCOMPARE(run.code, 0);
        const QJsonObject json = jsonObject(run.out);
        QCOMPARE(json.value(QStringLiteral("status")).toString(), QStringLiteral("finished"));
        QCOMPARE(json.value(QStringLiteral("epochs")).toInt(), 3);
        QVERIFY(json.value(QStringLiteral("summary")).toObject().contains(QStringLiteral("test/accuracy")));
    }

    // `runs list --json` of a few hundred runs (more than the printer's 64 KB chunks), as a process writes it to
    // stdout and as the in-process call writes it to a string: byte for byte the text QJsonDocument gives the whole
    // array, names with quotes, tabs and non-ASCII letters escaped alike, times as QDateTime writes them (ISO 8601,
    // milliseconds, zero-padded years).
    void runsListJsonIsTheWholeArraysText()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        {
            auto opened = RunDatabase::open(db);
            QVERIFY(opened);
            for (int i = 0; i < 300; ++i) {
                NewRun run;
                run.name = QStringLiteral("run %1 \"quoted\" \u00fcn\u00efcode \u2713\ttab\\").arg(i);
                run.preset = QJsonObject{{QStringLiteral("name"), QStringLiteral("synthetic")}};
                run.provenance = QJsonObject{{QStringLiteral("command"), QJsonArray{QStringLiteral("trainyard-cli"), QStringLiteral("run")}},
                                             {QStringLiteral("nested"), QJsonObject{{QStringLiteral("a"), 1.5 + i}}}};
                run.seed = i;
                QVERIFY(opened.value()->createRun(run));
            }
        }
        QSqlDatabase sql = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("listJson"));
        sql.setDatabaseName(db);
        QVERIFY(sql.open());
        QSqlQuery update(sql);
        QVERIFY(update.exec(QStringLiteral("UPDATE runs SET started_at = '2026-03-04T05:06:07.089Z', ended_at = '0987-11-28T23:59:59.999Z'"
                                           " WHERE id % 7 = 0")));
        sql.close();
        sql = QSqlDatabase();
        QSqlDatabase::removeDatabase(QStringLiteral("listJson"));

        const QStringList arguments{QStringLiteral("runs"), QStringLiteral("list"), QStringLiteral("--db"), db, QStringLiteral("--json")};
        const Output inProcess = trainyard(arguments);
        // The process's stdout a file, as `> runs.json` makes it: a file is written through QFile's buffer, and
        // trainyard-cli ends with _Exit.
        tytest::ProgramOptions toFileOptions;
        toFileOptions.stdoutFile = dir.filePath(QStringLiteral("runs.json"));
        toFileOptions.timeoutMs = 60000;
        const auto toFile = [&](const QStringList &arguments) { return tytest::runProgram(QStringLiteral(TRAINYARD_CLI), arguments, toFileOptions); };
        const Output process = toFile(arguments);
        QCOMPARE(inProcess.code, 0);
        QCOMPARE(process.code, 0);
        QVERIFY(process.out.toUtf8().size() > 200 * 1024);
        const QJsonDocument parsed = QJsonDocument::fromJson(process.out.toUtf8());
        QVERIFY(parsed.isArray());
        QCOMPARE(parsed.array().size(), 300);
        QCOMPARE(process.out, QString::fromUtf8(parsed.toJson(QJsonDocument::Indented)));
        QCOMPARE(inProcess.out, process.out);
        const auto listed = RunDatabase::open(db).value()->listRuns().value();
        QCOMPARE(listed.size(), 300);
        int withTimes = 0;
        for (const QJsonValue &value : parsed.array()) {
            const QJsonObject run = value.toObject();
            const auto same = std::find_if(listed.begin(), listed.end(), [&](const RunInfo &r) { return r.id == run.value(QStringLiteral("id")).toInteger(); });
            QVERIFY(same != listed.end());
            QCOMPARE(run.value(QStringLiteral("name")).toString(), same->name);
            QCOMPARE(run.value(QStringLiteral("created_at")).toString(), same->createdAt.toString(Qt::ISODateWithMs));
            if (same->endedAt.isValid()) {
                ++withTimes;
                QCOMPARE(run.value(QStringLiteral("started_at")).toString(), QStringLiteral("2026-03-04T05:06:07.089Z"));
                QCOMPARE(run.value(QStringLiteral("ended_at")).toString(), same->endedAt.toString(Qt::ISODateWithMs));
                QCOMPARE(run.value(QStringLiteral("ended_at")).toString(), QStringLiteral("0987-11-28T23:59:59.999Z"));
            } else {
                QVERIFY(run.value(QStringLiteral("ended_at")).isNull());
            }
        }
        QCOMPARE(withTimes, 300 / 7);

        // One run (its text smaller than QFile's buffer): all of it reaches the file too.
        QCOMPARE(trainyard({QStringLiteral("runs"), QStringLiteral("tag"), QStringLiteral("5"), QStringLiteral("only"), QStringLiteral("--db"), db}).code, 0);
        const QStringList one = arguments + QStringList{QStringLiteral("--tag"), QStringLiteral("only")};
        const Output oneRun = toFile(one);
        QCOMPARE(oneRun.code, 0);
        QCOMPARE(QJsonDocument::fromJson(oneRun.out.toUtf8()).array().size(), 1);
        QCOMPARE(oneRun.out, trainyard(one).out);
    }

    // Ctrl-C (SIGINT) or SIGTERM at any moment stops the run: while LibTorch and the data load (nothing is
    // recorded, exit 130), or later (a stopped run with a checkpoint, exit 130), never a run trained to the end.
    void stopRequestAtAnyMomentStops_data()
    {
        QTest::addColumn<int>("signal");
        QTest::addColumn<int>("delayMs");
        QTest::addColumn<bool>("twice");  // a second signal 2 ms after the first, as process managers send them
        for (int delay : {0, 40, 150, 600})
            QTest::addRow("SIGINT after %d ms", delay) << int(SIGINT) << delay << false;
        QTest::addRow("SIGTERM after 40 ms") << int(SIGTERM) << 40 << false;
        QTest::addRow("two SIGTERMs 2 ms apart after 900 ms") << int(SIGTERM) << 900 << true;
    }

    void stopRequestAtAnyMomentStops()
    {
        QFETCH(int, signal);
        QFETCH(int, delayMs);
        QFETCH(bool, twice);
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        QProcess process;
        process.start(QStringLiteral(TRAINYARD_CLI), {QStringLiteral("run"), writeSyntheticPreset(dir), QStringLiteral("--db"), db,
                                                      QStringLiteral("--quiet"), QStringLiteral("--set"), QStringLiteral("training.epochs=400")});
        QVERIFY(process.waitForStarted());
        QThread::msleep(delayMs);
        ::kill(pid_t(process.processId()), signal);
        if (twice) {
            QThread::msleep(2);
            ::kill(pid_t(process.processId()), signal);
        }
        QVERIFY(process.waitForFinished(60000));
        const QString err = QString::fromUtf8(process.readAllStandardError());
        if (process.exitStatus() == QProcess::CrashExit) {  // the signal came before main() could handle it
            QCOMPARE(process.exitCode(), signal);
            QVERIFY(!QFile::exists(db));
            return;
        }
        QVERIFY2(process.exitStatus() == QProcess::NormalExit && process.exitCode() == 130,
                 qPrintable(QStringLiteral("exit %1: %2").arg(process.exitCode()).arg(err.right(1000))));
        if (!QFile::exists(db) || RunDatabase::open(db).value()->listRuns().value().isEmpty()) {
            QVERIFY2(err.contains(QStringLiteral("stopped before training started")), qPrintable(err));
            return;
        }
        const RunInfo run = RunDatabase::open(db).value()->run(1).value();
        QCOMPARE(run.status, RunStatus::Stopped);
        QVERIFY(!RunDatabase::open(db).value()->checkpoints(1).value().isEmpty());
    }

    // An empty --db is refused, not taken as the default database; names with terminal escapes print escaped.
    void emptyDatabasePathAndHostileRunNames()
    {
        const Output empty = trainyard({QStringLiteral("runs"), QStringLiteral("list"), QStringLiteral("--db"), QString()});
        QCOMPARE(empty.code, 2);
        QVERIFY2(empty.err.contains(QStringLiteral("no path given for the run database")), qPrintable(empty.err));
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        QCOMPARE(trainyard({QStringLiteral("run"), writeSyntheticPreset(dir), QStringLiteral("--db"), db, QStringLiteral("--quiet"),
                            QStringLiteral("--set"), QStringLiteral("training.epochs=1"),
                            QStringLiteral("--name"), QStringLiteral("evil\x1b[2J\nname")}).code, 0);
        for (const QStringList &command : {QStringList{QStringLiteral("list")}, QStringList{QStringLiteral("show"), QStringLiteral("1")}}) {
            const Output out = trainyard(QStringList{QStringLiteral("runs")} + command + QStringList{QStringLiteral("--db"), db});
            QCOMPARE(out.code, 0);
            QVERIFY2(out.out.contains(QStringLiteral("evil\\x1b[2J\\nname")), qPrintable(out.out));
            QVERIFY(!out.out.contains(QChar(0x1b)));
        }
    }

    // export: the weights of the last checkpoint under their node names, without optimizer state, byte for byte.
    void exportWritesWeightsUnderNodeNames()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        QCOMPARE(trainyard({QStringLiteral("run"), writeSyntheticPreset(dir), QStringLiteral("--db"), db, QStringLiteral("--quiet")}).code, 0);
        const QString output = dir.filePath(QStringLiteral("weights.safetensors"));
        const Output exported = trainyard({QStringLiteral("export"), QStringLiteral("1"), QStringLiteral("--format"), QStringLiteral("safetensors"),
                                           QStringLiteral("--output"), output, QStringLiteral("--db"), db, QStringLiteral("--json")});
        QVERIFY2(exported.code == 0, qPrintable(exported.err));
        const QJsonObject json = jsonObject(exported.out);
        QCOMPARE(json.value(QStringLiteral("tensors")).toInt(), 4);
        QCOMPARE(json.value(QStringLiteral("checkpoint_step")).toInt(), 51);
        const Result<TensorFile> weights = readSafetensors(output);
        QVERIFY2(weights.ok(), qPrintable(weights.error().toString()));
        QStringList names;
        for (const NamedTensor &t : weights.value().tensors)
            names << t.name;
        QCOMPARE(names, (QStringList{QStringLiteral("fc1.weight"), QStringLiteral("fc1.bias"), QStringLiteral("fc2.weight"), QStringLiteral("fc2.bias")}));
        QCOMPARE(weights.value().find(QStringLiteral("fc2.weight"))->shapeText(), QStringLiteral("[4, 16]"));
        QCOMPARE(weights.value().metadata.value(QStringLiteral("format")), QStringLiteral("trainyard-weights"));
        QCOMPARE(weights.value().metadata.value(QStringLiteral("step")), QStringLiteral("51"));
        const QString checkpoint = RunDatabase::open(db).value()->checkpoints(1).value().last().path;
        QCOMPARE(readSafetensors(checkpoint).value().find(QStringLiteral("fc1.weight"))->data, weights.value().find(QStringLiteral("fc1.weight"))->data);

        // Bad requests change nothing and exit 2.
        auto exportWith = [&](const QStringList &extra) {
            return trainyard(QStringList{QStringLiteral("export")} + extra + QStringList{QStringLiteral("--db"), db});
        };
        const QString other = dir.filePath(QStringLiteral("other.safetensors"));
        const Output tflite = exportWith({QStringLiteral("1"), QStringLiteral("--format"), QStringLiteral("tflite"), QStringLiteral("--output"), other});
        QCOMPARE(tflite.code, 2);
        QVERIFY2(tflite.err.contains(QStringLiteral("--format tflite is not supported")), qPrintable(tflite.err));
        const Output noStep = exportWith({QStringLiteral("1"), QStringLiteral("--checkpoint"), QStringLiteral("7"), QStringLiteral("--output"), other});
        QCOMPARE(noStep.code, 2);
        QVERIFY2(noStep.err.contains(QStringLiteral("run 1 has no checkpoint at step 7 (it has: 17, 34, 51)")), qPrintable(noStep.err));
        QCOMPARE(exportWith({QStringLiteral("9"), QStringLiteral("--output"), other}).code, 2);
        QCOMPARE(exportWith({QStringLiteral("1")}).code, 2);
        QVERIFY(!QFile::exists(other));

        // ONNX (tests/export runs such models with onnxruntime): the same names, a dynamic batch dimension.
        const QString model = dir.filePath(QStringLiteral("model.onnx"));
        const Output onnx = exportWith({QStringLiteral("1"), QStringLiteral("--format"), QStringLiteral("onnx"), QStringLiteral("--output"), model,
                                        QStringLiteral("--json")});
        QVERIFY2(onnx.code == 0, qPrintable(onnx.err));
        const QJsonObject onnxJson = jsonObject(onnx.out);
        QCOMPARE(onnxJson.value(QStringLiteral("format")).toString(), QStringLiteral("onnx"));
        QCOMPARE(onnxJson.value(QStringLiteral("checkpoint_step")).toInt(), 51);
        QCOMPARE(onnxJson.value(QStringLiteral("initializers")).toArray(),
                 (QJsonArray{QStringLiteral("fc1.weight"), QStringLiteral("fc1.bias"), QStringLiteral("fc2.weight"), QStringLiteral("fc2.bias")}));
        QCOMPARE(onnxJson.value(QStringLiteral("input")).toObject().value(QStringLiteral("shape")).toArray().first().toString(), QStringLiteral("N"));
        QCOMPARE(onnxJson.value(QStringLiteral("output_tensor")).toObject().value(QStringLiteral("shape")).toArray(), (QJsonArray{QStringLiteral("N"), 4}));
        QVERIFY(QFileInfo(model).size() > 0);

        // A checkpoint forged together with its recorded sha256, holding a NaN weight: nothing is exported.
        const CheckpointRecord last = RunDatabase::open(db).value()->checkpoints(1).value().last();
        TensorFile forged = readSafetensors(last.path).value();
        for (NamedTensor &t : forged.tensors)
            if (t.name == QStringLiteral("fc2.bias")) {
                const float nan = std::nanf("");
                std::memcpy(t.data.data(), &nan, 4);
            }
        const QByteArray bytes = encodeSafetensors(forged);
        QVERIFY(writeFileAtomically(last.path, bytes).ok());
        {
            QSqlDatabase raw = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("raw"));
            raw.setDatabaseName(db);
            QVERIFY(raw.open());
            QVERIFY(QSqlQuery(raw).exec(QStringLiteral("UPDATE checkpoints SET sha256 = '%1' WHERE path = '%2'")
                                            .arg(QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex()), last.path)));
            raw.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("raw"));
        const QString nanOut = dir.filePath(QStringLiteral("nan.safetensors"));
        for (const QString &format : {QStringLiteral("safetensors"), QStringLiteral("onnx")}) {
            const Output refused = exportWith({QStringLiteral("1"), QStringLiteral("--format"), format, QStringLiteral("--output"), nanOut});
            QCOMPARE(refused.code, 2);
            QVERIFY2(refused.err.contains(QStringLiteral("tensor \"fc2.bias\" holds NaN or infinite values")), qPrintable(refused.err));
            QVERIFY(!QFile::exists(nanOut));
        }
    }

    // A finished run is evaluated on its test split by itself; `evaluate` agrees with the accuracy the run
    // recorded, stores what it computes, and refuses bad requests without storing anything.
    void evaluateScoresAndStoresRuns()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        QCOMPARE(trainyard({QStringLiteral("run"), writeSyntheticPreset(dir), QStringLiteral("--db"), db, QStringLiteral("--quiet")}).code, 0);
        const double recorded = RunDatabase::open(db).value()->lastMetricValues(1).value().value(QStringLiteral("test/accuracy"));
        QVERIFY(recorded > 0.7);
        {
            const QList<EvaluationRecord> automatic = RunDatabase::open(db).value()->evaluations(1).value();
            QCOMPARE(automatic.size(), 1);
            QCOMPARE(automatic.first().split, QStringLiteral("test"));
            QCOMPARE(automatic.first().checkpointStep, qint64(51));
            QCOMPARE(automatic.first().sampleCount, qint64(200));
            QCOMPARE(automatic.first().accuracy, recorded);
            QCOMPARE(RunDatabase::open(db).value()->evaluationSamples(automatic.first().id).value().size(), 200);
        }

        auto evaluate = [&](const QStringList &extra) {
            return trainyard(QStringList{QStringLiteral("evaluate")} + extra + QStringList{QStringLiteral("--db"), db});
        };
        const Output last = evaluate({QStringLiteral("1"), QStringLiteral("--json"), QStringLiteral("--top"), QStringLiteral("2")});
        QVERIFY2(last.code == 0, qPrintable(last.err));
        const QJsonObject json = jsonObject(last.out);
        QCOMPARE(json.value(QStringLiteral("run")).toInt(), 1);
        QCOMPARE(json.value(QStringLiteral("split")).toString(), QStringLiteral("test"));
        QCOMPARE(json.value(QStringLiteral("checkpoint_step")).toInt(), 51);
        QCOMPARE(json.value(QStringLiteral("count")).toInt(), 200);
        QCOMPARE(json.value(QStringLiteral("accuracy")).toDouble(), recorded);
        QCOMPARE(json.value(QStringLiteral("metrics")).toObject().value(QStringLiteral("accuracy")).toDouble(), recorded);
        QCOMPARE(json.value(QStringLiteral("top_k")).toInt(), 2);
        QVERIFY(json.value(QStringLiteral("top_k_accuracy")).toDouble() >= recorded);
        QCOMPARE(json.value(QStringLiteral("classes")).toArray().size(), 4);
        // The confusion matrix: rows are true classes; its diagonal is the correct predictions, its row sums
        // the supports of the per-class table.
        const QJsonArray confusion = json.value(QStringLiteral("confusion")).toArray();
        const QJsonArray perClass = json.value(QStringLiteral("per_class")).toArray();
        QCOMPARE(confusion.size(), 4);
        QCOMPARE(perClass.size(), 4);
        qint64 total = 0, diagonal = 0;
        for (int t = 0; t < 4; ++t) {
            qint64 row = 0;
            for (int p = 0; p < 4; ++p)
                row += confusion.at(t).toArray().at(p).toInt();
            diagonal += confusion.at(t).toArray().at(t).toInt();
            total += row;
            QCOMPARE(perClass.at(t).toObject().value(QStringLiteral("support")).toInt(), row);
            QVERIFY(perClass.at(t).toObject().value(QStringLiteral("f1")).toDouble() > 0.3);
        }
        QCOMPARE(total, qint64(200));
        QCOMPARE(double(diagonal) / 200.0, recorded);
        const QJsonArray mistakes = json.value(QStringLiteral("mistakes")).toArray();
        QCOMPARE(mistakes.size(), std::min<qint64>(10, 200 - diagonal));
        for (int i = 0; i < mistakes.size(); ++i) {
            const QJsonObject m = mistakes.at(i).toObject();
            QVERIFY(m.value(QStringLiteral("label")).toString() != m.value(QStringLiteral("predicted")).toString());
            QVERIFY(m.value(QStringLiteral("confidence")).toDouble() > 0.25 && m.value(QStringLiteral("confidence")).toDouble() <= 1.0);
            if (i > 0)
                QVERIFY(m.value(QStringLiteral("confidence")).toDouble() <= mistakes.at(i - 1).toObject().value(QStringLiteral("confidence")).toDouble());
        }

        // The best checkpoint: the newest one recorded as best (the epoch with the lowest val/loss), a file of its own.
        const QList<CheckpointRecord> written = RunDatabase::open(db).value()->checkpoints(1).value();
        const auto best = std::find_if(written.rbegin(), written.rend(), [](const CheckpointRecord &c) { return c.best; });
        QVERIFY(best != written.rend());
        QVERIFY(best->path.contains(QStringLiteral("best-step-")));
        QCOMPARE(std::count_if(written.begin(), written.end(), [](const CheckpointRecord &c) { return c.best && QFile::exists(c.path); }), 1);
        const Output bestRun = evaluate({QStringLiteral("1"), QStringLiteral("--checkpoint"), QStringLiteral("best"), QStringLiteral("--json")});
        QVERIFY2(bestRun.code == 0, qPrintable(bestRun.err));
        QCOMPARE(qint64(jsonObject(bestRun.out).value(QStringLiteral("checkpoint_step")).toInt()), best->step);

        // An earlier checkpoint and another split are evaluations of their own.
        const Output early = evaluate({QStringLiteral("1"), QStringLiteral("--checkpoint"), QStringLiteral("17"), QStringLiteral("--split"),
                                       QStringLiteral("val")});
        QVERIFY2(early.code == 0, qPrintable(early.err));
        QVERIFY2(early.out.contains(QStringLiteral("val split, 60 samples, weights of step 17")), qPrintable(early.out));
        QVERIFY(early.out.contains(QStringLiteral("confusion matrix")));
        QCOMPARE(RunDatabase::open(db).value()->evaluations(1).value().size(), 2 + (best->step != 51 ? 1 : 0));

        // Bad requests: exit 2, the error names what is wrong, nothing stored.
        const struct {
            QStringList arguments;
            QString message;
        } bad[] = {
            {{QStringLiteral("9")}, QStringLiteral("no run with id 9")},
            {{QStringLiteral("1"), QStringLiteral("--split"), QStringLiteral("nope")}, QStringLiteral("--split")},
            {{QStringLiteral("1"), QStringLiteral("--checkpoint"), QStringLiteral("7")}, QStringLiteral("no checkpoint at step 7")},
            {{QStringLiteral("1"), QStringLiteral("--checkpoint"), QStringLiteral("worst")}, QStringLiteral("use last, best or a step number")},
            {{QStringLiteral("1"), QStringLiteral("--top"), QStringLiteral("x")}, QStringLiteral("--top")},
            {{QStringLiteral("1"), QStringLiteral("--set"), QStringLiteral("opt.lr=1")}, QStringLiteral("--set is not accepted")},
        };
        for (const auto &b : bad) {
            const Output refused = evaluate(b.arguments);
            QVERIFY2(refused.code == 2, qPrintable(b.arguments.join(QLatin1Char(' '))));
            QVERIFY2(refused.err.contains(b.message), qPrintable(refused.err));
        }
        // Weights damaged after the run wrote them are refused before they are read.
        const QString checkpoint = RunDatabase::open(db).value()->checkpoints(1).value().last().path;
        {
            QFile file(checkpoint);
            QVERIFY(file.open(QIODevice::ReadWrite));
            file.seek(file.size() - 4);
            file.write("\x01\x02\x03\x04", 4);
        }
        const Output damaged = evaluate({QStringLiteral("1")});
        QCOMPARE(damaged.code, 2);
        QVERIFY2(damaged.err.contains(QStringLiteral("replaced or damaged")), qPrintable(damaged.err));
        QCOMPARE(RunDatabase::open(db).value()->evaluations(1).value().size(), 2 + (best->step != 51 ? 1 : 0));

        // Special and huge files in the checkpoint's place are refused at once, unread and unhashed: a FIFO (which
        // would block), /dev/zero (which never ends), a 3 GB sparse file, the real checkpoint with 3 GB appended.
        const QByteArray original = [&] {
            QFile file(checkpoint);
            file.open(QIODevice::ReadOnly);
            return file.readAll();
        }();
        const struct {
            const char *what;
            std::function<bool()> make;
            QString message;
        } impostors[] = {
            {"FIFO", [&] { return ::mkfifo(QFile::encodeName(checkpoint).constData(), 0600) == 0; }, QStringLiteral("not a regular file (a FIFO)")},
            {"/dev/zero", [&] { return QFile::link(QStringLiteral("/dev/zero"), checkpoint); }, QStringLiteral("not a regular file (a device)")},
            {"sparse", [&] { QFile f(checkpoint); return f.open(QIODevice::WriteOnly) && f.resize(qint64(3) << 30); },
             QStringLiteral("not a safetensors file")},
            {"appended", [&] { QFile f(checkpoint); return f.open(QIODevice::WriteOnly) && f.write(original) == original.size() &&
                                                         f.resize(qint64(3) << 30); },
             QStringLiteral("bytes after the last tensor's data")},
        };
        for (const auto &impostor : impostors) {
            QFile::remove(checkpoint);
            QVERIFY2(impostor.make(), impostor.what);
            const QString out = dir.filePath(QStringLiteral("exported.safetensors"));
            for (const QStringList &command : {QStringList{QStringLiteral("evaluate"), QStringLiteral("1")},
                                               QStringList{QStringLiteral("export"), QStringLiteral("1"), QStringLiteral("--output"), out}}) {
                const Output refused = trainyard(command + QStringList{QStringLiteral("--db"), db});
                QVERIFY2(refused.code == 2, qPrintable(QStringLiteral("%1, %2: %3").arg(QLatin1String(impostor.what), command.first(), refused.err)));
                QVERIFY2(refused.err.contains(impostor.message) && refused.err.contains(checkpoint),
                         qPrintable(QStringLiteral("%1, %2: %3").arg(QLatin1String(impostor.what), command.first(), refused.err)));
            }
            QVERIFY(!QFileInfo::exists(out));
        }
        QFile::remove(checkpoint);
        QVERIFY(writeFileAtomically(checkpoint, original).ok());  // the damaged checkpoint again: its hash is checked
        QVERIFY(evaluate({QStringLiteral("1")}).err.contains(QStringLiteral("replaced or damaged")));
    }

    // predict reads images and IDX files the way the data set is read: PNG copies of test samples get exactly the
    // predictions the run's own test evaluation stored; upscaled RGB JPEGs of confidently classified samples keep
    // their class; bad inputs exit 2 naming the file.
    void predictClassifiesImagesAndIdxFiles()
    {
        const QString fashion = QStringLiteral("/usr/share/datasets/fashion-mnist");
        if (!QDir(fashion).exists())
            TY_SKIP_WITHOUT_DATA("Fashion-MNIST is not installed (dataset-fashion-mnist)");
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const Output run = trainyard({QStringLiteral("run"), preset("fashion-mnist-mlp"), QStringLiteral("--db"), db, QStringLiteral("--quiet"),
                                      QStringLiteral("--set"), QStringLiteral("data.limit=3000"), QStringLiteral("--set"), QStringLiteral("data.val_count=300"),
                                      QStringLiteral("--set"), QStringLiteral("data.test_limit=500"), QStringLiteral("--set"), QStringLiteral("training.epochs=2"),
                                      QStringLiteral("--set"), QStringLiteral("training.device=cpu")});
        QVERIFY2(run.code == 0, qPrintable(run.err));
        std::unique_ptr<RunDatabase> records = std::move(RunDatabase::open(db).value());
        const QList<EvaluationRecord> evaluations = records->evaluations(1).value();
        QCOMPARE(evaluations.size(), 1);
        const QList<EvaluationSampleRow> stored = records->evaluationSamples(evaluations.first().id).value();
        QCOMPARE(stored.size(), 500);

        Result<IdxArray> images = readIdxFile(fashion + QStringLiteral("/t10k-images-idx3-ubyte.gz"));
        QVERIFY(images.ok());
        auto sampleImage = [&](int i) {
            return QImage(images.value().bytes.data() + i * 784, 28, 28, 28, QImage::Format_Grayscale8).copy();
        };
        QStringList pngs, jpegs;
        for (int i = 0; i < 12; ++i) {
            pngs << dir.filePath(QStringLiteral("sample%1.png").arg(i));
            QVERIFY(sampleImage(i).save(pngs.last()));
            jpegs << dir.filePath(QStringLiteral("sample%1.jpg").arg(i));
            QVERIFY(sampleImage(i).convertToFormat(QImage::Format_RGB888).scaled(56, 56).save(jpegs.last(), "JPEG", 95));
        }
        const Output png = trainyard(QStringList{QStringLiteral("predict"), QStringLiteral("1")} + pngs
                                     + QStringList{QStringLiteral("--db"), db, QStringLiteral("--json"), QStringLiteral("--top"), QStringLiteral("10")});
        QVERIFY2(png.code == 0, qPrintable(png.err));
        const QStringList pngLines = png.out.trimmed().split(QLatin1Char('\n'));
        QCOMPARE(pngLines.size(), 12);
        QList<double> confidence;
        QList<int> predicted;
        for (int i = 0; i < 12; ++i) {
            const QJsonObject line = jsonObject(pngLines[i]);
            QCOMPARE(line.value(QStringLiteral("input")).toString(), QStringLiteral("sample%1.png").arg(i));
            const QJsonArray top = line.value(QStringLiteral("top")).toArray();
            QCOMPARE(top.size(), 10);
            double sum = 0;
            for (const QJsonValue &c : top)
                sum += c.toObject().value(QStringLiteral("probability")).toDouble();
            QVERIFY(std::abs(sum - 1.0) < 1e-6);
            predicted << top.at(0).toObject().value(QStringLiteral("index")).toInt();
            confidence << top.at(0).toObject().value(QStringLiteral("probability")).toDouble();
            QCOMPARE(double(predicted.last()), stored[i].predicted);
            QVERIFY(std::abs(confidence.last() - stored[i].confidence) < 1e-5);
        }

        const Output jpeg = trainyard(QStringList{QStringLiteral("predict"), QStringLiteral("1")} + jpegs + QStringList{QStringLiteral("--db"), db});
        QVERIFY2(jpeg.code == 0, qPrintable(jpeg.err));
        const QStringList jpegLines = jpeg.out.trimmed().split(QLatin1Char('\n'));
        QCOMPARE(jpegLines.size(), 12);
        // The four most confident samples keep their class through upscaling, RGB and JPEG compression.
        QList<int> byConfidence{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
        std::sort(byConfidence.begin(), byConfidence.end(), [&](int a, int b) { return confidence[a] > confidence[b]; });
        for (int i : byConfidence.mid(0, 4)) {
            const QString className = jsonObject(pngLines[i]).value(QStringLiteral("predicted")).toString();
            QVERIFY2(jpegLines[i].startsWith(QStringLiteral("sample%1.jpg: %2 ").arg(i).arg(className)),
                     qPrintable(jpegLines[i] + QStringLiteral(" / png: ") + pngLines[i]));
        }

        // An IDX file of the first 50 test images: the stored predictions again.
        const QString idx = dir.filePath(QStringLiteral("fifty.idx"));
        {
            QFile file(idx);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(QByteArray::fromHex("00000803" "00000032" "0000001c" "0000001c"));
            file.write(reinterpret_cast<const char *>(images.value().bytes.data()), 50 * 784);
        }
        const Output fifty = trainyard({QStringLiteral("predict"), QStringLiteral("1"), idx, QStringLiteral("--db"), db, QStringLiteral("--json")});
        QVERIFY2(fifty.code == 0, qPrintable(fifty.err));
        const QStringList idxLines = fifty.out.trimmed().split(QLatin1Char('\n'));
        QCOMPARE(idxLines.size(), 50);
        for (int i = 0; i < 50; ++i) {
            const QJsonObject line = jsonObject(idxLines[i]);
            QCOMPARE(line.value(QStringLiteral("input")).toString(), QStringLiteral("fifty.idx[%1]").arg(i));
            QCOMPARE(double(line.value(QStringLiteral("top")).toArray().at(0).toObject().value(QStringLiteral("index")).toInt()), stored[i].predicted);
        }

        // Bad inputs.
        const QString garbage = dir.filePath(QStringLiteral("garbage.png"));
        {
            QFile file(garbage);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("\x89PNG but not really an image");
        }
        const QString table = dir.filePath(QStringLiteral("rows.csv"));
        {
            QFile file(table);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("a,b\n1,2\n");
        }
        const struct {
            QStringList inputs;
            QString message;
        } bad[] = {
            {{garbage}, QStringLiteral("garbage.png")},
            {{pngs.first(), table}, QStringLiteral("not table rows")},
            {{dir.filePath(QStringLiteral("missing.png"))}, QStringLiteral("no such file")},
            {{dir.path()}, QStringLiteral("unknown kind of input")},
        };
        for (const auto &b : bad) {
            const Output refused = trainyard(QStringList{QStringLiteral("predict"), QStringLiteral("1")} + b.inputs + QStringList{QStringLiteral("--db"), db});
            QVERIFY2(refused.code == 2, qPrintable(b.inputs.join(QLatin1Char(' '))));
            QVERIFY2(refused.err.contains(b.message), qPrintable(refused.err));
            QVERIFY(refused.out.isEmpty());
        }
        QCOMPARE(trainyard({QStringLiteral("predict"), QStringLiteral("1"), QStringLiteral("--db"), db}).code, 2);
        QCOMPARE(trainyard({QStringLiteral("predict"), QStringLiteral("7"), pngs.first(), QStringLiteral("--db"), db}).code, 2);
    }

    // predict on CSV rows finds the training columns by name (the label column may be there), standardizes them
    // like the training data, and names the file, line and column of a bad cell.
    void predictReadsCsvRowsByColumnName()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const Output run = trainyard({QStringLiteral("run"), preset("wine-tabular"), QStringLiteral("--db"), db, QStringLiteral("--quiet")});
        QVERIFY2(run.code == 0, qPrintable(run.err));
        // The whole table, columns in another order: most rows get their own cultivar.
        QFile wine(preset("wine").replace(QStringLiteral(".trainyard.json"), QStringLiteral(".csv")));
        QVERIFY(wine.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = wine.readAll().trimmed().split('\n');
        QByteArray reordered;
        QStringList labels;
        for (const QByteArray &line : lines) {
            QList<QByteArray> cells = line.trimmed().split(',');
            std::reverse(cells.begin(), cells.end());
            reordered += cells.join(',') + '\n';
            labels << QString::fromUtf8(line.trimmed().split(',').last());
        }
        const QString rows = dir.filePath(QStringLiteral("rows.csv"));
        {
            QFile file(rows);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(reordered);
        }
        const Output predicted = trainyard({QStringLiteral("predict"), QStringLiteral("1"), rows, QStringLiteral("--db"), db, QStringLiteral("--json")});
        QVERIFY2(predicted.code == 0, qPrintable(predicted.err));
        const QStringList out = predicted.out.trimmed().split(QLatin1Char('\n'));
        QCOMPARE(out.size(), lines.size() - 1);
        int right = 0;
        for (int i = 0; i < out.size(); ++i)
            right += jsonObject(out[i]).value(QStringLiteral("predicted")).toString() == labels[i + 1] ? 1 : 0;
        QVERIFY2(right > 0.85 * out.size(), qPrintable(QString::number(right)));
        QCOMPARE(jsonObject(out.first()).value(QStringLiteral("input")).toString(), QStringLiteral("rows.csv line 2"));

        auto writeCsv = [&](const QByteArray &text) {
            const QString path = dir.filePath(QStringLiteral("bad.csv"));
            QFile file(path);
            file.open(QIODevice::WriteOnly | QIODevice::Truncate);
            file.write(text);
            return path;
        };
        QByteArray missing = lines.first();
        missing.replace("magnesium,", "");
        const Output noColumn = trainyard({QStringLiteral("predict"), QStringLiteral("1"), writeCsv(missing + "\n"), QStringLiteral("--db"), db});
        QCOMPARE(noColumn.code, 2);
        QVERIFY2(noColumn.err.contains(QStringLiteral("bad.csv")) && noColumn.err.contains(QStringLiteral("\"magnesium\"")), qPrintable(noColumn.err));
        QByteArray word = lines.at(1);
        word.replace(0, word.indexOf(','), "strong");
        const Output notNumber = trainyard({QStringLiteral("predict"), QStringLiteral("1"), writeCsv(lines.first() + "\n" + word + "\n"),
                                            QStringLiteral("--db"), db});
        QCOMPARE(notNumber.code, 2);
        QVERIFY2(notNumber.err.contains(QStringLiteral("line 2: column \"alcohol\" is not a number")), qPrintable(notNumber.err));
    }

    // evaluate and predict on every bundled preset, trained briefly: the evaluation agrees with the run's own
    // test/accuracy and names the data set's classes; predict reads the data set's kind of file and refuses
    // another kind.
    void evaluateAndPredictEveryBundledPreset_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("classes");
        QTest::newRow("mlp") << "fashion-mnist-mlp" << 10;
        QTest::newRow("cnn") << "fashion-mnist-cnn" << 10;
        QTest::newRow("resnet") << "fashion-mnist-resnet" << 10;
        QTest::newRow("wine") << "wine-tabular" << 3;
    }

    void evaluateAndPredictEveryBundledPreset()
    {
        QFETCH(QString, name);
        QFETCH(int, classes);
        const bool images = name.startsWith(QStringLiteral("fashion"));
        const QString fashion = QStringLiteral("/usr/share/datasets/fashion-mnist");
        if (images && !QDir(fashion).exists())
            TY_SKIP_WITHOUT_DATA("Fashion-MNIST is not installed (dataset-fashion-mnist)");
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        QStringList run{QStringLiteral("run"), preset(name.toLatin1().constData()), QStringLiteral("--db"), db, QStringLiteral("--quiet"),
                        QStringLiteral("--set"), QStringLiteral("training.epochs=1"), QStringLiteral("--set"), QStringLiteral("training.device=cpu")};
        if (images)
            run << QStringLiteral("--set") << QStringLiteral("data.limit=2000") << QStringLiteral("--set") << QStringLiteral("data.val_count=200")
                << QStringLiteral("--set") << QStringLiteral("data.test_limit=500");
        QVERIFY2(trainyard(run).code == 0, qPrintable(name));
        const double recorded = RunDatabase::open(db).value()->lastMetricValues(1).value().value(QStringLiteral("test/accuracy"));

        const Output evaluated = trainyard({QStringLiteral("evaluate"), QStringLiteral("1"), QStringLiteral("--db"), db, QStringLiteral("--json")});
        QVERIFY2(evaluated.code == 0, qPrintable(evaluated.err));
        const QJsonObject json = jsonObject(evaluated.out);
        QCOMPARE(json.value(QStringLiteral("accuracy")).toDouble(), recorded);
        QCOMPARE(json.value(QStringLiteral("classes")).toArray().size(), classes);
        QCOMPARE(json.value(QStringLiteral("confusion")).toArray().size(), classes);
        QCOMPARE(json.value(QStringLiteral("classes")).toArray().first().toString(),
                 images ? QStringLiteral("T-shirt/top") : QStringLiteral("cultivar_0"));

        // Inputs of the data set's kind: an IDX file of three test images, or the CSV itself.
        QString input = dir.filePath(QStringLiteral("three.idx"));
        int expected = 3;
        if (images) {
            Result<IdxArray> test = readIdxFile(fashion + QStringLiteral("/t10k-images-idx3-ubyte.gz"));
            QVERIFY(test.ok());
            QFile file(input);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(QByteArray::fromHex("00000803" "00000003" "0000001c" "0000001c"));
            file.write(reinterpret_cast<const char *>(test.value().bytes.data()), 3 * 784);
        } else {
            input = preset("wine").replace(QStringLiteral(".trainyard.json"), QStringLiteral(".csv"));
            expected = 178;
        }
        const Output predicted = trainyard({QStringLiteral("predict"), QStringLiteral("1"), input, QStringLiteral("--db"), db});
        QVERIFY2(predicted.code == 0, qPrintable(predicted.err));
        QCOMPARE(predicted.out.trimmed().split(QLatin1Char('\n')).size(), expected);
        // The other kind of input is refused, naming the file.
        const QString other = images ? preset("wine").replace(QStringLiteral(".trainyard.json"), QStringLiteral(".csv")) : dir.filePath(QStringLiteral("three.idx"));
        if (!images) {
            QFile file(other);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(QByteArray::fromHex("00000803" "00000001" "00000002" "00000002" "01020304"));
        }
        const Output refused = trainyard({QStringLiteral("predict"), QStringLiteral("1"), other, QStringLiteral("--db"), db});
        QCOMPARE(refused.code, 2);
        QVERIFY2(refused.err.contains(QFileInfo(other).fileName()), qPrintable(refused.err));
        // Text is for character models only.
        const Output text = trainyard({QStringLiteral("predict"), QStringLiteral("1"), QStringLiteral("--text"), QStringLiteral("abc"), QStringLiteral("--db"), db});
        QCOMPARE(text.code, 2);
        QVERIFY2(text.err.contains(QStringLiteral("needs a model trained on text (dataset.text)")), qPrintable(text.err));
    }

    // predict --text on a character model: the next characters after a prompt (lower-cased as the data set is),
    // a continuation that the seed repeats, greedy at temperature 0, and clear refusals.
    void predictContinuesTextWithACharacterModel()
    {
        if (!QFile::exists(QStringLiteral("/usr/share/dict/words")))
            TY_SKIP_WITHOUT_DATA("The word list is not installed (wamerican)");
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const Output run = trainyard({QStringLiteral("run"), preset("words-char-lstm"), QStringLiteral("--db"), db, QStringLiteral("--quiet"),
                                      QStringLiteral("--set"), QStringLiteral("training.epochs=1"), QStringLiteral("--set"), QStringLiteral("training.device=cpu"),
                                      QStringLiteral("--set"), QStringLiteral("data.limit=4000"), QStringLiteral("--set"), QStringLiteral("data.val_count=200"),
                                      QStringLiteral("--set"), QStringLiteral("data.test_limit=500")});
        QVERIFY2(run.code == 0, qPrintable(run.err));
        const auto predict = [&](const QStringList &extra) {
            return trainyard(QStringList{QStringLiteral("predict"), QStringLiteral("1"), QStringLiteral("--db"), db} + extra);
        };
        const Output next = predict({QStringLiteral("--text"), QStringLiteral("Hel"), QStringLiteral("--top"), QStringLiteral("5"), QStringLiteral("--json")});
        QVERIFY2(next.code == 0, qPrintable(next.err));
        const QJsonObject n = jsonObject(next.out);
        QCOMPARE(n.value(QStringLiteral("prompt")).toString(), QStringLiteral("hel"));
        QCOMPARE(n.value(QStringLiteral("window")).toInt(), 16);
        const QJsonArray top = n.value(QStringLiteral("next")).toArray();
        QCOMPARE(top.size(), 5);
        double sum = 0, previous = 1;
        for (const QJsonValue &c : top) {
            const double p = c.toObject().value(QStringLiteral("probability")).toDouble();
            QVERIFY(p <= previous && p > 0);
            previous = p;
            sum += p;
        }
        QVERIFY(sum <= 1.0 + 1e-9);
        QVERIFY(!n.contains(QStringLiteral("generated")));

        const QStringList sampled{QStringLiteral("--text"), QStringLiteral("qu"), QStringLiteral("--generate"), QStringLiteral("60"), QStringLiteral("--json")};
        const Output a = predict(sampled + QStringList{QStringLiteral("--seed"), QStringLiteral("3")});
        const Output b = predict(sampled + QStringList{QStringLiteral("--seed"), QStringLiteral("3")});
        const Output c = predict(sampled + QStringList{QStringLiteral("--seed"), QStringLiteral("4")});
        QVERIFY2(a.code == 0 && c.code == 0, qPrintable(a.err + c.err));
        const QString generated = jsonObject(a.out).value(QStringLiteral("generated")).toString();
        QCOMPARE(generated.size(), 60);
        QCOMPARE(jsonObject(b.out).value(QStringLiteral("generated")).toString(), generated);
        QVERIFY(jsonObject(c.out).value(QStringLiteral("generated")).toString() != generated);
        // Temperature 0 always takes the most probable character: the first one is the top of the list.
        const Output greedy = predict({QStringLiteral("--text"), QStringLiteral("qu"), QStringLiteral("--generate"), QStringLiteral("5"),
                                       QStringLiteral("--temperature"), QStringLiteral("0"), QStringLiteral("--json")});
        QVERIFY2(greedy.code == 0, qPrintable(greedy.err));
        const QJsonObject g = jsonObject(greedy.out);
        const QString first = g.value(QStringLiteral("next")).toArray().first().toObject().value(QStringLiteral("class")).toString();
        const QString firstGenerated = g.value(QStringLiteral("generated")).toString().left(1);
        QCOMPARE(firstGenerated, first == QStringLiteral("\\n") ? QStringLiteral("\n") : first);
        // The plain form: the list, then the prompt and its continuation on a line.
        const Output plain = predict({QStringLiteral("--text"), QStringLiteral("qu"), QStringLiteral("--generate"), QStringLiteral("8"), QStringLiteral("--seed"), QStringLiteral("1")});
        QVERIFY2(plain.code == 0 && plain.out.startsWith(QStringLiteral("next: ")) && plain.out.contains(QStringLiteral("\nqu")), qPrintable(plain.out));

        const Output euro = predict({QStringLiteral("--text"), QStringLiteral("pric\u20ac")});
        QCOMPARE(euro.code, 2);
        QVERIFY2(euro.err.contains(QStringLiteral("--text")) && euro.err.contains(QStringLiteral("'\u20ac'")), qPrintable(euro.err));
        QCOMPARE(predict({QStringLiteral("--generate"), QStringLiteral("5"), QStringLiteral("x.png")}).code, 2);
        QCOMPARE(predict({QStringLiteral("--text"), QStringLiteral("a"), QStringLiteral("--generate"), QStringLiteral("-1")}).code, 2);
        QCOMPARE(predict({QStringLiteral("--text"), QStringLiteral("a"), QStringLiteral("--temperature"), QStringLiteral("hot")}).code, 2);
        QCOMPARE(predict({QStringLiteral("--text"), QStringLiteral("a"), QStringLiteral("extra.png")}).code, 2);
    }

    // Two databases in one folder keep their run folders apart.
    void databasesInOneFolderDoNotShareRunFolders()
    {
        QTemporaryDir dir;
        const QString preset = writeSyntheticPreset(dir);
        QStringList checkpoints;
        for (const QString &name : {QStringLiteral("a.sqlite"), QStringLiteral("b.sqlite")}) {
            const QString db = dir.filePath(name);
            QCOMPARE(trainyard({QStringLiteral("run"), preset, QStringLiteral("--db"), db, QStringLiteral("--quiet"),
                                QStringLiteral("--set"), QStringLiteral("training.epochs=1")}).code, 0);
            const QList<CheckpointRecord> recorded = periodic(RunDatabase::open(db).value()->checkpoints(1).value());
            QCOMPARE(recorded.size(), 1);
            QVERIFY2(recorded.first().path.startsWith(db + QStringLiteral("-runs/1/checkpoints/")), qPrintable(recorded.first().path));
            checkpoints << recorded.first().path;
        }
        QVERIFY(QFile::exists(checkpoints.at(0)) && QFile::exists(checkpoints.at(1)));
    }

    // resume loads only the very file its run wrote: another run's checkpoint copied over it, or an old LibTorch
    // archive, is refused with exit 2 and nothing changes.
    void resumeRefusesForeignCheckpoints()
    {
        QTemporaryDir dir;
        const QString preset = writeSyntheticPreset(dir);
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        for (int i = 0; i < 2; ++i)
            QCOMPARE(trainyard({QStringLiteral("run"), preset, QStringLiteral("--db"), db, QStringLiteral("--quiet"),
                                QStringLiteral("--set"), QStringLiteral("training.checkpoint_every=1")}).code, 0);
        QList<CheckpointRecord> first, second;
        qint64 rowsBefore = 0;
        {
            auto opened = RunDatabase::open(db);
            first = periodic(opened.value()->checkpoints(1).value());
            second = periodic(opened.value()->checkpoints(2).value());
            rowsBefore = opened.value()->metrics(1).value().size();
        }
        QVERIFY(first.size() >= 2 && second.size() >= 2);
        {
            QSqlDatabase raw = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("raw"));
            raw.setDatabaseName(db);
            QVERIFY(raw.open());
            QVERIFY(QSqlQuery(raw).exec(QStringLiteral("UPDATE runs SET status = 'interrupted' WHERE id = 1")));
            // Only the first epoch's checkpoint is left, as after a crash in the second epoch.
            QVERIFY(QSqlQuery(raw).exec(QStringLiteral("DELETE FROM checkpoints WHERE run_id = 1 AND step > %1").arg(first.first().step)));
            raw.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("raw"));
        QVERIFY(QFile::remove(first.first().path));
        QVERIFY(QFile::copy(second.first().path, first.first().path));  // the same preset, the same step: another run's
        const Output withSet = trainyard({QStringLiteral("resume"), QStringLiteral("1"), QStringLiteral("--db"), db,
                                          QStringLiteral("--set"), QStringLiteral("opt.lr=1")});
        QCOMPARE(withSet.code, 2);
        QVERIFY2(withSet.err.contains(QStringLiteral("--set is not accepted")), qPrintable(withSet.err));
        const Output replaced = trainyard({QStringLiteral("resume"), QStringLiteral("1"), QStringLiteral("--db"), db});
        QCOMPARE(replaced.code, 2);
        QVERIFY2(replaced.err.contains(QStringLiteral("this is not the checkpoint run 1 wrote at step %1").arg(first.first().step)), qPrintable(replaced.err));
        QCOMPARE(RunDatabase::open(db).value()->metrics(1).value().size(), rowsBefore);
        QCOMPARE(RunDatabase::open(db).value()->run(1).value().status, RunStatus::Interrupted);

        // A checkpoint recorded by an older version (no checksum), a LibTorch archive: refused without loading it.
        const QString archive = dir.filePath(QStringLiteral("step-00000017.pt"));
        {
            QFile file(archive);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(QByteArray("PK\x03\x04", 4) + QByteArray(64, 'x'));
        }
        {
            QSqlDatabase raw = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("raw"));
            raw.setDatabaseName(db);
            QVERIFY(raw.open());
            QSqlQuery insert(raw);
            QVERIFY(insert.exec(QStringLiteral("INSERT INTO checkpoints (run_id, step, epoch, path) VALUES (1, 40, 2, '%1')").arg(archive)));
            raw.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("raw"));
        const Output old = trainyard({QStringLiteral("resume"), QStringLiteral("1"), QStringLiteral("--db"), db});
        QCOMPARE(old.code, 2);
        QVERIFY2(old.err.contains(QStringLiteral("LibTorch archive")), qPrintable(old.err));
        QCOMPARE(RunDatabase::open(db).value()->metrics(1).value().size(), rowsBefore);
    }

    // A run's folder and database are input: resume writes and deletes only in the run's own folder, never through
    // a link or into a folder the database was edited to name, and checkpoint_keep deletes only files the run
    // wrote and recorded. Every checkpoint recorded is a file that exists (a newer best takes the older's record).
    void resumeWritesAndDeletesOnlyItsOwnFiles()
    {
        QTemporaryDir dir;
        const QString preset = writeSyntheticPreset(dir);
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        QCOMPARE(trainyard({QStringLiteral("run"), preset, QStringLiteral("--db"), db, QStringLiteral("--quiet"), QStringLiteral("--set"),
                            QStringLiteral("training.checkpoint_every=1"), QStringLiteral("--set"), QStringLiteral("training.checkpoint_keep=2")}).code, 0);
        QList<CheckpointRecord> recorded = RunDatabase::open(db).value()->checkpoints(1).value();
        QCOMPARE(std::count_if(recorded.begin(), recorded.end(), [](const CheckpointRecord &c) { return c.best; }), 1);
        for (const CheckpointRecord &c : recorded)
            QVERIFY2(QFile::exists(c.path), qPrintable(c.path));
        const QList<CheckpointRecord> kept = periodic(recorded);
        QCOMPARE(kept.size(), 2);
        const QString folder = QFileInfo(kept.first().path).absolutePath();

        // As after a crash in the last epoch: only the first kept checkpoint is recorded; a file the run never
        // wrote lies beside it, first in name order.
        auto sql = [&](const QString &statement) {
            QSqlDatabase raw = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("raw"));
            raw.setDatabaseName(db);
            const bool ok = raw.open() && QSqlQuery(raw).exec(statement);
            raw.close();
            raw = QSqlDatabase();
            QSqlDatabase::removeDatabase(QStringLiteral("raw"));
            return ok;
        };
        QVERIFY(sql(QStringLiteral("UPDATE runs SET status = 'interrupted' WHERE id = 1")));
        QVERIFY(sql(QStringLiteral("DELETE FROM checkpoints WHERE run_id = 1 AND step > %1").arg(kept.first().step)));
        QVERIFY(QFile::remove(kept.last().path));
        const QString foreign = QDir(folder).filePath(QStringLiteral("step-00000001.safetensors"));
        QVERIFY(writeFileAtomically(foreign, "not written by this run").ok());

        // A link in the run's folder, or a folder the database was edited to name: refused, nothing changes.
        const QString elsewhere = dir.filePath(QStringLiteral("elsewhere"));
        QVERIFY(QDir().mkpath(elsewhere));
        QVERIFY(writeFileAtomically(elsewhere + QStringLiteral("/step-00000002.safetensors"), "someone else's").ok());
        QVERIFY(QDir().rename(folder, folder + QStringLiteral(".real")));
        QVERIFY(QFile::link(elsewhere, folder));
        const Output linked = trainyard({QStringLiteral("resume"), QStringLiteral("1"), QStringLiteral("--db"), db});
        QCOMPARE(linked.code, 2);
        QVERIFY2(linked.err.contains(QStringLiteral("is a symbolic link")) && linked.err.contains(folder), qPrintable(linked.err));
        QVERIFY(QFile::remove(folder));
        QVERIFY(QDir().rename(folder + QStringLiteral(".real"), folder));
        QVERIFY(sql(QStringLiteral("UPDATE runs SET folder = '%1' WHERE id = 1").arg(elsewhere)));
        const Output edited = trainyard({QStringLiteral("resume"), QStringLiteral("1"), QStringLiteral("--db"), db});
        QCOMPARE(edited.code, 2);
        QVERIFY2(edited.err.contains(QStringLiteral("not this database's own folder")), qPrintable(edited.err));
        QCOMPARE(QDir(elsewhere).entryList(QDir::Files), QStringList{QStringLiteral("step-00000002.safetensors")});
        QCOMPARE(RunDatabase::open(db).value()->run(1).value().status, RunStatus::Interrupted);
        QVERIFY(sql(QStringLiteral("UPDATE runs SET folder = NULL WHERE id = 1")));

        // Resumed, it keeps two checkpoints of its own; the file it did not write stays.
        const Output resumed = trainyard({QStringLiteral("resume"), QStringLiteral("1"), QStringLiteral("--db"), db, QStringLiteral("--quiet")});
        QVERIFY2(resumed.code == 0, qPrintable(resumed.err));
        QVERIFY(QFile::exists(foreign));
        recorded = RunDatabase::open(db).value()->checkpoints(1).value();
        QCOMPARE(periodic(recorded).size(), 2);
        for (const CheckpointRecord &c : recorded)
            QVERIFY2(QFile::exists(c.path), qPrintable(c.path));
    }

    // A staged run started from another run's best checkpoint: validate lists the stages, the run records them
    // and its parent, and a parent that is not there is bad input that records nothing.
    void stagedRunFromAnotherRun()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const QString parent = writeSyntheticPreset(dir);
        QCOMPARE(trainyard({QStringLiteral("run"), parent, QStringLiteral("--db"), db, QStringLiteral("--quiet")}).code, 0);
        const QString staged = writeSyntheticPreset(dir, R"(, "stages": [
            {"name": "head", "epochs": 1, "freeze": ["fc1"], "set": {"opt.lr": 0.02}},
            {"name": "all", "epochs": 2, "unfreeze": ["fc1"], "set": {"opt.lr": "2e-3"}}],
          "init_from": {"run": 1, "checkpoint": "best", "nodes": ["fc1"]})");

        const Output validate = trainyard({QStringLiteral("validate"), staged});
        QCOMPARE(validate.code, 0);
        QVERIFY2(validate.out.contains(QStringLiteral("1  head   1 epoch     trainable 68, frozen 144 (fc1); set opt.lr=0.02")), qPrintable(validate.out));
        QVERIFY2(validate.out.contains(QStringLiteral("2  all    2 epochs    trainable 212, frozen 0; set opt.lr=2e-3; optimizer reset")), qPrintable(validate.out));
        QVERIFY2(validate.out.contains(QStringLiteral("warning: param 'training.epochs': not used")), qPrintable(validate.out));

        const Output missing = trainyard({QStringLiteral("run"), staged, QStringLiteral("--db"), db, QStringLiteral("--init-from"), QStringLiteral("9:best")});
        QCOMPARE(missing.code, 2);
        QVERIFY2(missing.err.contains(QStringLiteral("init_from: no run with id 9")), qPrintable(missing.err));
        QCOMPARE(RunDatabase::open(db).value()->listRuns().value().size(), 1);

        const Output run = trainyard({QStringLiteral("run"), staged, QStringLiteral("--db"), db});
        QCOMPARE(run.code, 0);
        QVERIFY2(run.err.contains(QStringLiteral("init_from: weights copied: fc1 (2 tensors) from ")), qPrintable(run.err));
        const QJsonObject show = jsonObject(trainyard({QStringLiteral("runs"), QStringLiteral("show"), QStringLiteral("2"), QStringLiteral("--db"), db, QStringLiteral("--json")}).out);
        const QJsonArray stages = show.value(QStringLiteral("stages")).toArray();
        QCOMPARE(stages.size(), 2);
        const qint64 perEpoch = (540 + 31) / 32;
        QCOMPARE(stages.at(0).toObject().value(QStringLiteral("name")).toString(), QStringLiteral("head"));
        QCOMPARE(stages.at(0).toObject().value(QStringLiteral("start_step")).toInteger(), qint64(0));
        QCOMPARE(stages.at(0).toObject().value(QStringLiteral("end_step")).toInteger(), perEpoch);
        QCOMPARE(stages.at(1).toObject().value(QStringLiteral("start_step")).toInteger(), perEpoch);
        QCOMPARE(stages.at(1).toObject().value(QStringLiteral("end_step")).toInteger(), 3 * perEpoch);
        const QJsonObject parentJson = show.value(QStringLiteral("parent")).toObject();
        QCOMPARE(parentJson.value(QStringLiteral("run")).toInteger(), qint64(1));
        const QList<CheckpointRecord> parentCheckpoints = RunDatabase::open(db).value()->checkpoints(1).value();
        CheckpointRecord best;
        for (const CheckpointRecord &c : parentCheckpoints)
            if (c.best)
                best = c;
        QCOMPARE(parentJson.value(QStringLiteral("checkpoint_step")).toInteger(), best.step);
        QCOMPARE(parentJson.value(QStringLiteral("sha256")).toString(), best.sha256);
        QCOMPARE(parentJson.value(QStringLiteral("nodes")).toArray(), QJsonArray{QStringLiteral("fc1")});
        QVERIFY(show.value(QStringLiteral("summary")).toObject().value(QStringLiteral("test/accuracy")).toDouble() > 0.7);
        const Output text = trainyard({QStringLiteral("runs"), QStringLiteral("show"), QStringLiteral("2"), QStringLiteral("--db"), db});
        QVERIFY2(text.out.contains(QStringLiteral("parent     run 1 (blobs), checkpoint at step %1, nodes fc1").arg(best.step)), qPrintable(text.out));
        QVERIFY2(text.out.contains(QStringLiteral("stage 2    all: steps %1 to %2 (2 epochs)").arg(perEpoch).arg(3 * perEpoch)), qPrintable(text.out));
    }

    // The bundled transfer pair, as docs/presets.md runs it (the pre-training cut short): the fine-tuned run
    // learns the other five classes, under their names, from the pre-trained features.
    void transferPresetsTrain()
    {
        if (!QDir(QStringLiteral("/usr/share/datasets/fashion-mnist")).exists())
            TY_SKIP_WITHOUT_DATA("Fashion-MNIST is not installed (dataset-fashion-mnist)");
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        QCOMPARE(trainyard({QStringLiteral("run"), preset("transfer-pretrain-0to4"), QStringLiteral("--db"), db, QStringLiteral("--quiet"),
                            QStringLiteral("--set"), QStringLiteral("data.limit=4000"), QStringLiteral("--set"), QStringLiteral("data.val_count=500"),
                            QStringLiteral("--set"), QStringLiteral("data.test_limit=1000"), QStringLiteral("--set"), QStringLiteral("training.epochs=1")}).code, 0);
        const Output fine = trainyard({QStringLiteral("run"), preset("transfer-finetune-5to9"), QStringLiteral("--db"), db,
                                       QStringLiteral("--init-from"), QStringLiteral("1:best"), QStringLiteral("--set"), QStringLiteral("data.test_limit=1000")});
        QCOMPARE(fine.code, 0);
        QVERIFY2(fine.err.contains(QStringLiteral("weights copied: conv1, conv2, fc1 (6 tensors)")), qPrintable(fine.err));
        const Output evaluated = trainyard({QStringLiteral("evaluate"), QStringLiteral("2"), QStringLiteral("--db"), db, QStringLiteral("--json")});
        QCOMPARE(evaluated.code, 0);
        const QJsonObject json = jsonObject(evaluated.out);
        QVERIFY2(json.value(QStringLiteral("accuracy")).toDouble() > 0.7, qPrintable(evaluated.out.left(300)));
        QStringList names;
        for (const QJsonValue &c : json.value(QStringLiteral("classes")).toArray())
            names << c.toString();
        QCOMPARE(names, (QStringList{QStringLiteral("Sandal"), QStringLiteral("Shirt"), QStringLiteral("Sneaker"), QStringLiteral("Bag"),
                                     QStringLiteral("Ankle boot")}));
    }
};

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    TestCli tests;
    return QTest::qExec(&tests, argc, argv);
}

#include "test_cli.moc"
