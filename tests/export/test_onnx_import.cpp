// trainyard-cli import MODEL.onnx against PyTorch: the CTest fixture onnx_models (make_onnx_models.py) exports an MLP,
// a small CNN, a MatMul+Add MLP and torchvision's ResNet-18 and MobileNetV2 with seeded random weights, with fixed
// inputs and PyTorch's logits. Each is imported, run for 0 epochs (its weights through training.init_from, without a
// map; a ResNet-18 with its batch norms kept, with torchvision's own state_dict and map "torchvision"), and
// the engine's logits on the fixed inputs must be PyTorch's within 1e-4; the run exported again as ONNX must give
// the same logits in onnxruntime-node. Refusals (an op without a rule, a damaged file, external data) exit 2 and
// write nothing.

#include "cli.h"
#include "cli_in_process.h"
#include "dataset_loader.h"
#include "block_registry.h"
#include "composite_blocks.h"
#include "preset_format.h"
#include "preset_inspection.h"
#include "onnx_test_support.h"
#include "required_data.h"
#include "run_database.h"
#include "safetensors_file.h"
#include "training_module.h"

#include <onnx/onnx_pb.h>

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <functional>

using namespace ty;

namespace {

constexpr double kTolerance = 1e-4;

using Output = tytest::CliOutput;
using tytest::readAll;
using tytest::trainyard;

QString fixture(const QString &name) { return QDir(QStringLiteral(TRAINYARD_ONNX_MODELS_DIR)).filePath(name); }

QString fixtureMissing()
{
    if (QFile::exists(fixture(QStringLiteral("done"))))
        return {};
    QFile unavailable(fixture(QStringLiteral("unavailable")));
    if (unavailable.open(QIODevice::ReadOnly))
        return QString::fromUtf8(unavailable.readAll()).trimmed();
    return QStringLiteral("the onnx_models fixture has not run: ctest -R 'onnx_models|onnx_import'");
}

torch::Tensor tensorOf(const TensorFile &file, const QString &name)
{
    const NamedTensor *t = file.find(name);
    if (!t)
        qFatal("the fixture lacks %s", qPrintable(name));
    std::vector<int64_t> sizes(t->shape.begin(), t->shape.end());
    return torch::from_blob(const_cast<char *>(t->data.constData()), sizes, torch::kFloat).clone();
}

// The engine's logits for `inputs` with the weights of `checkpoint`.
torch::Tensor engineLogits(const Preset &preset, const QString &checkpoint, const torch::Tensor &inputs)
{
    const BlockRegistry registry = presetBlockRegistry(preset);
    const Node *dataset = nullptr;
    for (const Node &node : preset.graph.nodes)
        if (const BlockDescriptor *b = registry.find(node.block); b && b->category == BlockCategory::Dataset && !dataset)
            dataset = &node;
    const Result<DatasetShape> shape = describeDataset(
        DatasetRequest{dataset->block, dataset->id, registry.find(dataset->block)->effectiveParams(dataset->params), preset.baseDir()});
    if (!shape)
        qFatal("%s", qPrintable(shape.error().toString()));
    return tytest::engineLogits(preset, shape.value(), checkpoint, inputs);
}

// onnxruntime-node's logits of `model` for `inputs`.
torch::Tensor runtimeLogits(const QString &model, const torch::Tensor &inputs, const QString &scratch)
{
    const tytest::OnnxRuntimeRun ran = tytest::runOnnxRuntime(model, inputs, scratch);
    if (ran.process.code != 0)
        qFatal("run_onnx_model.js: %s", qPrintable(ran.process.err));
    return torch::from_blob(const_cast<char *>(ran.output.constData()), {inputs.size(0), qint64(ran.output.size() / 4) / inputs.size(0)}, torch::kFloat)
        .clone();
}

} // namespace

class TestOnnxImport : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    void requireFixture()
    {
        if (const QString missing = fixtureMissing(); !missing.isEmpty()) {
            qWarning("%s", qPrintable(missing));
            TY_SKIP_WITHOUT_DATA("the onnx_models fixture needs python3-torch and python3-torchvision");
        }
    }

    // Imports `model` into `name`, expecting a refusal: exit code 2, `expected` in the message, nothing written.
    void expectRefusal(const QString &model, const QString &name, const QStringList &expected)
    {
        const QString output = m_dir.filePath(name + QStringLiteral(".trainyard.json"));
        const Output imported = trainyard({QStringLiteral("import"), model, QStringLiteral("--output"), output});
        QCOMPARE(imported.code, 2);
        for (const QString &text : expected)
            QVERIFY2(imported.err.contains(text), qPrintable(imported.err));
        QVERIFY(!QFile::exists(output));
        QVERIFY(!QFile::exists(m_dir.filePath(name + QStringLiteral(".weights.safetensors"))));
    }

private Q_SLOTS:
    void initTestCase()
    {
        cli::linkTrainingCommands();
        QVERIFY(m_dir.isValid());
    }

    void matchesPyTorch_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("composites");  // at least
        QTest::addColumn<QString>("torchvisionWeights");  // a state_dict run with --init-map torchvision instead of the import's weights
        QTest::newRow("mlp") << QStringLiteral("mlp") << 0 << QString();
        QTest::newRow("matmul_mlp") << QStringLiteral("matmul_mlp") << 0 << QString();
        QTest::newRow("cnn") << QStringLiteral("cnn") << 0 << QString();
        QTest::newRow("resnet18") << QStringLiteral("resnet18") << 2 << QString();
        QTest::newRow("mobilenet_v2") << QStringLiteral("mobilenet_v2") << 2 << QString();
        // Batch norms kept: the imported network has every tensor of torchvision's, named as the model library
        // names them (layer1_0.conv1.weight), so torchvision's own file loads into it, strict, by map "torchvision".
        QTest::newRow("resnet18_bn torchvision weights") << QStringLiteral("resnet18_bn") << 2 << QStringLiteral("resnet18_bn.state_dict.safetensors");
    }

    // Imported, run for 0 epochs and exported again: the engine's and onnxruntime's logits are PyTorch's.
    void matchesPyTorch()
    {
        QFETCH(QString, model);
        QFETCH(int, composites);
        QFETCH(QString, torchvisionWeights);
        requireFixture();
        QVERIFY2(QFile::exists(QStringLiteral(TRAINYARD_ONNXRUNTIME_NODE_DIR "/node_modules/onnxruntime-node/package.json")),
                 "onnxruntime-node is not installed: run the onnxruntime_node test (ctest's fixture) first");
        const QString presetFile = m_dir.filePath(model + QStringLiteral(".trainyard.json"));
        const Output imported = trainyard({QStringLiteral("import"), fixture(model + QStringLiteral(".onnx")), QStringLiteral("--output"), presetFile,
                                           QStringLiteral("--json")});
        QVERIFY2(imported.code == 0, qPrintable(imported.err + imported.out));
        const QJsonObject report = QJsonDocument::fromJson(imported.out.toUtf8()).object();
        QVERIFY(report.value(QStringLiteral("composites")).toArray().size() >= composites);
        QVERIFY(QFile::exists(m_dir.filePath(model + QStringLiteral(".weights.safetensors"))));

        // The placeholder data node is a warning of validation, naming the node.
        const Output validated = trainyard({QStringLiteral("validate"), presetFile});
        QVERIFY2(validated.code == 0, qPrintable(validated.err + validated.out));
        QVERIFY2((validated.out + validated.err).contains(QStringLiteral("node 'data', param 'placeholder'")), qPrintable(validated.out + validated.err));

        const QString db = m_dir.filePath(model + QStringLiteral(".sqlite"));
        QStringList runArguments{QStringLiteral("run"), presetFile, QStringLiteral("--db"), db, QStringLiteral("--quiet"), QStringLiteral("--json"),
                                 QStringLiteral("--set"), QStringLiteral("training.device=cpu")};
        if (!torchvisionWeights.isEmpty())
            runArguments << QStringLiteral("--init-from") << fixture(torchvisionWeights) << QStringLiteral("--init-map") << QStringLiteral("torchvision");
        const Output run = trainyard(runArguments);
        QVERIFY2(run.code == 0, qPrintable(run.err + run.out));
        const QJsonObject summary = QJsonDocument::fromJson(run.out.toUtf8()).object();
        const QString checkpoint = summary.value(QStringLiteral("checkpoint")).toString();
        const QString id = QString::number(summary.value(QStringLiteral("id")).toInteger());

        const Result<TensorFile> io = readSafetensors(fixture(model + QStringLiteral(".io.safetensors")));
        QVERIFY(io);
        const torch::Tensor inputs = tensorOf(io.value(), QStringLiteral("inputs")), expected = tensorOf(io.value(), QStringLiteral("logits"));
        const Result<RunInfo> info = RunDatabase::open(db).value()->run(id.toLongLong());
        QVERIFY(info);
        if (!torchvisionWeights.isEmpty()) {  // every tensor of the imported network came from torchvision's file
            const Result<TensorFile> imported = readSafetensors(m_dir.filePath(model + QStringLiteral(".weights.safetensors")));
            QVERIFY(imported);
            const QJsonObject initFrom = info.value().provenance.value(QStringLiteral("init_from")).toObject();
            QCOMPARE(QFileInfo(initFrom.value(QStringLiteral("file")).toString()).fileName(), torchvisionWeights);
            const QJsonObject counts = initFrom.value(QStringLiteral("import")).toObject().value(QStringLiteral("counts")).toObject();
            QCOMPARE(counts.value(QStringLiteral("copied")).toInt(), int(imported.value().tensors.size()));
            QCOMPARE(counts.value(QStringLiteral("missing")).toInt(), 0);
            QCOMPARE(counts.value(QStringLiteral("mismatched")).toInt(), 0);
            QVERIFY(imported.value().find(QStringLiteral("layer1_0.bn1.running_var")));
        }
        const Result<Preset> preset = presetFromJson(info.value().preset, presetFile);
        QVERIFY(preset);
        const torch::Tensor logits = engineLogits(preset.value(), checkpoint, inputs);
        QCOMPARE(logits.sizes(), expected.sizes());
        const double engineDiff = (logits - expected).abs().max().item<double>();
        qInfo("%s: max |Trainyard - PyTorch| = %.3g (logits up to %.3g)", qPrintable(model), engineDiff, expected.abs().max().item<double>());
        QVERIFY2(engineDiff <= kTolerance, qPrintable(QString::number(engineDiff)));
        QVERIFY(expected.abs().max().item<double>() > 0);

        const QString exported = m_dir.filePath(model + QStringLiteral(".again.onnx"));
        const Output exportRun = trainyard({QStringLiteral("export"), id, QStringLiteral("--format"), QStringLiteral("onnx"), QStringLiteral("--output"),
                                            exported, QStringLiteral("--db"), db});
        QVERIFY2(exportRun.code == 0, qPrintable(exportRun.err + exportRun.out));
        const torch::Tensor runtime = runtimeLogits(exported, inputs, m_dir.filePath(model));
        QCOMPARE(runtime.sizes(), expected.sizes());
        const double runtimeDiff = (runtime - expected).abs().max().item<double>();
        qInfo("%s: max |onnxruntime (export of the import) - PyTorch| = %.3g", qPrintable(model), runtimeDiff);
        QVERIFY2(runtimeDiff <= kTolerance, qPrintable(QString::number(runtimeDiff)));
    }

    // ResNet-18's basic blocks are one composite used by several nodes, named as the model library names them
    // (torchvision's layer1.0 is node layer1_0; its stages, nn.Sequential, are no nodes of their own).
    void resnetHasComposites()
    {
        requireFixture();
        const QString presetFile = m_dir.filePath(QStringLiteral("structure.trainyard.json"));
        const Output imported = trainyard({QStringLiteral("import"), fixture(QStringLiteral("resnet18.onnx")), QStringLiteral("--output"), presetFile});
        QVERIFY2(imported.code == 0, qPrintable(imported.err));
        const Result<Preset> preset = loadPreset(presetFile);
        QVERIFY(preset);
        QStringList ids;
        for (const Node &node : preset.value().graph.nodes)
            ids << node.id;
        for (const char *id : {"data", "conv1", "maxpool", "layer1_0", "layer1_1", "layer2_0", "layer2_1", "layer3_0", "layer4_1", "fc"})
            QVERIFY2(ids.contains(QString::fromLatin1(id)), qPrintable(ids.join(QLatin1Char(' '))));
        QVERIFY2(!ids.contains(QStringLiteral("layer1")), qPrintable(ids.join(QLatin1Char(' '))));
        // The downsampling blocks of layer2, layer3 and layer4 share one definition, and so do the plain ones of
        // all four stages; the two differ.
        QHash<QString, QString> blockOf;
        for (const Node &node : preset.value().graph.nodes)
            blockOf.insert(node.id, node.block);
        QVERIFY(preset.value().blocks.contains(blockOf.value(QStringLiteral("layer2_0"))));
        QCOMPARE(blockOf.value(QStringLiteral("layer4_0")), blockOf.value(QStringLiteral("layer2_0")));
        QCOMPARE(blockOf.value(QStringLiteral("layer4_1")), blockOf.value(QStringLiteral("layer1_0")));
        QVERIFY(blockOf.value(QStringLiteral("layer1_0")) != blockOf.value(QStringLiteral("layer2_0")));
        const Result<TensorFile> weights = readSafetensors(m_dir.filePath(QStringLiteral("structure.weights.safetensors")));
        QVERIFY(weights);
        for (const char *name : {"layer1_0.conv1.weight", "layer2_0.downsample_0.weight", "fc.weight"})
            QVERIFY2(weights.value().find(QString::fromLatin1(name)), name);
        qint64 values = 0;
        for (const NamedTensor &t : weights.value().tensors)
            values += t.elementCount();
        QCOMPARE(values, qint64(11176842));  // torchvision's resnet18(num_classes=10), batch norm folded into the convolutions
    }

    // MobileNetV2's depthwise convolutions keep their groups and its Clip(0, 6) is a ReLU6; numbered modules are
    // named as the model library names them (features.1.conv.0.2 is node conv_0_2 of node features_1).
    void mobilenetKeepsGroupsAndRelu6()
    {
        requireFixture();
        const QString presetFile = m_dir.filePath(QStringLiteral("mobilenet.trainyard.json"));
        const Output imported = trainyard({QStringLiteral("import"), fixture(QStringLiteral("mobilenet_v2.onnx")), QStringLiteral("--output"), presetFile});
        QVERIFY2(imported.code == 0, qPrintable(imported.err));
        const Result<Preset> preset = loadPreset(presetFile);
        QVERIFY(preset);
        int relu6 = 0, grouped = 0;
        QStringList relu6Ids;
        for (const QJsonValue &definition : preset.value().blocks) {
            const QJsonObject block = definition.toObject();
            for (const QJsonValue &value : block.value(QStringLiteral("nodes")).toArray()) {
                const QJsonObject node = value.toObject();
                if (node.value(QStringLiteral("block")).toString() == QStringLiteral("layer.relu6")) {
                    ++relu6;
                    relu6Ids << node.value(QStringLiteral("id")).toString();
                }
            }
            // The depthwise convolutions' groups, in the nodes or exposed with a value per use.
            for (const QString &param : block.value(QStringLiteral("params")).toObject().keys())
                grouped += param.endsWith(QStringLiteral("_groups"));
        }
        QVERIFY2(relu6 > 0 && grouped > 0, qPrintable(QStringLiteral("%1 relu6, %2 groups").arg(relu6).arg(grouped)));
        QVERIFY2(relu6Ids.contains(QStringLiteral("conv_0_2")), qPrintable(relu6Ids.join(QLatin1Char(' '))));
        QStringList ids;
        for (const Node &node : preset.value().graph.nodes)
            ids << node.id;
        for (const char *id : {"features_0_0", "features_0_2", "features_1", "features_17", "features_18_0", "classifier_1"})
            QVERIFY2(ids.contains(QString::fromLatin1(id)), qPrintable(ids.join(QLatin1Char(' '))));
        bool depthwise = false;  // a use with as many groups as channels (torchvision's first block: 32)
        const std::function<void(const QJsonValue &)> findGroups = [&](const QJsonValue &v) {
            if (v.isObject()) {
                const QJsonObject o = v.toObject();
                for (auto it = o.constBegin(); it != o.constEnd(); ++it) {
                    if (it.key().endsWith(QStringLiteral("groups")) && it.value().toInt() == 32)
                        depthwise = true;
                    findGroups(it.value());
                }
            } else if (v.isArray()) {
                for (const QJsonValue &item : v.toArray())
                    findGroups(item);
            }
        };
        QFile file(presetFile);
        QVERIFY(file.open(QIODevice::ReadOnly));
        findGroups(QJsonDocument::fromJson(file.readAll()).object());
        QVERIFY(depthwise);
    }

    void refusesAnOpWithoutARule()
    {
        requireFixture();
        expectRefusal(fixture(QStringLiteral("unknown_op.onnx")), QStringLiteral("unknown"),
                      {QStringLiteral("Selu"), QStringLiteral("no import rule"), QStringLiteral("/1/Selu")});
    }

    void refusesADamagedFile()
    {
        requireFixture();
        const QByteArray bytes = readAll(fixture(QStringLiteral("cnn.onnx")));
        QVERIFY(bytes.size() > 1000);
        const QString damaged = m_dir.filePath(QStringLiteral("damaged.onnx"));
        QFile file(damaged);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(bytes.left(bytes.size() / 2));
        file.close();
        expectRefusal(damaged, QStringLiteral("damaged"), {QStringLiteral("damaged.onnx"), QStringLiteral("does not parse")});
        expectRefusal(m_dir.filePath(QStringLiteral("missing.onnx")), QStringLiteral("missing"), {QStringLiteral("no such file")});
    }

    // The fixture's CNN with `change` made to its last initializer (its last layer's bias), written as NAME.onnx.
    QString changedCnn(const QString &name, const std::function<void(onnx::TensorProto *)> &change)
    {
        onnx::ModelProto proto;
        const QByteArray bytes = readAll(fixture(QStringLiteral("cnn.onnx")));
        if (!proto.ParseFromArray(bytes.constData(), int(bytes.size())))
            qFatal("the fixture's cnn.onnx does not parse");
        change(proto.mutable_graph()->mutable_initializer(proto.graph().initializer_size() - 1));
        const QString path = m_dir.filePath(name + QStringLiteral(".onnx"));
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(path));
        const std::string serialized = proto.SerializeAsString();
        file.write(serialized.data(), qint64(serialized.size()));
        return path;
    }

    void refusesExternalData()
    {
        requireFixture();
        std::string weightName;
        const QString external = changedCnn(QStringLiteral("external"), [&](onnx::TensorProto *weight) {
            weightName = weight->name();
            weight->clear_raw_data();
            weight->set_data_location(onnx::TensorProto::EXTERNAL);
            onnx::StringStringEntryProto *location = weight->add_external_data();
            location->set_key("location");
            location->set_value("cnn.weights.bin");
        });
        expectRefusal(external, QStringLiteral("external"),
                      {QStringLiteral("external file (cnn.weights.bin)"), QString::fromStdString(weightName)});
    }

    // A tensor whose data is not as long as its shape says, in raw_data or in a typed field: refused, naming the
    // initializer, the field and both counts.
    void refusesDataThatDoesNotFitItsShape()
    {
        requireFixture();
        std::string weightName;
        qint64 size = 0;
        const QString shortRaw = changedCnn(QStringLiteral("short_raw"), [&](onnx::TensorProto *weight) {
            weightName = weight->name();
            if (weight->data_type() == onnx::TensorProto::FLOAT && weight->dims_size() == 1 && weight->has_raw_data())
                size = weight->dims(0);
            weight->set_raw_data(weight->raw_data().substr(0, size_t(size - 1) * 4));
        });
        QVERIFY2(size > 1, "the CNN's last initializer is no float vector in raw_data");
        const QString initializer = QStringLiteral("initializer \"%1\"").arg(QString::fromStdString(weightName));
        const auto counts = [&](qint64 found) {
            return QStringLiteral("holds %1 values, but its shape [%2] needs %2").arg(found).arg(size);
        };
        expectRefusal(shortRaw, QStringLiteral("short_raw"), {initializer, QStringLiteral("raw_data"), counts(size - 1)});
        const QString longDoubles = changedCnn(QStringLiteral("long_doubles"), [&](onnx::TensorProto *weight) {
            weight->clear_raw_data();
            weight->set_data_type(onnx::TensorProto::DOUBLE);
            for (qint64 i = 0; i <= size; ++i)
                weight->add_double_data(0.5);
        });
        expectRefusal(longDoubles, QStringLiteral("long_doubles"), {initializer, QStringLiteral("'data'"), counts(size + 1)});
    }
};

QTEST_GUILESS_MAIN(TestOnnxImport)
#include "test_onnx_import.moc"
