// trainyard-cli export --format onnx against runtimes that are not Trainyard's: each bundled preset (and
// every-block.trainyard.json, for the blocks they leave out) is trained
// briefly, exported through the CLI, checked by ONNX's own checker (Debian's python3-onnx) and run by
// onnxruntime-node (installed by the onnxruntime_node fixture); its logits must match the engine's on the same
// test samples within 1e-4.

#include "required_data.h"
#include "cli.h"
#include "cli_in_process.h"
#include "dataset_loader.h"
#include "detail/device_data.h"
#include "block_registry.h"
#include "preset_format.h"
#include "run_database.h"
#include "safetensors_file.h"
#include "onnx_test_support.h"
#include "training_module.h"

#include <onnx/onnx_pb.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

using namespace ty;

namespace {

constexpr int64_t kParitySamples = 1000;
// The bound on |onnxruntime - engine|: 1e-4, or 1e-5 of the largest logit when that is more. float32 sums in
// another order differ by about 1e-7 of the values summed; the every-block fixture's logits reach 58 and differ
// by 1.1e-4 on an AVX-512 machine, while a wrong operator differs by whole units.
constexpr double kTolerance = 1e-4;
constexpr double kRelativeTolerance = 1e-5;

using Output = tytest::CliOutput;
using tytest::engineLogits;
using tytest::readAll;
using tytest::runProgram;
using tytest::trainyard;

// A bundled preset, one of the model library's (presets/models/), or one of this folder's fixtures.
QString presetPath(const QString &name)
{
    for (const char *folder : {TRAINYARD_SOURCE_DIR "/tests/export", TRAINYARD_SOURCE_DIR "/presets"}) {
        const QString path = QStringLiteral("%1/%2.trainyard.json").arg(QString::fromLatin1(folder), name);
        if (QFile::exists(path))
            return path;
    }
    return QStringLiteral(TRAINYARD_SOURCE_DIR "/presets/models/%1.trainyard.json").arg(name);
}

// The engine's outputs of the first optimized loss's input for the first `count` test samples, and those
// samples as the engine sees them (floats).
struct EngineOutputs {
    torch::Tensor inputs, logits;
};

EngineOutputs engineOutputs(const Preset &preset, const QString &weightsPath, int64_t count)
{
    const BlockRegistry &registry = BlockRegistry::builtin();
    const Node *dataset = nullptr;
    for (const Node &node : preset.graph.nodes)
        if (const BlockDescriptor *b = registry.find(node.block); b && b->category == BlockCategory::Dataset && !dataset)
            dataset = &node;
    Result<LoadedDataset> loaded = loadDataset(
        DatasetRequest{dataset->block, dataset->id, registry.find(dataset->block)->effectiveParams(dataset->params), preset.baseDir()});
    if (!loaded)
        qFatal("%s", qPrintable(loaded.error().toString()));
    const ty::detail::DeviceSplit test = ty::detail::toDevice(loaded.value().test, torch::kCPU);
    EngineOutputs out;
    out.inputs = test.range(0, std::min(count, test.size())).contiguous();
    out.logits = engineLogits(preset, loaded.value().shape, weightsPath, out.inputs);
    return out;
}

QStringList modelTensorNames(const QString &checkpointPath)
{
    QStringList names;
    for (const NamedTensor &t : readSafetensors(checkpointPath).value().tensors)
        if (!t.name.contains(QLatin1Char('/')) && !t.name.endsWith(QStringLiteral(".num_batches_tracked")))
            names.append(t.name);
    return names;
}

} // namespace

class TestOnnxParity : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        cli::linkTrainingCommands();
        QVERIFY(m_dir.isValid());
        QVERIFY2(QFile::exists(QStringLiteral(TRAINYARD_ONNXRUNTIME_NODE_DIR "/node_modules/onnxruntime-node/package.json")),
                 "onnxruntime-node is not installed: run the onnxruntime_node test (ctest's fixture) first");
    }

    void matchesTheEngine_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QStringList>("overrides");
        const QStringList fashion{QStringLiteral("data.limit=2000"), QStringLiteral("data.val_count=200"), QStringLiteral("data.test_limit=1000")};
        QTest::newRow("mlp") << QStringLiteral("fashion-mnist-mlp") << fashion;
        QTest::newRow("cnn") << QStringLiteral("fashion-mnist-cnn") << fashion;
        QTest::newRow("resnet") << QStringLiteral("fashion-mnist-resnet") << fashion;
        QTest::newRow("wine") << QStringLiteral("wine-tabular") << QStringList{};
        // The blocks the bundled presets leave out (leaky ReLU, padded average pooling, concat, GELU, ...).
        QTest::newRow("every-block") << QStringLiteral("every-block") << fashion;
        // Embedding, LSTM and GRU (their gates reordered for ONNX), on text every Debian system has.
        QTest::newRow("sequence-blocks") << QStringLiteral("sequence-blocks") << QStringList{};
        // The model library at 32 x 32 on its placeholder data: MobileNetV2's depthwise convolutions (Conv's group)
        // and ReLU6 (Clip), ResNet-18's downsampling blocks.
        const QStringList small{QStringLiteral("data.features=32"), QStringLiteral("data.samples=64"), QStringLiteral("data.test_samples=32"),
                                QStringLiteral("data.val_count=16"), QStringLiteral("data.classes=10")};
        QTest::newRow("mobilenet-v2") << QStringLiteral("mobilenet-v2") << (small + QStringList{QStringLiteral("mobilenet_v2.num_classes=10")});
        QTest::newRow("resnet18") << QStringLiteral("resnet18") << (small + QStringList{QStringLiteral("resnet18.num_classes=10")});
        QTest::newRow("words") << QStringLiteral("words-char-lstm") << QStringList{QStringLiteral("data.limit=5000"), QStringLiteral("data.val_count=500"),
                                                                                QStringLiteral("data.test_limit=1000")};
    }

    void matchesTheEngine()
    {
        QFETCH(QString, preset);
        QFETCH(QStringList, overrides);
        if (preset == QStringLiteral("words-char-lstm") && !QFile::exists(QStringLiteral("/usr/share/dict/words")))
            TY_SKIP_WITHOUT_DATA("The word list is not installed (wamerican)");
        const bool fashion = preset.startsWith(QStringLiteral("fashion")) || preset == QStringLiteral("every-block");
        if (fashion && !QDir(QStringLiteral("/usr/share/datasets/fashion-mnist")).exists())
            TY_SKIP_WITHOUT_DATA("Fashion-MNIST is not installed (dataset-fashion-mnist)");
        const QString db = m_dir.filePath(preset + QStringLiteral(".sqlite"));
        QStringList runArgs{QStringLiteral("run"), presetPath(preset), QStringLiteral("--db"), db, QStringLiteral("--quiet"),
                            QStringLiteral("--json"), QStringLiteral("--set"), QStringLiteral("training.device=cpu"),
                            QStringLiteral("--set"), QStringLiteral("training.epochs=1")};
        for (const QString &o : overrides)
            runArgs << QStringLiteral("--set") << o;
        const Output run = trainyard(runArgs);
        QVERIFY2(run.code == 0, qPrintable(run.err + run.out));
        const QJsonObject summary = QJsonDocument::fromJson(run.out.toUtf8()).object();
        const QString id = QString::number(summary.value(QStringLiteral("id")).toInteger());
        const QString checkpoint = summary.value(QStringLiteral("checkpoint")).toString();

        const QString model = m_dir.filePath(preset + QStringLiteral(".onnx"));
        const Output exported = trainyard({QStringLiteral("export"), id, QStringLiteral("--format"), QStringLiteral("onnx"), QStringLiteral("--output"),
                                           model, QStringLiteral("--db"), db, QStringLiteral("--json")});
        QVERIFY2(exported.code == 0, qPrintable(exported.err + exported.out));
        const QJsonObject report = QJsonDocument::fromJson(exported.out.toUtf8()).object();
        QCOMPARE(report.value(QStringLiteral("format")).toString(), QStringLiteral("onnx"));
        QCOMPARE(report.value(QStringLiteral("output")).toString(), model);
        QCOMPARE(report.value(QStringLiteral("opset")).toInt(), 17);

        // ONNX's own checker, with strict shape inference.
        const Output checked = runProgram(QStringLiteral("/usr/bin/python3"),  // Debian's, which python3-onnx installs into
                                          {QStringLiteral("-c"), QStringLiteral("import onnx, sys; onnx.checker.check_model(onnx.load(sys.argv[1]), full_check=True)"), model});
        QVERIFY2(checked.code == 0, qPrintable(QStringLiteral("onnx.checker: ") + checked.err));

        // The weights under their stable names, the input with a dynamic batch dimension.
        onnx::ModelProto proto;
        const QByteArray bytes = readAll(model);
        QVERIFY(proto.ParseFromArray(bytes.constData(), int(bytes.size())));
        QSet<QString> initializers;
        for (const onnx::TensorProto &t : proto.graph().initializer())
            initializers.insert(QString::fromStdString(t.name()));
        const QStringList expectedNames = modelTensorNames(checkpoint);
        QCOMPARE(initializers, QSet<QString>(expectedNames.begin(), expectedNames.end()));
        const onnx::TensorShapeProto &inputShape = proto.graph().input(0).type().tensor_type().shape();
        QVERIFY(!inputShape.dim(0).has_dim_value());
        QVERIFY(!inputShape.dim(0).dim_param().empty());

        // The same samples through the engine and through onnxruntime.
        const Result<RunInfo> info = RunDatabase::open(db).value()->run(id.toLongLong());
        QVERIFY(info);
        const Result<Preset> runPreset = presetFromJson(info.value().preset, presetPath(preset));
        QVERIFY(runPreset);
        const EngineOutputs engine = engineOutputs(runPreset.value(), checkpoint, kParitySamples);
        const tytest::OnnxRuntimeRun ran = tytest::runOnnxRuntime(model, engine.inputs, m_dir.filePath(preset));
        QVERIFY2(ran.process.code == 0, qPrintable(ran.process.err));
        QCOMPARE(ran.report.value(QStringLiteral("inputs")).toArray(), QJsonArray{QStringLiteral("input")});
        QCOMPARE(ran.report.value(QStringLiteral("outputs")).toArray(), QJsonArray{QStringLiteral("logits")});
        QCOMPARE(ran.report.value(QStringLiteral("dims")).toArray(), (QJsonArray{qint64(engine.logits.size(0)), qint64(engine.logits.size(1))}));

        QCOMPARE(qint64(ran.output.size()), qint64(engine.logits.numel() * 4));
        const torch::Tensor runtime = torch::from_blob(const_cast<char *>(ran.output.constData()), engine.logits.sizes(), torch::kFloat).clone();
        const double maxDiff = (runtime - engine.logits).abs().max().item<double>();
        const double scale = engine.logits.abs().max().item<double>();
        qInfo("%s: %lld samples, max |onnxruntime - engine| = %.3g (logits up to %.3g)", qPrintable(preset),
              static_cast<long long>(engine.logits.size(0)), maxDiff, scale);
        const double bound = std::max(kTolerance, kRelativeTolerance * scale);
        QVERIFY2(maxDiff <= bound, qPrintable(QStringLiteral("max abs difference %1, above %2").arg(maxDiff).arg(bound)));
        QVERIFY(scale > 0);  // not trivially equal
    }
};

QTEST_GUILESS_MAIN(TestOnnxParity)
#include "test_onnx_parity.moc"
