// Composite blocks at the command line: a preset whose network is a repeated composite trains and learns, its
// checkpoints and exported weights name tensors by path (body.0.fc.weight), --set reaches the exposed and the
// inner parameters, validate pins an error inside a composite to its inner path, and a stage freezes a
// composite as a whole; starting a run parses the preset's sections once per load.

#include "cli.h"
#include "cli_in_process.h"
#include "preset_sections.h"
#include "run_database.h"
#include "safetensors_file.h"
#include "training_module.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace ty;

namespace {

using Output = tytest::CliOutput;
using tytest::trainyard;

// The synthetic classifier of test_cli.cpp with its hidden layer as a composite "dense" (linear and tanh,
// width exposed) stacked twice. `innerBias` is the inner linear layer's bias value as JSON.
QString writeCompositePreset(const QTemporaryDir &dir, const QByteArray &extraTraining = "", const QByteArray &innerBias = "true")
{
    const QString path = dir.filePath(QStringLiteral("composite.trainyard.json"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(path));
    file.write(R"({"format": "trainyard-preset", "version": 1, "name": "blobs in blocks",
  "blocks": {
    "dense": {
      "params": {"width": {"type": "int", "default": 16, "min": 1, "max": 4096, "bind": ["fc.out_features"]}},
      "inputs": {"in": "fc.in"}, "outputs": {"out": "act.out"},
      "nodes": [{"id": "fc", "block": "layer.linear", "params": {"bias": )" + innerBias + R"(}}, {"id": "act", "block": "layer.tanh"}],
      "edges": [{"from": "fc.out", "to": "act.in"}]
    }
  },
  "nodes": [
    {"id": "data", "block": "dataset.synthetic", "params": {"samples": 600, "test_samples": 200, "noise": 1.0}},
    {"id": "body", "block": "dense", "repeat": 2},
    {"id": "fc2", "block": "layer.linear", "params": {"out_features": 4}},
    {"id": "loss", "block": "loss.cross_entropy"},
    {"id": "accuracy", "block": "metric.accuracy"},
    {"id": "opt", "block": "optimizer.adam", "params": {"lr": 0.01}}
  ],
  "edges": [
    {"from": "data.features", "to": "body.in"}, {"from": "body.out", "to": "fc2.in"},
    {"from": "fc2.out", "to": "loss.input"}, {"from": "data.target", "to": "loss.target"},
    {"from": "fc2.out", "to": "accuracy.input"}, {"from": "data.target", "to": "accuracy.target"},
    {"from": "loss.loss", "to": "opt.loss"}
  ],
  "training": {"epochs": 3, "batch_size": 32, "device": "cpu")" + extraTraining + R"(}
})");
    return path;
}

QJsonObject jsonObject(const QString &text)
{
    return QJsonDocument::fromJson(text.toUtf8()).object();
}

QStringList tensorNames(const TensorFile &file)
{
    QStringList names;
    for (const NamedTensor &t : file.tensors)
        names << t.name;
    return names;
}

} // namespace

class TestCliComposites : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { cli::linkTrainingCommands(); }

    void aRepeatedCompositeTrainsAndNamesItsTensorsByPath()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const Output run = trainyard({QStringLiteral("run"), writeCompositePreset(dir), QStringLiteral("--db"), db, QStringLiteral("--quiet"),
                                      QStringLiteral("--set"), QStringLiteral("body.width=12"),
                                      QStringLiteral("--set"), QStringLiteral("body.fc.bias=false")});
        QVERIFY2(run.code == 0, qPrintable(run.out + run.err));
        const QJsonObject show = jsonObject(trainyard({QStringLiteral("runs"), QStringLiteral("show"), QStringLiteral("1"),
                                                       QStringLiteral("--db"), db, QStringLiteral("--json")}).out);
        QVERIFY2(show.value(QStringLiteral("summary")).toObject().value(QStringLiteral("test/accuracy")).toDouble() > 0.7,
                 qPrintable(QJsonDocument(show).toJson()));
        // The run records the preset as written, composite and overrides included.
        const QJsonObject recorded = show.value(QStringLiteral("preset")).toObject();
        QVERIFY(recorded.value(QStringLiteral("blocks")).toObject().contains(QStringLiteral("dense")));
        QCOMPARE(recorded.value(QStringLiteral("nodes")).toArray().at(1).toObject().value(QStringLiteral("params")).toObject()
                     .value(QStringLiteral("width")).toInt(), 12);

        const QString checkpoint = RunDatabase::open(db).value()->checkpoints(1).value().last().path;
        const Result<TensorFile> stored = readSafetensors(checkpoint);
        QVERIFY2(stored.ok(), qPrintable(stored.error().toString()));
        const QStringList names = tensorNames(stored.value());
        for (const char *name : {"body.0.fc.weight", "body.1.fc.weight", "fc2.weight", "fc2.bias"})
            QVERIFY2(names.contains(QString::fromLatin1(name)), qPrintable(names.join(QStringLiteral(", "))));
        QVERIFY2(!names.contains(QStringLiteral("body.0.fc.bias")), "--set body.fc.bias=false reaches every copy");
        QCOMPARE(stored.value().find(QStringLiteral("body.0.fc.weight"))->shapeText(), QStringLiteral("[12, 8]"));
        QCOMPARE(stored.value().find(QStringLiteral("body.1.fc.weight"))->shapeText(), QStringLiteral("[12, 12]"));

        const QString exported = dir.filePath(QStringLiteral("weights.safetensors"));
        const Output exportRun = trainyard({QStringLiteral("export"), QStringLiteral("1"), QStringLiteral("--format"), QStringLiteral("safetensors"),
                                            QStringLiteral("--output"), exported, QStringLiteral("--db"), db});
        QVERIFY2(exportRun.code == 0, qPrintable(exportRun.err));
        QCOMPARE(tensorNames(readSafetensors(exported).value()),
                 (QStringList{QStringLiteral("body.0.fc.weight"), QStringLiteral("body.1.fc.weight"), QStringLiteral("fc2.weight"), QStringLiteral("fc2.bias")}));
        const QString onnx = dir.filePath(QStringLiteral("model.onnx"));
        const Output onnxRun = trainyard({QStringLiteral("export"), QStringLiteral("1"), QStringLiteral("--format"), QStringLiteral("onnx"),
                                          QStringLiteral("--output"), onnx, QStringLiteral("--db"), db});
        QVERIFY2(onnxRun.code == 0, qPrintable(onnxRun.err));
        QFile model(onnx);
        QVERIFY(model.open(QIODevice::ReadOnly));
        QVERIFY(model.readAll().contains("body.1.fc.weight"));
    }

    void validatePinsErrorsToInnerPathsAndSetRefusesBadPaths()
    {
        QTemporaryDir dir;
        const Output bad = trainyard({QStringLiteral("validate"), writeCompositePreset(dir, "", "\"yes\"")});
        QCOMPARE(bad.code, 2);
        QVERIFY2(bad.err.contains(QStringLiteral("error: node 'body/0/fc', param 'bias': expected true or false")), qPrintable(bad.out + bad.err));
        QVERIFY2(bad.err.contains(QStringLiteral("error: node 'body/1/fc'")), qPrintable(bad.err));

        const QString good = writeCompositePreset(dir);
        const Output ok = trainyard({QStringLiteral("validate"), good, QStringLiteral("--set"), QStringLiteral("body.width=8"), QStringLiteral("--json")});
        QCOMPARE(ok.code, 0);
        // 8*8+8 twice, then 8*4+4.
        QCOMPARE(jsonObject(ok.out).value(QStringLiteral("total_params")).toInteger(), qint64(2 * 72 + 36));
        for (const char *set : {"body.depth=2", "body.width=0", "body.nope.bias=false", "body.fc.bias=maybe"}) {
            const Output refused = trainyard({QStringLiteral("validate"), good, QStringLiteral("--set"), QString::fromLatin1(set)});
            QVERIFY2(refused.code == 2, set);
            QVERIFY2(refused.err.contains(QStringLiteral("node 'body'")), qPrintable(refused.err));
        }
    }

    void aStageFreezesACompositeAsAWhole()
    {
        QTemporaryDir dir;
        const QString staged = writeCompositePreset(dir, R"(, "stages": [
            {"name": "head", "epochs": 2, "freeze": ["body"]}, {"name": "all", "epochs": 1, "unfreeze": ["body"]}])");
        const Output validate = trainyard({QStringLiteral("validate"), staged});
        QCOMPARE(validate.code, 0);
        // body: 8*16+16 and 16*16+16; fc2: 16*4+4.
        QVERIFY2(validate.out.contains(QStringLiteral("trainable 68, frozen 416 (body)")), qPrintable(validate.out));
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const Output run = trainyard({QStringLiteral("run"), staged, QStringLiteral("--db"), db, QStringLiteral("--quiet")});
        QVERIFY2(run.code == 0, qPrintable(run.err));
        // One checkpoint per epoch: in the first stage (epochs 1 and 2) the frozen composite's weights stay as
        // they were while the head learns; in the second they learn too.
        const qint64 perEpoch = (540 + 31) / 32;
        QList<TensorFile> epochs;
        for (qint64 step : {perEpoch, 2 * perEpoch, 3 * perEpoch})
            for (const CheckpointRecord &checkpoint : RunDatabase::open(db).value()->checkpoints(1).value())
                if (checkpoint.step == step && !checkpoint.best && epochs.size() < int(step / perEpoch)) {
                    const Result<TensorFile> file = readSafetensors(checkpoint.path);
                    QVERIFY2(file.ok(), qPrintable(file.error().toString()));
                    epochs << file.value();
                }
        QCOMPARE(epochs.size(), 3);
        for (const char *name : {"body.0.fc.weight", "body.1.fc.bias"})
            QCOMPARE(epochs.at(0).find(QString::fromLatin1(name))->data, epochs.at(1).find(QString::fromLatin1(name))->data);
        QVERIFY(epochs.at(0).find(QStringLiteral("fc2.weight"))->data != epochs.at(1).find(QStringLiteral("fc2.weight"))->data);
        QVERIFY(epochs.at(1).find(QStringLiteral("body.1.fc.weight"))->data != epochs.at(2).find(QStringLiteral("body.1.fc.weight"))->data);
    }
    // Starting a run parses each section of the preset once per load (core/presets/preset_sections.h), and once
    // more for each version made from it (a --set of a training key, a stage that overrides one), however many
    // steps read them: the checks, the plan, the memory estimate, the engine's set-up and the run's record. `run`
    // loads the file twice: for the run, and on the thread that decodes the data set while LibTorch loads. Before
    // the parse travelled with the preset, this run read the training section 46 times and parsed the composite
    // 16 times.
    void aRunParsesEachSectionOncePerLoad()
    {
        QTemporaryDir dir;
        const QString staged = writeCompositePreset(dir, R"(, "stages": [
            {"name": "head", "epochs": 1, "freeze": ["body"], "set": {"opt.lr": 0.02}},
            {"name": "all", "epochs": 1, "unfreeze": ["body"], "set": {"training.batch_size": 64}}])");
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const SectionParses before = sectionParses();
        const Output run = trainyard({QStringLiteral("run"), staged, QStringLiteral("--db"), db, QStringLiteral("--quiet"),
                                      QStringLiteral("--set"), QStringLiteral("training.seed=3")});
        QVERIFY2(run.code == 0, qPrintable(run.err));
        // Per load: the file's section, the one --set made, the one of stage "all"; the blocks once.
        QCOMPARE(sectionParses().training - before.training, 2 * 3);
        QCOMPARE(sectionParses().blocks - before.blocks, 2 * 1);
    }
};

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    TestCliComposites tests;
    return QTest::qExec(&tests, argc, argv);
}

#include "test_cli_composites.moc"
