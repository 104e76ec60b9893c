// The memory and cost estimates at the command line: `validate` prints each per node and in total (text and JSON:
// bytes, multiply-accumulates and the receptive field) and warns when this machine has too little memory; `run` refuses a run that cannot fit its device before it allocates
// (exit 2, the largest nodes named, nothing recorded). TRAINYARD_MEMORY_LIMIT_BYTES stands for a small device,
// so the tests do not depend on this machine's memory.

#include "cli.h"
#include "cli_in_process.h"
#include "training_module.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/resource.h>

using namespace ty;

namespace {

using Output = tytest::CliOutput;
using tytest::trainyard;

// Sets TRAINYARD_MEMORY_LIMIT_BYTES for its lifetime.
class MemoryLimit {
public:
    explicit MemoryLimit(const QByteArray &bytes) { qputenv("TRAINYARD_MEMORY_LIMIT_BYTES", bytes); }
    ~MemoryLimit() { qunsetenv("TRAINYARD_MEMORY_LIMIT_BYTES"); }
};

QString writeFile(const QTemporaryDir &dir, const QString &name, const QByteArray &content)
{
    const QString path = dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(content) != content.size())
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

// The synthetic MLP of test_cli.cpp (and tests/core's memory estimate test): 176,192 bytes by hand.
QString writeMlpPreset(const QTemporaryDir &dir)
{
    return writeFile(dir, QStringLiteral("blobs.trainyard.json"), R"({"format": "trainyard-preset", "version": 1, "name": "blobs",
  "nodes": [
    {"id": "data", "block": "dataset.synthetic", "params": {"samples": 600, "test_samples": 200, "noise": 1.0}},
    {"id": "fc1", "block": "layer.linear", "params": {"out_features": 16}},
    {"id": "act", "block": "layer.tanh"},
    {"id": "fc2", "block": "layer.linear", "params": {"out_features": 4}},
    {"id": "loss", "block": "loss.cross_entropy"},
    {"id": "opt", "block": "optimizer.adam", "params": {"lr": 0.01}}
  ],
  "edges": [
    {"from": "data.features", "to": "fc1.in"}, {"from": "fc1.out", "to": "act.in"}, {"from": "act.out", "to": "fc2.in"},
    {"from": "fc2.out", "to": "loss.input"}, {"from": "data.target", "to": "loss.target"}, {"from": "loss.loss", "to": "opt.loss"}
  ],
  "training": {"epochs": 1, "batch_size": 32, "device": "cpu"}
})");
}

// A 1024-channel 3x3 convolution on 28x28 images with batches of 4096: a small file that `validate` approves
// and whose activations alone take about 66 GB.
QString writeHugeConvolutionPreset(const QTemporaryDir &dir)
{
    return writeFile(dir, QStringLiteral("huge.trainyard.json"), R"({"format": "trainyard-preset", "version": 1, "name": "huge",
  "nodes": [
    {"id": "data", "block": "dataset.synthetic", "params": {"kind": "images", "features": 28, "samples": 5000, "test_samples": 1000}},
    {"id": "conv", "block": "layer.conv2d", "params": {"out_channels": 1024, "kernel_size": 3, "padding": 1}},
    {"id": "relu", "block": "layer.relu"},
    {"id": "flat", "block": "layer.flatten"},
    {"id": "fc", "block": "layer.linear", "params": {"out_features": 4}},
    {"id": "loss", "block": "loss.cross_entropy"},
    {"id": "opt", "block": "optimizer.sgd"}
  ],
  "edges": [
    {"from": "data.features", "to": "conv.in"}, {"from": "conv.out", "to": "relu.in"}, {"from": "relu.out", "to": "flat.in"},
    {"from": "flat.out", "to": "fc.in"}, {"from": "fc.out", "to": "loss.input"}, {"from": "data.target", "to": "loss.target"},
    {"from": "loss.loss", "to": "opt.loss"}
  ],
  "training": {"epochs": 1, "batch_size": 4096, "device": "cpu"}
})");
}

// 28x28 grey images through a composite `unit` (a 3x3 convolution to 4 channels, padding 1, then ReLU), a 2x2 max
// pool, flatten and a linear layer to 4 classes, in batches of 16.
QString writeSmallCnnPreset(const QTemporaryDir &dir)
{
    return writeFile(dir, QStringLiteral("small-cnn.trainyard.json"), R"({"format": "trainyard-preset", "version": 1, "name": "small cnn",
  "blocks": {"conv_relu": {"inputs": {"in": "conv.in"}, "outputs": {"out": "relu.out"},
    "nodes": [{"id": "conv", "block": "layer.conv2d", "params": {"out_channels": 4, "kernel_size": 3, "padding": 1}},
              {"id": "relu", "block": "layer.relu"}],
    "edges": [{"from": "conv.out", "to": "relu.in"}]}},
  "nodes": [
    {"id": "data", "block": "dataset.synthetic", "params": {"kind": "images", "features": 28, "samples": 200, "test_samples": 50}},
    {"id": "unit", "block": "conv_relu"},
    {"id": "pool", "block": "layer.maxpool2d", "params": {"kernel_size": 2}},
    {"id": "flat", "block": "layer.flatten"},
    {"id": "fc", "block": "layer.linear", "params": {"out_features": 4}},
    {"id": "loss", "block": "loss.cross_entropy"},
    {"id": "opt", "block": "optimizer.sgd"}
  ],
  "edges": [
    {"from": "data.features", "to": "unit.in"}, {"from": "unit.out", "to": "pool.in"}, {"from": "pool.out", "to": "flat.in"},
    {"from": "flat.out", "to": "fc.in"}, {"from": "fc.out", "to": "loss.input"}, {"from": "data.target", "to": "loss.target"},
    {"from": "loss.loss", "to": "opt.loss"}
  ],
  "training": {"epochs": 1, "batch_size": 16, "device": "cpu"}
})");
}

QJsonObject nodeById(const QJsonObject &report, const QString &id)
{
    for (const QJsonValue &node : report.value(QStringLiteral("nodes")).toArray())
        if (node.toObject().value(QStringLiteral("id")).toString() == id)
            return node.toObject();
    return QJsonObject();
}

} // namespace

class TestCliMemory : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { cli::linkTrainingCommands(); }

    // First, while this process has no other child: the peak memory of the refused run's process.
    void refusedBeforeAllocating()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TRAINYARD_MEMORY_LIMIT_BYTES"), QStringLiteral("2000000000"));
        process.setProcessEnvironment(env);
        process.start(QStringLiteral(TRAINYARD_CLI), {QStringLiteral("run"), writeHugeConvolutionPreset(dir), QStringLiteral("--db"), db});
        QVERIFY(process.waitForFinished(120000));
        const QString err = QString::fromUtf8(process.readAllStandardError());
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 2);
        QVERIFY2(err.contains(QStringLiteral("largest: conv 13 GB")), qPrintable(err));
        QVERIFY(!QFile::exists(db));
        rusage usage{};
        QCOMPARE(getrusage(RUSAGE_CHILDREN, &usage), 0);
        // LibTorch and Qt loaded, nothing of the run's 66 GB: well under a gigabyte (ru_maxrss is in KiB).
        QVERIFY2(usage.ru_maxrss < 1024 * 1024, qPrintable(QStringLiteral("peak %1 KiB").arg(usage.ru_maxrss)));
    }

    void runRefusesWhatCannotFit()
    {
        const MemoryLimit limit("2000000000");
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const Output run = trainyard({QStringLiteral("run"), writeHugeConvolutionPreset(dir), QStringLiteral("--db"), db});
        QCOMPARE(run.code, 2);
        QVERIFY2(run.err.contains(QStringLiteral("error: node 'conv': the run needs about ")), qPrintable(run.err));
        QVERIFY2(run.err.contains(QStringLiteral("activations ")) && run.err.contains(QStringLiteral("for a batch of 4096")),
                 qPrintable(run.err));
        QVERIFY2(run.err.contains(QStringLiteral("but the device (cpu, limited by TRAINYARD_MEMORY_LIMIT_BYTES) has 2.0 GB "
                                                 "available; largest: conv 13 GB, flat 13 GB, relu 13 GB")),
                 qPrintable(run.err));
        QVERIFY(!QFile::exists(db));

        // The event stream pins it to the node, for the app.
        const Output events = trainyard({QStringLiteral("run"), writeHugeConvolutionPreset(dir), QStringLiteral("--db"), db,
                                         QStringLiteral("--events")});
        QCOMPARE(events.code, 2);
        const QJsonObject error = QJsonDocument::fromJson(events.out.split(QLatin1Char('\n')).first().toUtf8()).object();
        QCOMPARE(error.value(QStringLiteral("event")).toString(), QStringLiteral("error"));
        QCOMPARE(error.value(QStringLiteral("node")).toString(), QStringLiteral("conv"));
        QVERIFY(!QFile::exists(db));

        // A smaller batch still does not fit; a run that fits is not refused under the same limit.
        QCOMPARE(trainyard({QStringLiteral("run"), writeHugeConvolutionPreset(dir), QStringLiteral("--db"), db,
                            QStringLiteral("--set"), QStringLiteral("training.batch_size=512")}).code, 2);
        const Output fits = trainyard({QStringLiteral("run"), writeMlpPreset(dir), QStringLiteral("--db"), db, QStringLiteral("--quiet")});
        QVERIFY2(fits.code == 0 && fits.out.contains(QStringLiteral("finished")), qPrintable(fits.err));
    }

    // Fashion-MNIST's images are bytes, and on the CPU the run keeps them so: its data takes a quarter of a GPU's.
    // A limit between the two estimates refuses the run counted on a GPU and lets it train on the CPU.
    void byteSamplesAreCountedAsTheCpuHoldsThem()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const QStringList preset{QStringLiteral(TRAINYARD_SOURCE_DIR "/presets/fashion-mnist-mlp.trainyard.json"),
                                 QStringLiteral("--set"), QStringLiteral("data.limit=2000"), QStringLiteral("--set"), QStringLiteral("data.val_count=500"),
                                 QStringLiteral("--set"), QStringLiteral("data.test_limit=500"), QStringLiteral("--set"), QStringLiteral("training.epochs=1")};
        const Output validate = trainyard(QStringList{QStringLiteral("validate")} + preset + QStringList{QStringLiteral("--json")});
        QCOMPARE(validate.code, 0);
        const QJsonObject memory = QJsonDocument::fromJson(validate.out.toUtf8()).object().value(QStringLiteral("memory")).toObject();
        const qint64 onCpu = memory.value(QStringLiteral("data_on_cpu")).toInteger(), onGpu = memory.value(QStringLiteral("data_on_gpu")).toInteger();
        QCOMPARE(onCpu, qint64(2500) * (784 + 8));
        QCOMPARE(onGpu, qint64(2500) * (784 * 4 + 8));
        QCOMPARE(memory.value(QStringLiteral("data_on")).toString(), QStringLiteral("gpu"));  // training.device auto
        QCOMPARE(memory.value(QStringLiteral("data")).toInteger(), onGpu);
        const qint64 totalOnGpu = memory.value(QStringLiteral("total")).toInteger();
        const qint64 totalOnCpu = totalOnGpu - onGpu + onCpu;

        const QStringList onTheCpu = preset + QStringList{QStringLiteral("--set"), QStringLiteral("training.device=cpu")};
        {
            const MemoryLimit limit(QByteArray::number((totalOnCpu + totalOnGpu) / 2));
            const Output run = trainyard(QStringList{QStringLiteral("run")} + onTheCpu + QStringList{QStringLiteral("--db"), db, QStringLiteral("--quiet")});
            QVERIFY2(run.code == 0 && run.out.contains(QStringLiteral("finished")), qPrintable(run.err));
            const Output asked = trainyard(QStringList{QStringLiteral("validate")} + onTheCpu);
            QVERIFY2(asked.out.contains(QStringLiteral(" on the CPU, ")), qPrintable(asked.out));
            QVERIFY2(!asked.out.contains(QStringLiteral("warning")), qPrintable(asked.out));
        }
        {
            const MemoryLimit limit(QByteArray::number(totalOnCpu - 1));
            const Output run = trainyard(QStringList{QStringLiteral("run")} + onTheCpu + QStringList{QStringLiteral("--db"), db});
            QCOMPARE(run.code, 2);
            QVERIFY2(run.err.contains(QStringLiteral("the run needs about ")), qPrintable(run.err));
        }
    }

    void validatePrintsTheEstimate()
    {
        QTemporaryDir dir;
        const QString path = writeMlpPreset(dir);
        const Output json = trainyard({QStringLiteral("validate"), path, QStringLiteral("--json")});
        QCOMPARE(json.code, 0);
        const QJsonObject report = QJsonDocument::fromJson(json.out.toUtf8()).object();
        const QJsonObject memory = report.value(QStringLiteral("memory")).toObject();
        QCOMPARE(memory.value(QStringLiteral("known")).toBool(), true);
        QCOMPARE(memory.value(QStringLiteral("total")).toInteger(), 176192);
        QCOMPARE(memory.value(QStringLiteral("optimizer_state")).toInteger(), 1696);
        QCOMPARE(memory.value(QStringLiteral("activations_in")).toString(), QStringLiteral("evaluation"));
        QCOMPARE(memory.value(QStringLiteral("data_samples")).toInteger(), 800);
        const QJsonObject fc1 = report.value(QStringLiteral("nodes")).toArray().at(1).toObject();
        QCOMPARE(fc1.value(QStringLiteral("id")).toString(), QStringLiteral("fc1"));
        QCOMPARE(fc1.value(QStringLiteral("memory")).toObject().value(QStringLiteral("total")).toInteger(), 4352);

        const Output text = trainyard({QStringLiteral("validate"), path});
        QCOMPARE(text.code, 0);
        QVERIFY2(text.out.contains(QStringLiteral("memory on the training device: about 176 kB (parameters 848 B, gradients 848 B, "
                                                  "optimizer state 1.7 kB, activations 141 kB for an evaluation batch of 800, "
                                                  "data 32 kB) for 800 samples")),
                 qPrintable(text.out));
        QVERIFY2(text.out.contains(QStringLiteral("4.4 kB\n")), qPrintable(text.out));  // fc1's row
        QVERIFY(text.out.contains(QStringLiteral("no issues")));
    }

    // The composite's conv: 28*28*4 = 3,136 outputs of 3*3*1 = 9 products, 28,224 MACs; the pool 0; fc 784 -> 4,
    // 3,136. In all 31,360 a sample, and 3 x 31,360 x 16 = 1,505,280 a training step. Receptive field: the
    // convolution (3, 1), the 2x2 pool (3 + 1, 2) = (4, 2).
    void validatePrintsTheCost()
    {
        QTemporaryDir dir;
        const QString path = writeSmallCnnPreset(dir);
        const Output json = trainyard({QStringLiteral("validate"), path, QStringLiteral("--json")});
        QCOMPARE(json.code, 0);
        const QJsonObject report = QJsonDocument::fromJson(json.out.toUtf8()).object();
        const QJsonObject total = report.value(QStringLiteral("macs")).toObject();
        QCOMPARE(total.value(QStringLiteral("known")).toBool(), true);
        QCOMPARE(total.value(QStringLiteral("forward")).toInteger(), 31360);
        QCOMPARE(total.value(QStringLiteral("training_step")).toInteger(), 1505280);
        QCOMPARE(total.value(QStringLiteral("batch_size")).toInteger(), 16);

        const QJsonObject unit = nodeById(report, QStringLiteral("unit"));  // the composite: its conv and relu summed
        QCOMPARE(unit.value(QStringLiteral("macs")).toObject().value(QStringLiteral("forward")).toInteger(), 28224);
        QCOMPARE(unit.value(QStringLiteral("macs")).toObject().value(QStringLiteral("training_step")).toInteger(), 3 * 16 * 28224);
        QCOMPARE(unit.value(QStringLiteral("receptive_field")).toObject().value(QStringLiteral("size")).toArray(), (QJsonArray{3, 3}));
        const QJsonObject pool = nodeById(report, QStringLiteral("pool"));
        QCOMPARE(pool.value(QStringLiteral("macs")).toObject().value(QStringLiteral("forward")).toInteger(), 0);
        QCOMPARE(pool.value(QStringLiteral("receptive_field")).toObject().value(QStringLiteral("size")).toArray(), (QJsonArray{4, 4}));
        QCOMPARE(pool.value(QStringLiteral("receptive_field")).toObject().value(QStringLiteral("stride")).toArray(), (QJsonArray{2, 2}));
        const QJsonObject fc = nodeById(report, QStringLiteral("fc"));
        QCOMPARE(fc.value(QStringLiteral("macs")).toObject().value(QStringLiteral("forward")).toInteger(), 3136);
        QVERIFY(fc.value(QStringLiteral("receptive_field")).isNull());  // no window: no field shown
        QVERIFY(nodeById(report, QStringLiteral("data")).value(QStringLiteral("macs")).isNull());
        QVERIFY(nodeById(report, QStringLiteral("loss")).value(QStringLiteral("macs")).isNull());

        const Output text = trainyard({QStringLiteral("validate"), path});
        QCOMPARE(text.code, 0);
        QVERIFY2(text.out.contains(QStringLiteral("MACs/sample  MACs/step  receptive field")), qPrintable(text.out));
        QVERIFY2(text.out.contains(QRegularExpression(QStringLiteral("\\n  unit +conv_relu +\\[4, 28, 28\\] +40 +28\\.2k +1\\.35M +3x3, stride 1 "))),
                 qPrintable(text.out));
        QVERIFY2(text.out.contains(QRegularExpression(QStringLiteral("\\n  pool .* 0 +0 +4x4, stride 2 "))), qPrintable(text.out));
        QVERIFY2(text.out.contains(QStringLiteral("multiply-accumulates (MACs; 1 MAC = 2 FLOPs): 31,360 a sample forward, "
                                                  "1,505,280 a training step (3 x forward x a batch of 16)")),
                 qPrintable(text.out));
    }

    void validateWarnsWhenTheMachineIsTooSmall()
    {
        QTemporaryDir dir;
        const QString path = writeHugeConvolutionPreset(dir);
        const MemoryLimit limit("2000000000");
        const Output text = trainyard({QStringLiteral("validate"), path});
        QCOMPARE(text.code, 0);  // a warning: the run may go to a larger machine
        QVERIFY2(text.out.contains(QStringLiteral("warning: node 'conv': the run needs about ")), qPrintable(text.out));
        QVERIFY2(text.out.contains(QStringLiteral("but this machine (limited by TRAINYARD_MEMORY_LIMIT_BYTES) has 2.0 GB available; "
                                                  "largest: conv 13 GB")),
                 qPrintable(text.out));
        const Output json = trainyard({QStringLiteral("validate"), path, QStringLiteral("--json")});
        QCOMPARE(json.code, 0);
        const QJsonObject report = QJsonDocument::fromJson(json.out.toUtf8()).object();
        QCOMPARE(report.value(QStringLiteral("memory")).toObject().value(QStringLiteral("available")).toInteger(), 2000000000);
        QCOMPARE(report.value(QStringLiteral("issues")).toArray().at(0).toObject().value(QStringLiteral("severity")).toString(),
                 QStringLiteral("warning"));
    }
};

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    TestCliMemory tests;
    return QTest::qExec(&tests, argc, argv);
}

#include "test_cli_memory.moc"
