// trainyard-cli lrfind: the learning-rate range test on the Fashion-MNIST MLP (a small subset) and on the synthetic
// classifier. The curve stops before --max once the loss runs away, and runs to the end over a range too small to
// hurt; both suggestions lie inside the range; the test is a run of kind lrfind with its curve as metric rows and
// its suggestions as the run's result, apart from the training runs in `runs list`. Bad ranges exit 2 naming the
// option and record nothing.

#include "blobs_preset.h"
#include "cli.h"
#include "cli_in_process.h"
#include "required_data.h"
#include "run_database.h"
#include "training_module.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace ty;

namespace {

using Output = tytest::CliOutput;
using tytest::trainyard;

QString preset(const char *name) { return QStringLiteral(TRAINYARD_SOURCE_DIR "/presets/%1.trainyard.json").arg(QLatin1String(name)); }

QJsonObject jsonOf(const Output &o)
{
    return QJsonDocument::fromJson(o.out.toUtf8()).object();
}

// Both suggestions present and inside [minLr, maxLr]; each at the step the curve has its rate.
void checkSuggestions(const QJsonObject &result, double minLr, double maxLr)
{
    const QJsonArray curve = result.value(QStringLiteral("curve")).toArray();
    for (const char *name : {"steepest", "valley"}) {
        const QJsonObject s = result.value(QStringLiteral("suggestions")).toObject().value(QLatin1String(name)).toObject();
        QVERIFY2(!s.isEmpty(), name);
        const double lr = s.value(QStringLiteral("lr")).toDouble();
        QVERIFY2(lr >= minLr && lr <= maxLr, qPrintable(QStringLiteral("%1 %2").arg(QLatin1String(name)).arg(lr)));
        const int step = s.value(QStringLiteral("step")).toInt();
        QVERIFY(step >= 1 && step <= curve.size());
        QCOMPARE(curve.at(step - 1).toObject().value(QStringLiteral("lr")).toDouble(), lr);
    }
}

class TestCliLrFind : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { cli::linkTrainingCommands(); }
    void mlpCurveStopsWhenTheLossRunsAway();
    void smallRangeRunsEveryStep();
    void refusesBadRanges_data();
    void refusesBadRanges();
};

void TestCliLrFind::mlpCurveStopsWhenTheLossRunsAway()
{
    if (!QDir(QStringLiteral("/usr/share/datasets/fashion-mnist")).exists())
        TY_SKIP_WITHOUT_DATA("Fashion-MNIST is not installed (dataset-fashion-mnist)");
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
    const double minLr = 1e-5, maxLr = 100;
    const int steps = 60;
    const Output found = trainyard({QStringLiteral("lrfind"), preset("fashion-mnist-mlp"), QStringLiteral("--db"), db, QStringLiteral("--json"),
                                    QStringLiteral("--min"), QStringLiteral("1e-5"), QStringLiteral("--max"), QStringLiteral("100"),
                                    QStringLiteral("--steps"), QString::number(steps),
                                    QStringLiteral("--set"), QStringLiteral("data.limit=2000"), QStringLiteral("--set"), QStringLiteral("data.val_count=200"),
                                    QStringLiteral("--set"), QStringLiteral("data.test_limit=100"), QStringLiteral("--set"), QStringLiteral("training.batch_size=64"),
                                    QStringLiteral("--set"), QStringLiteral("training.device=cpu")});
    QVERIFY2(found.code == 0, qPrintable(found.err));
    const QJsonObject result = jsonOf(found);
    const QJsonArray curve = result.value(QStringLiteral("curve")).toArray();
    // Adam at rates up to 100 sends the loss away well before the last step.
    QVERIFY2(result.value(QStringLiteral("stopped_early")).toBool(), qPrintable(found.out.left(3000)));
    QVERIFY(curve.size() < steps);
    QCOMPARE(result.value(QStringLiteral("steps_run")).toInt(), int(curve.size()));
    QVERIFY(result.value(QStringLiteral("last_lr")).toDouble() < maxLr);
    QVERIFY(!result.value(QStringLiteral("stop_reason")).toString().isEmpty());
    // The rates grow by the same factor each step, from --min.
    QCOMPARE(curve.first().toObject().value(QStringLiteral("lr")).toDouble(), minLr);
    const double factor = std::pow(maxLr / minLr, 1.0 / (steps - 1));
    for (qsizetype i = 1; i < curve.size(); ++i)
        QVERIFY(std::abs(curve[i].toObject().value(QStringLiteral("lr")).toDouble() / curve[i - 1].toObject().value(QStringLiteral("lr")).toDouble() - factor) < 1e-9);
    checkSuggestions(result, minLr, maxLr);
    QCOMPARE(result.value(QStringLiteral("optimizer")).toObject().value(QStringLiteral("node")).toString(), QStringLiteral("opt"));
    QCOMPARE(result.value(QStringLiteral("schedule_ignored")).toString(), QStringLiteral("schedule"));  // the preset's cosine schedule

    // Recorded: a finished run of kind lrfind, its curve as metric rows and its suggestions as its result.
    std::unique_ptr<RunDatabase> records = std::move(RunDatabase::open(db).value());
    const qint64 id = result.value(QStringLiteral("id")).toInteger();
    const RunInfo run = records->run(id).value();
    QCOMPARE(run.kind, QString::fromLatin1(kRunKindLrFind));
    QCOMPARE(run.status, RunStatus::Finished);
    QCOMPARE(run.result.value(QStringLiteral("suggestions")), result.value(QStringLiteral("suggestions")));
    const QList<MetricPoint> lrs = records->metrics(id, QStringLiteral("lrfind/lr")).value();
    const QList<MetricPoint> smoothed = records->metrics(id, QStringLiteral("lrfind/smoothed_loss")).value();
    QCOMPARE(lrs.size(), int(curve.size()));
    QCOMPARE(records->metrics(id, QStringLiteral("lrfind/loss")).value().size(), int(curve.size()));
    QCOMPARE(smoothed.at(3).value, curve.at(3).toObject().value(QStringLiteral("smoothed_loss")).toDouble());
    QVERIFY(records->metrics(id, QStringLiteral("train/loss")).value().isEmpty());

    // `runs list` shows the kind and the suggestions; --kind train leaves the test out.
    const Output list = trainyard({QStringLiteral("runs"), QStringLiteral("list"), QStringLiteral("--db"), db});
    QVERIFY2(list.out.contains(QStringLiteral("lrfind")) && list.out.contains(QStringLiteral("valley")), qPrintable(list.out));
    const QJsonArray trainOnly = QJsonDocument::fromJson(trainyard({QStringLiteral("runs"), QStringLiteral("list"), QStringLiteral("--db"), db,
                                                                    QStringLiteral("--kind"), QStringLiteral("train"), QStringLiteral("--json")}).out.toUtf8()).array();
    QVERIFY(trainOnly.isEmpty());
    const QJsonArray tests = QJsonDocument::fromJson(trainyard({QStringLiteral("runs"), QStringLiteral("list"), QStringLiteral("--db"), db,
                                                                QStringLiteral("--kind"), QStringLiteral("lrfind"), QStringLiteral("--json")}).out.toUtf8()).array();
    QCOMPARE(tests.size(), 1);
    QCOMPARE(tests.at(0).toObject().value(QStringLiteral("kind")).toString(), QStringLiteral("lrfind"));
    QCOMPARE(trainyard({QStringLiteral("runs"), QStringLiteral("list"), QStringLiteral("--db"), db, QStringLiteral("--kind"), QStringLiteral("bogus")}).code, 2);
}

// Rates from 1e-7 to 1e-6 barely move the synthetic classifier: the test runs every step (longer than the 19 steps
// of an epoch), and the text report has its table, plot and suggestions.
void TestCliLrFind::smallRangeRunsEveryStep()
{
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
    const QString blobs = tytest::writeBlobsPreset(dir, R"("epochs": 3, "batch_size": 32, "device": "cpu")");
    const Output found = trainyard({QStringLiteral("lrfind"), blobs, QStringLiteral("--db"), db, QStringLiteral("--json"),
                                    QStringLiteral("--min"), QStringLiteral("1e-7"), QStringLiteral("--max"), QStringLiteral("1e-6"),
                                    QStringLiteral("--steps"), QStringLiteral("30")});
    QVERIFY2(found.code == 0, qPrintable(found.err));
    const QJsonObject result = jsonOf(found);
    QVERIFY(!result.value(QStringLiteral("stopped_early")).toBool());
    QCOMPARE(result.value(QStringLiteral("curve")).toArray().size(), 30);
    QVERIFY(std::abs(result.value(QStringLiteral("last_lr")).toDouble() - 1e-6) < 1e-18);
    QVERIFY(result.value(QStringLiteral("schedule_ignored")).isNull());

    // The same test as text: a second run, its table and suggestions printed.
    const Output text = trainyard({QStringLiteral("lrfind"), blobs, QStringLiteral("--db"), db, QStringLiteral("--min"), QStringLiteral("1e-4"),
                                   QStringLiteral("--max"), QStringLiteral("10"), QStringLiteral("--steps"), QStringLiteral("40"), QStringLiteral("--quiet")});
    QVERIFY2(text.code == 0, qPrintable(text.err));
    for (const char *part : {"learning-rate range test of opt (optimizer.adam)", "smoothed", "v valley, s steepest descent", "suggestions:",
                             "--set opt.lr=", "recorded as run 2 (kind lrfind)"})
        QVERIFY2(text.out.contains(QLatin1String(part)), qPrintable(QStringLiteral("%1 missing from:\n%2").arg(QLatin1String(part), text.out)));
    QCOMPARE(RunDatabase::open(db).value()->listRuns().value().size(), 2);
}

void TestCliLrFind::refusesBadRanges_data()
{
    QTest::addColumn<QStringList>("options");
    QTest::addColumn<QString>("named");
    QTest::newRow("min zero") << QStringList{QStringLiteral("--min"), QStringLiteral("0")} << "--min";
    QTest::newRow("min negative") << QStringList{QStringLiteral("--min"), QStringLiteral("-1e-3")} << "--min";
    QTest::newRow("min text") << QStringList{QStringLiteral("--min"), QStringLiteral("small")} << "--min";
    QTest::newRow("max infinite") << QStringList{QStringLiteral("--max"), QStringLiteral("inf")} << "--max";
    QTest::newRow("min above max") << QStringList{QStringLiteral("--min"), QStringLiteral("1"), QStringLiteral("--max"), QStringLiteral("0.1")} << "--min 1 must be below --max 0.1";
    QTest::newRow("min equals max") << QStringList{QStringLiteral("--min"), QStringLiteral("0.1"), QStringLiteral("--max"), QStringLiteral("0.1")} << "must be below --max";
    QTest::newRow("steps 4") << QStringList{QStringLiteral("--steps"), QStringLiteral("4")} << "--steps";
    QTest::newRow("steps fraction") << QStringList{QStringLiteral("--steps"), QStringLiteral("10.5")} << "--steps";
}

void TestCliLrFind::refusesBadRanges()
{
    QFETCH(QStringList, options);
    QFETCH(QString, named);
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
    const Output refused = trainyard(QStringList{QStringLiteral("lrfind"), tytest::writeBlobsPreset(dir, R"("device": "cpu")"),
                                                 QStringLiteral("--db"), db} + options);
    QCOMPARE(refused.code, 2);
    QVERIFY2(refused.err.contains(named), qPrintable(refused.err));
    QVERIFY(!QFile::exists(db));  // nothing recorded
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    TestCliLrFind tests;
    return QTest::qExec(&tests, argc, argv);
}

#include "test_cli_lrfind.moc"
