// Another tool's weights at the command line (docs/import.md), with PyTorch's models and outputs from the CTest
// fixture foreign_weights (tests/engine/make_foreign_weights.py, python3-torch): `run --init-from FILE --init-map
// sequential` of a preset with 0 epochs records a finished run whose predictions are PyTorch's (1e-4), whose import
// report is printed and kept (`runs show --json`: parent.import), and which evaluate, predict and export work on; a
// preset's explicit map does the same for a CNN with batch norm. A network that does not fit is refused strictly,
// naming the tensor, with exit code 2 and nothing recorded (validate says so first); "auto" refuses an ambiguity;
// pickled files are refused with the way out; 0 epochs needs init_from.

#include "cli.h"
#include "cli_in_process.h"
#include "required_data.h"
#include "foreign_weights_fixture.h"
#include "test_suite.h"
#include "run_database.h"
#include "safetensors_file.h"
#include "training_module.h"

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

QString fixture(const QString &name) { return tytest::foreignWeightsFile(name); }

QJsonObject jsonObject(const QString &text)
{
    return QJsonDocument::fromJson(text.toUtf8()).object();
}

QJsonValue jsonFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll());
    return doc.isArray() ? QJsonValue(doc.array()) : QJsonValue(doc.object());
}

// The fixture's preset `name` written to `dir` with its data and weights files as absolute paths, edited by `edit`.
template <typename Edit>
QString writePreset(const QTemporaryDir &dir, const QString &name, Edit edit)
{
    QJsonObject preset = jsonFile(fixture(name + QStringLiteral(".trainyard.json"))).toObject();
    QJsonArray nodes = preset.value(QStringLiteral("nodes")).toArray();
    QJsonObject data = nodes.at(0).toObject();
    QJsonObject params = data.value(QStringLiteral("params")).toObject();
    for (const char *key : {"path", "train_images", "train_labels", "test_images", "test_labels"})
        if (params.contains(QLatin1String(key)))
            params.insert(QLatin1String(key), fixture(params.value(QLatin1String(key)).toString()));
    data.insert(QStringLiteral("params"), params);
    nodes.replace(0, data);
    preset.insert(QStringLiteral("nodes"), nodes);
    QJsonObject training = preset.value(QStringLiteral("training")).toObject();
    if (training.contains(QStringLiteral("init_from"))) {
        QJsonObject init = training.value(QStringLiteral("init_from")).toObject();
        init.insert(QStringLiteral("file"), fixture(init.value(QStringLiteral("file")).toString()));
        training.insert(QStringLiteral("init_from"), init);
    }
    preset.insert(QStringLiteral("training"), training);
    edit(preset);
    const QString path = dir.filePath(name + QStringLiteral(".trainyard.json"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(path));
    file.write(QJsonDocument(preset).toJson());
    return path;
}

QString writePreset(const QTemporaryDir &dir, const QString &name)
{
    return writePreset(dir, name, [](QJsonObject &) {});
}

// Sets training.init_from.KEY of a preset's JSON.
void setInitFrom(QJsonObject &preset, const QString &key, const QJsonValue &value)
{
    QJsonObject training = preset.value(QStringLiteral("training")).toObject();
    QJsonObject init = training.value(QStringLiteral("init_from")).toObject();
    init.insert(key, value);
    training.insert(QStringLiteral("init_from"), init);
    preset.insert(QStringLiteral("training"), training);
}

// The largest difference between predict --json's probabilities (every class) and PyTorch's, sample by sample.
double largestProbabilityDifference(const QString &predictions, const QJsonArray &expected)
{
    const QStringList lines = predictions.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    if (lines.size() != expected.size())
        return std::numeric_limits<double>::infinity();
    double largest = 0;
    for (int i = 0; i < lines.size(); ++i) {
        const QJsonArray top = jsonObject(lines[i]).value(QStringLiteral("top")).toArray();
        const QJsonArray wanted = expected.at(i).toArray();
        if (top.size() != wanted.size())
            return std::numeric_limits<double>::infinity();
        for (const QJsonValue &c : top) {
            const int index = c.toObject().value(QStringLiteral("index")).toInt();
            largest = std::max(largest, std::abs(c.toObject().value(QStringLiteral("probability")).toDouble() - wanted.at(index).toDouble()));
        }
    }
    return largest;
}

int runCount(const QString &db)
{
    if (!QFile::exists(db))
        return 0;
    return int(RunDatabase::open(db).value()->listRuns().value().size());
}

} // namespace

class TestCliImport : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { cli::linkTrainingCommands(); }

    // PyTorch's MLP as nn.Sequential weights: a run of 0 epochs with --init-from and --init-map sequential prints
    // the import report, records a finished run with the report as parent.import, and predicts PyTorch's
    // probabilities; evaluate and export work on it.
    void zeroEpochRunPredictsLikePyTorch()
    {
        REQUIRE_FOREIGN_WEIGHTS();
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const QString preset = writePreset(dir, QStringLiteral("mlp"));
        const Output run = trainyard({QStringLiteral("run"), preset, QStringLiteral("--db"), db, QStringLiteral("--init-from"),
                                      fixture(QStringLiteral("mlp.safetensors")), QStringLiteral("--init-map"), QStringLiteral("sequential")});
        QVERIFY2(run.code == 0, qPrintable(run.err));
        QVERIFY2(run.err.contains(QStringLiteral("import from mlp.safetensors (map sequential, strict): 6 copied, 0 skipped, 0 missing, 0 mismatched")),
                 qPrintable(run.err));
        QVERIFY2(run.err.contains(QStringLiteral("  copied     fc2.weight [12, 16] <- 3.weight F32 [12, 16]")), qPrintable(run.err));
        QVERIFY2(run.out.contains(QStringLiteral("run 1 finished after 0 epochs, 0 steps")), qPrintable(run.out));

        const QJsonObject show = jsonObject(trainyard({QStringLiteral("runs"), QStringLiteral("show"), QStringLiteral("1"), QStringLiteral("--db"), db,
                                                       QStringLiteral("--json")}).out);
        const QJsonObject parent = show.value(QStringLiteral("parent")).toObject();
        QCOMPARE(parent.value(QStringLiteral("file")).toString(), fixture(QStringLiteral("mlp.safetensors")));
        QCOMPARE(parent.value(QStringLiteral("map")).toString(), QStringLiteral("sequential"));
        const QJsonObject report = parent.value(QStringLiteral("import")).toObject();
        QCOMPARE(report.value(QStringLiteral("counts")).toObject().value(QStringLiteral("copied")).toInt(), 6);
        const QJsonArray copied = report.value(QStringLiteral("copied")).toArray();
        QCOMPARE(copied.size(), 6);
        QCOMPARE(copied.at(4).toObject().value(QStringLiteral("tensor")).toString(), QStringLiteral("fc3.weight"));
        QCOMPARE(copied.at(4).toObject().value(QStringLiteral("file_tensor")).toString(), QStringLiteral("5.weight"));
        QCOMPARE(copied.at(4).toObject().value(QStringLiteral("shape")).toArray(), (QJsonArray{4, 12}));
        const Output text = trainyard({QStringLiteral("runs"), QStringLiteral("show"), QStringLiteral("1"), QStringLiteral("--db"), db});
        QVERIFY2(text.out.contains(QStringLiteral("import     map sequential (strict): 6 copied, 0 skipped, 0 missing, 0 mismatched")), qPrintable(text.out));

        const Output predicted = trainyard({QStringLiteral("predict"), QStringLiteral("1"), fixture(QStringLiteral("mlp.csv")), QStringLiteral("--top"),
                                            QStringLiteral("4"), QStringLiteral("--db"), db, QStringLiteral("--json")});
        QVERIFY2(predicted.code == 0, qPrintable(predicted.err));
        const double difference = largestProbabilityDifference(predicted.out, jsonFile(fixture(QStringLiteral("mlp-probabilities.json"))).toArray());
        QVERIFY2(difference < 1e-4, qPrintable(QString::number(difference)));

        QCOMPARE(trainyard({QStringLiteral("evaluate"), QStringLiteral("1"), QStringLiteral("--db"), db}).code, 0);
        const QString exported = dir.filePath(QStringLiteral("mlp-trainyard.safetensors"));
        QCOMPARE(trainyard({QStringLiteral("export"), QStringLiteral("1"), QStringLiteral("--output"), exported, QStringLiteral("--db"), db}).code, 0);
        const Result<TensorFile> weights = readSafetensors(exported);
        QVERIFY(weights.ok());
        QCOMPARE(weights.value().find(QStringLiteral("fc1.weight"))->data, readSafetensors(fixture(QStringLiteral("mlp.safetensors"))).value().find(QStringLiteral("1.weight"))->data);
    }

    // The CNN preset names its file and an explicit map in init_from: its 0-epoch run predicts PyTorch's
    // probabilities on the images (batch norm's running statistics loaded), and skips the counts of batches.
    void explicitMapInThePreset()
    {
        REQUIRE_FOREIGN_WEIGHTS();
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const Output run = trainyard({QStringLiteral("run"), writePreset(dir, QStringLiteral("cnn")), QStringLiteral("--db"), db});
        QVERIFY2(run.code == 0, qPrintable(run.err));
        QVERIFY2(run.err.contains(QStringLiteral("(map explicit, strict): 14 copied, 2 skipped, 0 missing, 0 mismatched")), qPrintable(run.err));
        QVERIFY2(run.err.contains(QStringLiteral("  skipped    5.num_batches_tracked I64 []: batch norm's count of batches, not needed")), qPrintable(run.err));
        const Output predicted = trainyard({QStringLiteral("predict"), QStringLiteral("1"), fixture(QStringLiteral("cnn-images.idx")), QStringLiteral("--top"),
                                            QStringLiteral("3"), QStringLiteral("--db"), db, QStringLiteral("--json")});
        QVERIFY2(predicted.code == 0, qPrintable(predicted.err));
        const double difference = largestProbabilityDifference(predicted.out, jsonFile(fixture(QStringLiteral("cnn-probabilities.json"))).toArray());
        QVERIFY2(difference < 1e-4, qPrintable(QString::number(difference)));
    }

    // fc2 of another width: validate and run refuse, naming the tensor and both shapes (exit 2, nothing recorded);
    // with strict false the run loads what fits and reports the rest.
    void strictRefusalNamesTheTensor()
    {
        REQUIRE_FOREIGN_WEIGHTS();
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const QString preset = writePreset(dir, QStringLiteral("mlp"));
        const QStringList args{QStringLiteral("--init-from"), fixture(QStringLiteral("mlp.safetensors")), QStringLiteral("--init-map"),
                               QStringLiteral("sequential"), QStringLiteral("--set"), QStringLiteral("fc2.out_features=10")};
        const QString expected = QStringLiteral("fc2.weight is F32 [10, 16] here, but the file's 3.weight is F32 [12, 16]");
        const Output run = trainyard(QStringList{QStringLiteral("run"), preset, QStringLiteral("--db"), db} + args);
        QCOMPARE(run.code, 2);
        QVERIFY2(run.err.contains(expected), qPrintable(run.err));
        QCOMPARE(runCount(db), 0);

        const QString lenient = writePreset(dir, QStringLiteral("mlp"), [&](QJsonObject &p) {
            setInitFrom(p, QStringLiteral("file"), fixture(QStringLiteral("mlp.safetensors")));
            setInitFrom(p, QStringLiteral("map"), QStringLiteral("sequential"));
            setInitFrom(p, QStringLiteral("strict"), false);
        });
        const Output validate = trainyard({QStringLiteral("validate"), lenient, QStringLiteral("--set"), QStringLiteral("fc2.out_features=10")});
        QCOMPARE(validate.code, 0);
        const Output loose = trainyard({QStringLiteral("run"), lenient, QStringLiteral("--db"), db, QStringLiteral("--set"), QStringLiteral("fc2.out_features=10")});
        QVERIFY2(loose.code == 0, qPrintable(loose.err));
        QVERIFY2(loose.err.contains(QStringLiteral("(map sequential): 2 copied, 1 skipped, 0 missing, 3 mismatched")), qPrintable(loose.err));
        const QJsonObject report = jsonObject(trainyard({QStringLiteral("runs"), QStringLiteral("show"), QStringLiteral("1"), QStringLiteral("--db"), db,
                                                         QStringLiteral("--json")}).out)
                                       .value(QStringLiteral("parent")).toObject().value(QStringLiteral("import")).toObject();
        const QJsonObject first = report.value(QStringLiteral("mismatched")).toArray().first().toObject();
        QCOMPARE(first.value(QStringLiteral("tensor")).toString(), QStringLiteral("fc2.weight"));
        QCOMPARE(first.value(QStringLiteral("shape")).toArray(), (QJsonArray{10, 16}));
        QCOMPARE(first.value(QStringLiteral("file_shape")).toArray(), (QJsonArray{12, 16}));

        // validate names the same tensor before anything loads.
        const QString strict = writePreset(dir, QStringLiteral("mlp"), [&](QJsonObject &p) {
            setInitFrom(p, QStringLiteral("file"), fixture(QStringLiteral("mlp.safetensors")));
            setInitFrom(p, QStringLiteral("map"), QStringLiteral("sequential"));
        });
        const Output checked = trainyard({QStringLiteral("validate"), strict, QStringLiteral("--set"), QStringLiteral("fc2.out_features=10")});
        QCOMPARE(checked.code, 2);
        QVERIFY2(checked.out.contains(expected) || checked.err.contains(expected), qPrintable(checked.out + checked.err));
    }

    // "auto" with three groups of one kind in the file for two layers of it: refused, naming them, exit 2.
    void autoRefusesAmbiguity()
    {
        REQUIRE_FOREIGN_WEIGHTS();
        QTemporaryDir dir;
        TensorFile file;
        for (const char *prefix : {"a", "b", "c"})
            for (const auto &[leaf, shape] : {std::make_pair("weight", QList<qint64>{16, 16}), std::make_pair("bias", QList<qint64>{16})}) {
                NamedTensor t;
                t.name = QStringLiteral("%1.%2").arg(QLatin1String(prefix), QLatin1String(leaf));
                t.shape = shape;
                t.data = QByteArray(int(t.elementCount() * 4), '\0');
                file.tensors << t;
            }
        const QString weights = dir.filePath(QStringLiteral("three.safetensors"));
        QVERIFY(writeFileAtomically(weights, encodeSafetensors(file)).ok());
        const QString preset = writePreset(dir, QStringLiteral("mlp"));
        const Output run = trainyard({QStringLiteral("run"), preset, QStringLiteral("--db"), dir.filePath(QStringLiteral("runs.sqlite")), QStringLiteral("--init-from"),
                                      weights, QStringLiteral("--init-map"), QStringLiteral("auto"), QStringLiteral("--set"), QStringLiteral("fc1.out_features=16"),
                                      QStringLiteral("--set"), QStringLiteral("fc2.out_features=16")});
        QCOMPARE(run.code, 2);
        QVERIFY2(run.err.contains(QStringLiteral("map \"auto\" is ambiguous: the file has 3 groups of tensors (a, b, c)")), qPrintable(run.err));
        QCOMPARE(runCount(dir.filePath(QStringLiteral("runs.sqlite"))), 0);
    }

    // torch.save's files (zip and legacy pickle) are refused with how to write a safetensors file; nothing is run.
    void pickledFilesAreRefused()
    {
        REQUIRE_FOREIGN_WEIGHTS();
        QTemporaryDir dir;
        const QString preset = writePreset(dir, QStringLiteral("mlp"));
        for (const char *pickle : {"mlp.pt", "mlp-legacy.pth"}) {
            const Output run = trainyard({QStringLiteral("run"), preset, QStringLiteral("--db"), dir.filePath(QStringLiteral("runs.sqlite")),
                                          QStringLiteral("--init-from"), fixture(QString::fromLatin1(pickle)), QStringLiteral("--init-map"), QStringLiteral("sequential")});
            QCOMPARE(run.code, 2);
            QVERIFY2(run.err.contains(QStringLiteral("a pickled PyTorch file")), qPrintable(run.err));
            QVERIFY2(run.err.contains(QStringLiteral("safetensors.torch.save_file")), qPrintable(run.err));
            QCOMPARE(runCount(dir.filePath(QStringLiteral("runs.sqlite"))), 0);
        }
    }

    // 0 epochs without init_from has nothing to evaluate: refused with exit 2, nothing recorded; a bad --init-map
    // is refused too.
    void zeroEpochsNeedInitFrom()
    {
        REQUIRE_FOREIGN_WEIGHTS();
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const QString preset = writePreset(dir, QStringLiteral("mlp"));
        const Output run = trainyard({QStringLiteral("run"), preset, QStringLiteral("--db"), db});
        QCOMPARE(run.code, 2);
        QVERIFY2(run.err.contains(QStringLiteral("0 epochs only evaluates weights loaded with training.init_from")), qPrintable(run.err));
        QCOMPARE(runCount(db), 0);
        const Output badMap = trainyard({QStringLiteral("run"), preset, QStringLiteral("--db"), db, QStringLiteral("--init-from"),
                                         fixture(QStringLiteral("mlp.safetensors")), QStringLiteral("--init-map"), QStringLiteral("{\"fc1.weight\": ")});
        QCOMPARE(badMap.code, 2);
        QVERIFY2(badMap.err.contains(QStringLiteral("--init-map: not a JSON object")), qPrintable(badMap.err));
        const Output foreignWithoutMap = trainyard({QStringLiteral("run"), preset, QStringLiteral("--db"), db, QStringLiteral("--init-from"),
                                                    fixture(QStringLiteral("mlp.safetensors"))});
        QCOMPARE(foreignWithoutMap.code, 2);
        QVERIFY2(foreignWithoutMap.err.contains(QStringLiteral("not a Trainyard checkpoint or weights file")), qPrintable(foreignWithoutMap.err));
        QCOMPARE(runCount(db), 0);
    }
};

TY_TEST_CLASS(TestCliImport)

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    return tytest::runRegisteredTests(argc, argv, "cli_import");
}

#include "test_cli_import.moc"
