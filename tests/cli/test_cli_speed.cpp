// Every run's speed report (speed/* metrics: samples per second, each phase of a timed step, peak memory) as
// `runs show` prints it, and training.profile_steps' Chrome trace in the run's folder; a wrong window is refused
// by validate and run alike, naming the field.

#include "program_run.h"
#include "required_data.h"
#include "test_suite.h"

#include "run_database.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/resource.h>

using namespace ty;

namespace {

using Ran = tytest::CliOutput;

Ran cli(const QStringList &arguments)
{
    tytest::ProgramOptions options;
    options.timeoutMs = 120000;
    return tytest::runProgram(QStringLiteral(TRAINYARD_CLI), arguments, options);
}

// The bundled MLP preset on 2,000 Fashion-MNIST samples (1,000 train: 8 steps of 128 an epoch), logging every
// 4 steps.
QStringList mlp(const QString &db, const QStringList &extra = {})
{
    return QStringList{QStringLiteral("run"), QStringLiteral(TRAINYARD_SOURCE_DIR "/presets/fashion-mnist-mlp.trainyard.json"),
                       QStringLiteral("--db"), db, QStringLiteral("--quiet"),
                       QStringLiteral("--set"), QStringLiteral("data.limit=2000"), QStringLiteral("--set"), QStringLiteral("data.val_count=1000"),
                       QStringLiteral("--set"), QStringLiteral("data.test_limit=500"), QStringLiteral("--set"), QStringLiteral("training.epochs=2"),
                       QStringLiteral("--set"), QStringLiteral("training.log_every=4"), QStringLiteral("--set"), QStringLiteral("training.device=cpu")}
           + extra;
}

} // namespace

class TestCliSpeed : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        if (!QDir(QStringLiteral("/usr/share/datasets/fashion-mnist")).exists())
            TY_SKIP_WITHOUT_DATA("Fashion-MNIST is not installed (dataset-fashion-mnist)");
    }

    void everyRunRecordsItsSpeed()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const Ran run = cli(mlp(db));
        QVERIFY2(run.code == 0, qPrintable(run.err));
        // The last step of each log interval is timed: steps 4 and 8 of both epochs.
        auto opened = RunDatabase::open(db);
        const QList<MetricPoint> rate = opened.value()->metrics(1, QStringLiteral("speed/samples_per_s")).value();
        QCOMPARE(rate.size(), 4);
        QCOMPARE(rate.first().step, 4);
        QCOMPARE(rate.last().step, 16);
        for (const MetricPoint &point : rate)
            QVERIFY2(point.value > 100, qPrintable(QString::number(point.value)));
        for (const char *name : {"speed/data_ms", "speed/forward_ms", "speed/backward_ms", "speed/optimizer_ms", "speed/logging_ms"}) {
            const QList<MetricPoint> phase = opened.value()->metrics(1, QString::fromLatin1(name)).value();
            QCOMPARE(phase.size(), 4);
            QVERIFY2(phase.first().value >= 0, name);
        }
        // One process: no all-reduce row. The phases add up to the step.
        QVERIFY(opened.value()->metrics(1, QStringLiteral("speed/allreduce_ms")).value().isEmpty());
        const QList<MetricPoint> step = opened.value()->metrics(1, QStringLiteral("speed/step_ms")).value();
        double phases = 0;
        for (const char *name : {"speed/data_ms", "speed/forward_ms", "speed/backward_ms", "speed/optimizer_ms", "speed/logging_ms"})
            phases += opened.value()->metrics(1, QString::fromLatin1(name)).value().last().value;
        QVERIFY2(std::abs(phases - step.last().value) < 1e-6, qPrintable(QStringLiteral("%1 vs %2").arg(phases).arg(step.last().value)));
        QVERIFY(step.last().value > 0);
        // Forward and backward of a 784-256-128-100-10 network take time; the peak resident set is at least the
        // data set's 60 MB... of this part: more than 10 MB in any case.
        QVERIFY(opened.value()->metrics(1, QStringLiteral("speed/forward_ms")).value().last().value > 0);
        QVERIFY(opened.value()->metrics(1, QStringLiteral("speed/peak_rss_mb")).value().last().value > 10);
        // On the CPU there is no GPU allocator's peak.
        QVERIFY(opened.value()->metrics(1, QStringLiteral("speed/peak_cuda_mb")).value().isEmpty());

        // runs show: a speed line; --json: speed/* in the summary and a speed object of medians.
        const Ran show = cli({QStringLiteral("runs"), QStringLiteral("show"), QStringLiteral("1"), QStringLiteral("--db"), db});
        QVERIFY2(show.out.contains(QStringLiteral("  speed      ")) && show.out.contains(QStringLiteral("samples/s")), qPrintable(show.out));
        QVERIFY2(show.out.contains(QStringLiteral("(medians of 4 reports)")), qPrintable(show.out));
        const Ran json = cli({QStringLiteral("runs"), QStringLiteral("show"), QStringLiteral("1"), QStringLiteral("--db"), db, QStringLiteral("--json")});
        const QJsonObject shown = QJsonDocument::fromJson(json.out.toUtf8()).object();
        QVERIFY(shown.value(QStringLiteral("summary")).toObject().contains(QStringLiteral("speed/samples_per_s")));
        QVERIFY(shown.value(QStringLiteral("speed")).toObject().value(QStringLiteral("samples_per_s")).toDouble() > 100);
        QCOMPARE(shown.value(QStringLiteral("speed")).toObject().value(QStringLiteral("reports")).toInt(), 4);
        QVERIFY(shown.value(QStringLiteral("speed")).toObject().contains(QStringLiteral("peak_rss_mb")));
        QVERIFY(!shown.value(QStringLiteral("speed")).toObject().contains(QStringLiteral("peak_cuda_mb")));
    }

    // A whole epoch of the MLP on the full training split (430 steps): the steps reuse their memory instead of
    // faulting in fresh pages (core/common/host_allocator.h, set up in trainyard-cli's main). With glibc's
    // defaults this process took about 246,000 minor page faults, most of them in the steps (about 500 a step);
    // set up, about 38,000: LibTorch's libraries, the data set and the evaluation batches.
    void trainingStepsDoNotFaultInFreshPages()
    {
#if defined(__SANITIZE_ADDRESS__)
        QSKIP("AddressSanitizer replaces glibc's allocator (and poisons what is freed): the page faults are its own");
#endif
        QTemporaryDir dir;
        const QStringList arguments{QStringLiteral("run"), QStringLiteral(TRAINYARD_SOURCE_DIR "/presets/fashion-mnist-mlp.trainyard.json"),
                                    QStringLiteral("--db"), dir.filePath(QStringLiteral("runs.sqlite")), QStringLiteral("--quiet"),
                                    QStringLiteral("--set"), QStringLiteral("training.epochs=1"), QStringLiteral("--set"), QStringLiteral("training.device=cpu")};
        struct rusage before {}, after {};
        ::getrusage(RUSAGE_CHILDREN, &before);
        QProcess process;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.remove(QStringLiteral("GLIBC_TUNABLES"));  // a user's tunables would leave glibc's settings alone
        process.setProcessEnvironment(environment);
        process.start(QStringLiteral(TRAINYARD_CLI), arguments);
        QVERIFY(process.waitForFinished(180000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        ::getrusage(RUSAGE_CHILDREN, &after);
        const long faults = after.ru_minflt - before.ru_minflt;
        QVERIFY2(faults < 120000, qPrintable(QStringLiteral("%1 minor page faults for one epoch").arg(faults)));
    }

    void profileStepsWriteAChromeTrace()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const Ran run = cli(mlp(db, {QStringLiteral("--set"), QStringLiteral("training.profile_steps=[3,5]"), QStringLiteral("--events")}));
        QVERIFY2(run.code == 0, qPrintable(run.err));
        auto opened = RunDatabase::open(db);
        const QString trace = QDir(opened.value()->run(1).value().folder).filePath(QStringLiteral("profile-steps-3-5.json"));
        QVERIFY2(run.out.contains(QStringLiteral("\"event\":\"profile\"")) && run.out.contains(QStringLiteral("steps 3 to 5 traced into")),
                 qPrintable(run.out.right(2000)));
        QFile file(trace);
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(trace));
        const QJsonArray events = QJsonDocument::fromJson(file.readAll()).array();
        // Chrome's trace format: complete events ("ph": "X") with a name, a start and a duration, among them the
        // linear layers' matrix products.
        QVERIFY2(events.size() > 50, qPrintable(QString::number(events.size())));
        bool sawMatrixProduct = false;
        for (const QJsonValue &e : events) {
            const QJsonObject event = e.toObject();
            QCOMPARE(event.value(QStringLiteral("ph")).toString(), QStringLiteral("X"));
            QVERIFY(event.contains(QStringLiteral("ts")) && event.contains(QStringLiteral("dur")));
            sawMatrixProduct = sawMatrixProduct || event.value(QStringLiteral("name")).toString().contains(QStringLiteral("addmm"));
        }
        QVERIFY(sawMatrixProduct);
    }

    void aWrongProfileWindowIsRefused()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const Ran run = cli(mlp(db, {QStringLiteral("--set"), QStringLiteral("training.profile_steps=[5,2]")}));
        QCOMPARE(run.code, 2);
        QVERIFY2(run.err.contains(QStringLiteral("training.profile_steps")) && run.err.contains(QStringLiteral("1 <= FROM <= TO")), qPrintable(run.err));
        QVERIFY(!QFile::exists(db));
    }
};

TY_TEST_CLASS(TestCliSpeed)

#include "test_cli_speed.moc"
