// The ONNX export rules without LibTorch: every transform and layer block has one, a block without one stops the
// export naming its node, missing weights name the node and tensor, and the model's interface (input, logits,
// opset, initializer names) for a checkpoint written here.

#include "required_data.h"
#include "block_registry.h"
#include "onnx_export.h"
#include "preset_format.h"

#include <onnx/onnx_pb.h>

#include <QtTest>

#include <cstring>

using namespace ty;

namespace {

QString presetPath(const char *name) { return QStringLiteral(TRAINYARD_SOURCE_DIR "/presets/%1.trainyard.json").arg(QLatin1String(name)); }

bool haveFashionMnist() { return QDir(QStringLiteral("/usr/share/datasets/fashion-mnist")).exists(); }

PipelinePlan plan(const char *presetName)
{
    const Result<Preset> preset = loadPreset(presetPath(presetName));
    if (!preset)
        qFatal("%s", qPrintable(preset.error().toString()));
    const Result<PipelinePlan> planned = planPresetForExport(preset.value());
    if (!planned)
        qFatal("%s", qPrintable(planned.error().toString()));
    return planned.value();
}

NamedTensor filled(const QString &name, QList<qint64> shape, float value)
{
    NamedTensor t;
    t.name = name;
    t.shape = std::move(shape);
    QByteArray data(t.elementCount() * 4, Qt::Uninitialized);
    for (qint64 i = 0; i < t.elementCount(); ++i)
        std::memcpy(data.data() + i * 4, &value, 4);
    t.data = data;
    return t;
}

// Weights of the wine preset's two linear layers (13 -> 32 -> 3), plus what a checkpoint holds besides them.
TensorFile wineWeights()
{
    TensorFile file;
    file.tensors = {filled(QStringLiteral("fc1.weight"), {32, 13}, 0.1f), filled(QStringLiteral("fc1.bias"), {32}, 0.0f),
                    filled(QStringLiteral("fc2.weight"), {3, 32}, 0.2f), filled(QStringLiteral("fc2.bias"), {3}, 0.5f),
                    filled(QStringLiteral("optimizer/fc1.weight/exp_avg"), {32, 13}, 0.0f)};
    return file;
}

std::vector<qint64> dimValues(const onnx::ValueInfoProto &info)
{
    std::vector<qint64> dims;
    for (const auto &d : info.type().tensor_type().shape().dim())
        dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
    return dims;
}

} // namespace

class TestOnnxRules : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyTransformAndLayerBlockHasARule()
    {
        QStringList missing;
        for (const BlockDescriptor &block : BlockRegistry::builtin().all())
            if ((block.category == BlockCategory::Transform || block.category == BlockCategory::Layer) &&
                !OnnxExportRules::builtin().find(block.typeId))
                missing.append(block.typeId);
        QVERIFY2(missing.isEmpty(), qPrintable(missing.join(QStringLiteral(", "))));
        QVERIFY(OnnxExportRules::builtin().find(QStringLiteral("loss.cross_entropy")) == nullptr);
    }

    // Rules are resolved before anything is built: the block without one is reported even though the weights are
    // missing too, and no model comes out.
    void aBlockWithoutARuleNamesItsNode()
    {
        if (!haveFashionMnist())
            TY_SKIP_WITHOUT_DATA("Fashion-MNIST is not installed (dataset-fashion-mnist)");
        OnnxExportRules rules = OnnxExportRules::builtin();
        rules.remove(QStringLiteral("layer.relu"));
        const Result<OnnxExport> exported = exportOnnx(plan("fashion-mnist-mlp"), TensorFile(), QStringLiteral("mlp"), {}, rules);
        QVERIFY(!exported);
        QCOMPARE(exported.error().node, QStringLiteral("relu1"));
        QCOMPARE(exported.error().field, QStringLiteral("block"));
        QVERIFY2(exported.error().message.contains(QStringLiteral("layer.relu")), qPrintable(exported.error().message));
    }

    void missingWeightsNameTheNodeAndTensor()
    {
        if (!haveFashionMnist())
            TY_SKIP_WITHOUT_DATA("Fashion-MNIST is not installed (dataset-fashion-mnist)");
        const Result<OnnxExport> exported = exportOnnx(plan("fashion-mnist-mlp"), TensorFile(), QStringLiteral("mlp"), {});
        QVERIFY(!exported);
        QCOMPARE(exported.error().node, QStringLiteral("norm"));
        QCOMPARE(exported.error().field, QStringLiteral("mean"));
        QVERIFY2(exported.error().message.contains(QStringLiteral("norm.mean")), qPrintable(exported.error().message));
    }

    void wineModelHasTheDocumentedInterface()
    {
        const Result<OnnxExport> exported = exportOnnx(plan("wine-tabular"), wineWeights(), QStringLiteral("wine"),
                                                       {{QStringLiteral("trainyard_run"), QStringLiteral("7")}});
        QVERIFY2(exported, exported ? "" : qPrintable(exported.error().toString()));
        QCOMPARE(exported.value().outputNode, QStringLiteral("fc2"));
        QCOMPARE(exported.value().initializers, (QStringList{QStringLiteral("fc1.weight"), QStringLiteral("fc1.bias"),
                                                             QStringLiteral("fc2.weight"), QStringLiteral("fc2.bias")}));
        QCOMPARE(exported.value().values, qint64(32 * 13 + 32 + 3 * 32 + 3));

        onnx::ModelProto model;
        QVERIFY(model.ParseFromArray(exported.value().model.constData(), int(exported.value().model.size())));
        QCOMPARE(model.opset_import_size(), 1);
        QCOMPARE(model.opset_import(0).version(), qint64(17));
        QCOMPARE(model.graph().input_size(), 1);
        QCOMPARE(model.graph().input(0).name(), std::string("input"));
        QCOMPARE(dimValues(model.graph().input(0)), (std::vector<qint64>{-1, 13}));
        QCOMPARE(model.graph().input(0).type().tensor_type().shape().dim(0).dim_param(), std::string("N"));
        QCOMPARE(model.graph().input(0).type().tensor_type().elem_type(), int(onnx::TensorProto::FLOAT));
        QCOMPARE(model.graph().output_size(), 1);
        QCOMPARE(model.graph().output(0).name(), std::string("logits"));
        QCOMPARE(dimValues(model.graph().output(0)), (std::vector<qint64>{-1, 3}));
        QStringList opTypes;
        for (const onnx::NodeProto &node : model.graph().node())
            opTypes.append(QString::fromStdString(node.op_type()));
        // Dropout is the identity in evaluation and exports as nothing.
        QCOMPARE(opTypes, (QStringList{QStringLiteral("Gemm"), QStringLiteral("Relu"), QStringLiteral("Gemm"), QStringLiteral("Identity")}));
        const onnx::TensorProto &bias = model.graph().initializer(3);
        QCOMPARE(bias.name(), std::string("fc2.bias"));
        float first = 0;
        std::memcpy(&first, bias.raw_data().data(), 4);
        QCOMPARE(first, 0.5f);
        QCOMPARE(model.metadata_props(0).key(), std::string("trainyard_run"));
    }

    // A rank-3 input takes the MatMul path; normalize and gelu export their own small subgraphs.
    void linearOverTheLastDimensionOfImages()
    {
        if (!haveFashionMnist())
            TY_SKIP_WITHOUT_DATA("Fashion-MNIST is not installed (dataset-fashion-mnist)");
        PipelinePlan p = plan("fashion-mnist-mlp");
        // Drop everything after norm and put a linear layer on [1, 28, 28] samples, read by the loss.
        PlannedOp linear;
        linear.nodeId = QStringLiteral("rows");
        linear.blockType = QStringLiteral("layer.linear");
        linear.params = QJsonObject{{QStringLiteral("out_features"), 4}, {QStringLiteral("bias"), true}};
        linear.inputs = {QStringLiteral("norm")};
        linear.inputShapes = {{1, 28, 28}};
        linear.shape.output = {1, 28, 4};
        PlannedOp gelu;
        gelu.nodeId = QStringLiteral("act");
        gelu.blockType = QStringLiteral("layer.gelu");
        gelu.inputs = {QStringLiteral("rows")};
        gelu.inputShapes = {{1, 28, 4}};
        gelu.shape.output = {1, 28, 4};
        p.ops = {p.ops.front(), linear, gelu};
        p.losses.front().input = QStringLiteral("act");
        TensorFile weights;
        weights.tensors = {filled(QStringLiteral("norm.mean"), {1, 1, 1, 1}, 0.25f), filled(QStringLiteral("norm.std"), {1, 1, 1, 1}, 0.5f),
                           filled(QStringLiteral("rows.weight"), {4, 28}, 0.1f), filled(QStringLiteral("rows.bias"), {4}, 0.0f)};
        const Result<OnnxExport> exported = exportOnnx(p, weights, QStringLiteral("rows"), {});
        QVERIFY2(exported, exported ? "" : qPrintable(exported.error().toString()));
        onnx::ModelProto model;
        QVERIFY(model.ParseFromArray(exported.value().model.constData(), int(exported.value().model.size())));
        QStringList opTypes;
        for (const onnx::NodeProto &node : model.graph().node())
            opTypes.append(QString::fromStdString(node.op_type()));
        QCOMPARE(opTypes.mid(0, 5), (QStringList{QStringLiteral("Sub"), QStringLiteral("Div"), QStringLiteral("Transpose"),
                                                 QStringLiteral("MatMul"), QStringLiteral("Add")}));
        QVERIFY(opTypes.contains(QStringLiteral("Erf")));
        QCOMPARE(exported.value().initializers.size(), 4);  // the GELU's constants are nodes, not initializers
        QCOMPARE(dimValues(model.graph().output(0)), (std::vector<qint64>{-1, 1, 28, 4}));
    }

    // Adaptive pooling with windows of unequal sizes (28 rows into 5) has no ONNX equivalent: the export stops
    // naming the node and field; a whole multiple (28 into 7) exports as an average pool.
    void unevenAdaptivePoolingIsRefused()
    {
        if (!haveFashionMnist())
            TY_SKIP_WITHOUT_DATA("Fashion-MNIST is not installed (dataset-fashion-mnist)");
        for (const int side : {5, 7}) {
            PipelinePlan p = plan("fashion-mnist-mlp");
            PlannedOp pool;
            pool.nodeId = QStringLiteral("pool");
            pool.blockType = QStringLiteral("layer.adaptive_avgpool2d");
            pool.params = QJsonObject{{QStringLiteral("output_height"), side}, {QStringLiteral("output_width"), side}};
            pool.inputs = {QStringLiteral("norm")};
            pool.inputShapes = {{1, 28, 28}};
            pool.shape.output = {1, side, side};
            p.ops = {p.ops.front(), pool};
            p.losses.front().input = QStringLiteral("pool");
            TensorFile weights;
            weights.tensors = {filled(QStringLiteral("norm.mean"), {1, 1, 1, 1}, 0.25f), filled(QStringLiteral("norm.std"), {1, 1, 1, 1}, 0.5f)};
            const Result<OnnxExport> exported = exportOnnx(p, weights, QStringLiteral("pool"), {});
            if (side == 7) {
                QVERIFY2(exported, exported ? "" : qPrintable(exported.error().toString()));
                continue;
            }
            QVERIFY(!exported);
            QCOMPARE(exported.error().node, QStringLiteral("pool"));
            QCOMPARE(exported.error().field, QStringLiteral("output_height"));
            QVERIFY2(exported.error().message.contains(QStringLiteral("whole multiples")), qPrintable(exported.error().message));
        }
    }
};

QTEST_GUILESS_MAIN(TestOnnxRules)
#include "test_onnx_rules.moc"
