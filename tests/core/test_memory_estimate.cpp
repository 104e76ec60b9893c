// The memory estimate of core/shapes (memory_estimate.h): hand-computed figures for a small MLP, linear growth
// with the batch, the optimizer's state by kind, the refusal message, and the machine's available memory.

#include "test_suite.h"
#include "core_test_support.h"

#include "available_memory.h"
#include "memory_estimate.h"
#include "preset_format.h"
#include "preset_inspection.h"

#include <QFile>
#include <QtTest>

#include <limits>

using namespace ty;

namespace {

// Synthetic blobs (8 features, 4 classes; 600 training samples of which 60 validate, 200 test) through
// fc1 (16) -> tanh -> fc2 (4), Adam: the preset of tests/cli's writeSyntheticPreset.
Preset mlpPreset(const QJsonObject &training = {{QStringLiteral("batch_size"), 32}},
                 const QJsonObject &optimizerParams = {}, const QString &optimizer = QStringLiteral("optimizer.adam"))
{
    using tytest::node;
    Preset preset;
    preset.graph = tytest::graph(
        {node(QStringLiteral("data"), QStringLiteral("dataset.synthetic"),
              {{QStringLiteral("samples"), 600}, {QStringLiteral("test_samples"), 200}}),
         node(QStringLiteral("fc1"), QStringLiteral("layer.linear"), {{QStringLiteral("out_features"), 16}}),
         node(QStringLiteral("act"), QStringLiteral("layer.tanh")),
         node(QStringLiteral("fc2"), QStringLiteral("layer.linear"), {{QStringLiteral("out_features"), 4}}),
         node(QStringLiteral("loss"), QStringLiteral("loss.cross_entropy")),
         node(QStringLiteral("opt"), optimizer, optimizerParams)},
        {{"data.features", "fc1.in"}, {"fc1.out", "act.in"}, {"act.out", "fc2.in"}, {"fc2.out", "loss.input"},
         {"data.target", "loss.target"}, {"loss.loss", "opt.loss"}});
    preset.training = training;
    return preset;
}

ShapeReport inspected(const Preset &preset)
{
    const ShapeReport report = inspectPresetShapes(preset);
    if (!report.ok())
        qWarning("%s", qPrintable(tytest::dump(report.issues)));
    return report;
}

// A 1024-channel 3x3 convolution on 28x28 images, batch 4096: the preset the review ran out of memory with.
Preset hugeConvolutionPreset()
{
    using tytest::node;
    Preset preset;
    preset.graph = tytest::graph(
        {node(QStringLiteral("data"), QStringLiteral("dataset.synthetic"),
              {{QStringLiteral("kind"), QStringLiteral("images")}, {QStringLiteral("features"), 28},
               {QStringLiteral("samples"), 5000}, {QStringLiteral("test_samples"), 1000}}),
         node(QStringLiteral("conv"), QStringLiteral("layer.conv2d"),
              {{QStringLiteral("out_channels"), 1024}, {QStringLiteral("kernel_size"), 3}, {QStringLiteral("padding"), 1}}),
         node(QStringLiteral("relu"), QStringLiteral("layer.relu")),
         node(QStringLiteral("flat"), QStringLiteral("layer.flatten")),
         node(QStringLiteral("fc"), QStringLiteral("layer.linear"), {{QStringLiteral("out_features"), 4}}),
         node(QStringLiteral("loss"), QStringLiteral("loss.cross_entropy")),
         node(QStringLiteral("opt"), QStringLiteral("optimizer.sgd"))},
        {{"data.features", "conv.in"}, {"conv.out", "relu.in"}, {"relu.out", "flat.in"}, {"flat.out", "fc.in"},
         {"fc.out", "loss.input"}, {"data.target", "loss.target"}, {"loss.loss", "opt.loss"}});
    preset.training = QJsonObject{{QStringLiteral("batch_size"), 4096}};
    return preset;
}

class TestMemoryEstimate : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void smallMlpEqualsTheHandComputedFigure()
    {
        const ShapeReport report = inspected(mlpPreset());
        QVERIFY(report.ok());
        const MemoryEstimate &m = report.memory;
        QVERIFY(m.known);
        // Weights: fc1 8*16+16 = 144, fc2 16*4+4 = 68; 212 float32 values, their gradients, Adam's two moments.
        QCOMPARE(m.parameters, qint64(212 * 4));
        QCOMPARE(m.gradients, qint64(212 * 4));
        QCOMPARE(m.optimizer, qint64(2 * 212 * 4));
        // Outputs per sample: data 8 + fc1 16 + act 16 + fc2 4 = 44; the largest output plus inputs is act's 32.
        // Training: 32 * (44 + 32) * 4 = 9,728 bytes. Evaluation: a batch of 1000, at most the 800 samples,
        // 800 * 44 * 4 = 140,800 bytes: the larger.
        QCOMPARE(m.activations, qint64(140800));
        QVERIFY(m.evaluationPeak);
        QCOMPARE(m.batchSize, qint64(800));
        // Every split on the device: 800 samples of 8 floats and an int64 class each.
        QCOMPARE(m.dataSamples, qint64(800));
        QCOMPARE(m.data, qint64(800 * (8 * 4 + 8)));
        QCOMPARE(m.total(), qint64(848 + 848 + 1696 + 140800 + 32000));

        const NodeMemory fc1 = report.nodes.value(QStringLiteral("fc1")).memory;
        QCOMPARE(fc1.parameters, qint64(144 * 4));
        QCOMPARE(fc1.optimizer, qint64(2 * 144 * 4));
        QCOMPARE(fc1.activations, qint64(32 * 16 * 4));
        QCOMPARE(fc1.total(), qint64(576 + 576 + 1152 + 2048));
        const NodeMemory data = report.nodes.value(QStringLiteral("data")).memory;
        QCOMPARE(data.activations, qint64(32 * 8 * 4));
        QCOMPARE(data.data, qint64(32000));
        QCOMPARE(report.nodes.value(QStringLiteral("loss")).memory.total(), qint64(0));

        // With a small evaluation batch, the training step is the peak.
        const ShapeReport small = inspected(mlpPreset({{QStringLiteral("batch_size"), 32}, {QStringLiteral("eval_batch_size"), 16}}));
        QCOMPARE(small.memory.activations, qint64(9728));
        QVERIFY(!small.memory.evaluationPeak);
        QCOMPARE(small.memory.batchSize, qint64(32));
    }

    void dataFollowsTheSplitLimits()
    {
        Preset preset = mlpPreset();
        preset.graph.node(QStringLiteral("data"))->params.insert(QStringLiteral("limit"), 100);
        preset.graph.node(QStringLiteral("data"))->params.insert(QStringLiteral("test_limit"), 50);
        const ShapeReport report = inspected(preset);
        QCOMPARE(report.memory.dataSamples, qint64(150));
        QCOMPARE(report.memory.data, qint64(150 * 40));
    }

    // Byte samples stay bytes on the CPU (DeviceSplit): a quarter of a GPU's float32 copy. Float samples (the
    // synthetic blobs) take the same on both.
    void byteSamplesTakeOneByteOnTheCpu()
    {
        Result<Preset> loaded = loadPreset(tytest::presetsDir() + QStringLiteral("/fashion-mnist-mlp.trainyard.json"));
        QVERIFY2(loaded, qPrintable(loaded ? QString() : loaded.error().message));
        Preset preset = loaded.value();
        ShapeReport report = inspected(preset);  // training.device auto: counted as on a GPU
        QVERIFY(report.memory.known);
        // The 70,000 images of 784 bytes, with an int64 class each.
        QCOMPARE(report.memory.dataSamples, qint64(70000));
        QCOMPARE(report.memory.dataBytesOnCpu, qint64(70000) * (784 + 8));
        QCOMPARE(report.memory.dataBytesOnGpu, qint64(70000) * (784 * 4 + 8));
        QVERIFY(!report.memory.dataOnCpu);
        QCOMPARE(report.memory.data, report.memory.dataBytesOnGpu);
        QCOMPARE(report.nodes.value(QStringLiteral("data")).memory.data, report.memory.dataBytesOnGpu);
        QVERIFY2(memorySummary(report.memory).contains(QStringLiteral("data 220 MB on a GPU, 55 MB on the CPU")),
                 qPrintable(memorySummary(report.memory)));

        const qint64 onGpu = report.memory.total();
        placeDataOn(&report, true);
        QCOMPARE(report.memory.data, report.memory.dataBytesOnCpu);
        QCOMPARE(report.nodes.value(QStringLiteral("data")).memory.data, report.memory.dataBytesOnCpu);
        QCOMPARE(report.memory.total(), onGpu - qint64(70000) * 784 * 3);
        QVERIFY2(memorySummary(report.memory).contains(QStringLiteral("data 55 MB on the CPU, 220 MB on a GPU")),
                 qPrintable(memorySummary(report.memory)));

        preset.training.insert(QStringLiteral("device"), QStringLiteral("cpu"));
        const ShapeReport cpu = inspected(preset);
        QVERIFY(cpu.memory.dataOnCpu);
        QCOMPARE(cpu.memory.total(), report.memory.total());

        const ShapeReport floats = inspected(mlpPreset());
        QCOMPARE(floats.memory.dataBytesOnCpu, floats.memory.dataBytesOnGpu);
        QVERIFY(!memorySummary(floats.memory).contains(QStringLiteral("on the CPU")));
    }

    void growsLinearlyWithTheBatch()
    {
        // Evaluation batches of 1 keep the training step the peak.
        qint64 previous = -1, step = -1;
        for (const int batch : {32, 64, 96, 128}) {
            const ShapeReport report = inspected(mlpPreset({{QStringLiteral("batch_size"), batch}, {QStringLiteral("eval_batch_size"), 1}}));
            QVERIFY(report.memory.known);
            QCOMPARE(report.memory.activations, qint64(batch) * 76 * 4);
            QCOMPARE(report.nodes.value(QStringLiteral("fc1")).memory.activations, qint64(batch) * 16 * 4);
            if (previous >= 0 && step < 0)
                step = report.memory.total() - previous;
            else if (previous >= 0)
                QCOMPARE(report.memory.total() - previous, step);
            previous = report.memory.total();
        }
        QCOMPARE(step, qint64(32 * 76 * 4));
    }

    void optimizerStateByKind_data()
    {
        QTest::addColumn<QString>("optimizer");
        QTest::addColumn<double>("momentum");
        QTest::addColumn<int>("values");  // per parameter
        QTest::newRow("sgd") << "optimizer.sgd" << 0.0 << 0;
        QTest::newRow("sgd with momentum") << "optimizer.sgd" << 0.9 << 1;
        QTest::newRow("adam") << "optimizer.adam" << -1.0 << 2;
        QTest::newRow("adamw") << "optimizer.adamw" << -1.0 << 2;
        QTest::newRow("rmsprop") << "optimizer.rmsprop" << 0.0 << 1;
        QTest::newRow("rmsprop with momentum") << "optimizer.rmsprop" << 0.5 << 2;
        QTest::newRow("adagrad") << "optimizer.adagrad" << -1.0 << 1;
    }

    void optimizerStateByKind()
    {
        QFETCH(QString, optimizer);
        QFETCH(double, momentum);
        QFETCH(int, values);
        const QJsonObject params = momentum >= 0 ? QJsonObject{{QStringLiteral("momentum"), momentum}} : QJsonObject{};
        const ShapeReport report = inspected(mlpPreset({{QStringLiteral("batch_size"), 32}}, params, optimizer));
        QVERIFY(report.memory.known);
        QCOMPARE(report.memory.optimizer, qint64(values) * 212 * 4);
        QCOMPARE(report.nodes.value(QStringLiteral("fc2")).memory.optimizer, qint64(values) * 68 * 4);
    }

    void unknownWhileThePresetHasErrors()
    {
        Preset preset = mlpPreset();
        preset.graph.node(QStringLiteral("fc2"))->params.insert(QStringLiteral("out_features"), 3);  // 4 classes
        const ShapeReport report = inspectPresetShapes(preset);
        QVERIFY(!report.ok());
        QVERIFY(!report.memory.known);
        QVERIFY(memoryShortfall(report, 1, QStringLiteral("the device")).isEmpty());
        // The nodes that planned still have theirs, for the editor.
        QCOMPARE(report.nodes.value(QStringLiteral("fc1")).memory.parameters, qint64(144 * 4));
    }

    void shortfallNamesTheLargestNodes()
    {
        const ShapeReport report = inspected(hugeConvolutionPreset());
        QVERIFY(report.memory.known);
        // conv: 4096 * 1024 * 28 * 28 * 4 bytes of output = 13.2 GB, and relu and flat as much again each.
        QCOMPARE(report.nodes.value(QStringLiteral("conv")).memory.activations, qint64(4096) * 1024 * 784 * 4);
        QVERIFY(report.memory.total() > qint64(40) * 1000 * 1000 * 1000);
        QCOMPARE(largestMemoryNodes(report), (QStringList{QStringLiteral("conv"), QStringLiteral("flat"), QStringLiteral("relu")}));

        const QString message = memoryShortfall(report, qint64(3100) * 1000 * 1000, QStringLiteral("the device (cpu)"));
        QVERIFY2(message.startsWith(QStringLiteral("the run needs about ")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("activations ")) && message.contains(QStringLiteral("for a batch of 4096")),
                 qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("but the device (cpu) has 3.1 GB available; largest: conv 13 GB, ")), qPrintable(message));
        QVERIFY(memoryShortfall(report, report.memory.total(), QStringLiteral("the device")).isEmpty());
        QVERIFY(memoryShortfall(report, -1, QStringLiteral("the device")).isEmpty());
    }

    void byteSizes_data()
    {
        QTest::addColumn<qint64>("bytes");
        QTest::addColumn<QString>("text");
        QTest::newRow("zero") << qint64(0) << "0 B";
        QTest::newRow("bytes") << qint64(999) << "999 B";
        QTest::newRow("kB") << qint64(1000) << "1.0 kB";
        QTest::newRow("rounds up a unit") << qint64(999999) << "1.0 MB";
        QTest::newRow("two digits") << qint64(12345678) << "12 MB";
        QTest::newRow("GB") << qint64(9700000000) << "9.7 GB";
        QTest::newRow("saturated") << std::numeric_limits<qint64>::max() << "9.2 EB";
    }

    void byteSizes()
    {
        QFETCH(qint64, bytes);
        QFETCH(QString, text);
        QCOMPARE(byteSizeText(bytes), text);
    }

    void availableMemory()
    {
        QCOMPARE(memAvailableFromMeminfo("MemTotal:       24684000 kB\nMemFree:  100 kB\nMemAvailable:   3145728 kB\n"),
                 qint64(3145728) * 1024);
        QCOMPARE(memAvailableFromMeminfo("MemTotal:       24684000 kB\n"), qint64(-1));
        QCOMPARE(memAvailableFromMeminfo("MemAvailable: lots kB\n"), qint64(-1));
        if (QFile::exists(QStringLiteral("/proc/meminfo")))
            QVERIFY(availableHostMemory() > 0);

        const QByteArray saved = qgetenv("TRAINYARD_MEMORY_LIMIT_BYTES");
        qputenv("TRAINYARD_MEMORY_LIMIT_BYTES", "2000000000");
        QCOMPARE(memoryLimitOverride(), qint64(2000000000));
        qputenv("TRAINYARD_MEMORY_LIMIT_BYTES", "-5");
        QCOMPARE(memoryLimitOverride(), qint64(-1));
        qputenv("TRAINYARD_MEMORY_LIMIT_BYTES", "2 GB");
        QCOMPARE(memoryLimitOverride(), qint64(-1));
        qunsetenv("TRAINYARD_MEMORY_LIMIT_BYTES");
        QCOMPARE(memoryLimitOverride(), qint64(-1));
        if (!saved.isNull())
            qputenv("TRAINYARD_MEMORY_LIMIT_BYTES", saved);
    }
};

} // namespace

TY_TEST_CLASS(TestMemoryEstimate)

#include "test_memory_estimate.moc"
