// The cost estimate of core/shapes (cost_estimate.h): multiply-accumulates per node, per composite and in total,
// forward and per training step, and the receptive field after each convolution or pooling. The bundled CNN and
// ResNet presets (and the image-folder CNN, on the same images) are checked against figures worked out by hand
// below, the arithmetic written out so that a reader can check it; the other blocks' rules against small cases,
// and the field through a known stack and a branch.

#include "test_suite.h"
#include "core_test_support.h"
#include "required_data.h"

#include "block_registry.h"
#include "cost_estimate.h"
#include "preset_format.h"
#include "preset_inspection.h"
#include "shape_rules.h"

#include <QtTest>

using namespace ty;

namespace {

ShapeReport inspectedPreset(const Preset &preset)
{
    const ShapeReport report = inspectPresetShapes(preset);
    if (!report.ok())
        qWarning("%s", qPrintable(tytest::dump(report.issues)));
    return report;
}

Preset bundled(const QString &name)
{
    const Result<Preset> loaded = loadPreset(tytest::presetsDir() + QLatin1Char('/') + name + QStringLiteral(".trainyard.json"));
    if (!loaded)
        qFatal("%s", qPrintable(loaded.error().message));
    return loaded.value();
}

NodeCost costOf(const ShapeReport &report, const char *node)
{
    return report.nodes.value(QString::fromLatin1(node)).cost;
}

ReceptiveField field(qint64 size, qint64 stride)
{
    return ReceptiveField{{size, size}, {stride, stride}};
}

// 28x28 grey synthetic images through `layers` (ids in order, each fed by the one before) into a linear
// classifier: for the receptive field of a stack.
Preset imageStack(std::initializer_list<Node> layers)
{
    using tytest::node;
    Preset preset;
    preset.graph.nodes << node(QStringLiteral("data"), QStringLiteral("dataset.synthetic"),
                               {{QStringLiteral("kind"), QStringLiteral("images")}, {QStringLiteral("features"), 28},
                                {QStringLiteral("samples"), 200}, {QStringLiteral("test_samples"), 50}});
    QString previous = QStringLiteral("data.features");
    for (const Node &layer : layers) {
        preset.graph.nodes << layer;
        preset.graph.edges << tytest::edge(previous, layer.id + QStringLiteral(".in"));
        previous = layer.id + QStringLiteral(".out");
    }
    preset.graph.nodes << node(QStringLiteral("flat"), QStringLiteral("layer.flatten"))
                       << node(QStringLiteral("fc"), QStringLiteral("layer.linear"), {{QStringLiteral("out_features"), 4}})
                       << node(QStringLiteral("loss"), QStringLiteral("loss.cross_entropy"))
                       << node(QStringLiteral("opt"), QStringLiteral("optimizer.sgd"));
    preset.graph.edges << tytest::edge(previous, QStringLiteral("flat.in")) << tytest::edge(QStringLiteral("flat.out"), QStringLiteral("fc.in"))
                       << tytest::edge(QStringLiteral("fc.out"), QStringLiteral("loss.input"))
                       << tytest::edge(QStringLiteral("data.target"), QStringLiteral("loss.target"))
                       << tytest::edge(QStringLiteral("loss.loss"), QStringLiteral("opt.loss"));
    preset.training = QJsonObject{{QStringLiteral("batch_size"), 10}};
    return preset;
}

Node conv(const char *id, int channels, int kernel, int stride = 1, int padding = 0)
{
    return tytest::node(QString::fromLatin1(id), QStringLiteral("layer.conv2d"),
                        {{QStringLiteral("out_channels"), channels}, {QStringLiteral("kernel_size"), kernel},
                         {QStringLiteral("stride"), stride}, {QStringLiteral("padding"), padding}});
}

Node maxPool(const char *id, int kernel)
{
    return tytest::node(QString::fromLatin1(id), QStringLiteral("layer.maxpool2d"), {{QStringLiteral("kernel_size"), kernel}});
}

// A block's cost rule on one input, with its effective parameters and the output its shape rule gives.
OpCost ruleCost(const char *block, const QJsonObject &params, const SampleShape &in)
{
    const QString type = QString::fromLatin1(block);
    const QJsonObject effective = BlockRegistry::builtin().find(type)->effectiveParams(params);
    const Result<OpShape> shape = inferOpShape(type, QStringLiteral("n"), effective, {in});
    if (!shape)
        qFatal("%s", qPrintable(shape.error().message));
    return (*ShapeRules::builtin().costs.find(type))(effective, {in}, shape.value().output);
}

} // namespace

class TestCostEstimate : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void fashionMnistCnnByHand()
    {
        if (!tytest::fashionMnistAvailable())
            TY_SKIP_WITHOUT_DATA("dataset-fashion-mnist is not installed");
        const ShapeReport report = inspectedPreset(bundled(QStringLiteral("fashion-mnist-cnn")));
        QVERIFY(report.ok());
        // conv1: 5x5, 1 -> 32 channels, padding 2 keeps 28x28: 28*28*32 = 25,088 outputs of 5*5*1 = 25 products.
        QCOMPARE(costOf(report, "conv1").forwardMacs, qint64(28 * 28 * 32) * (5 * 5 * 1));      // 627,200
        // pool1 halves to 14x14; conv2: 14*14*64 = 12,544 outputs of 5*5*32 = 800 products.
        QCOMPARE(costOf(report, "conv2").forwardMacs, qint64(14 * 14 * 64) * (5 * 5 * 32));     // 10,035,200
        // pool2 halves to 7x7, flattened to 7*7*64 = 3,136 features; fc1 3,136 -> 1,024, fc2 1,024 -> 10.
        QCOMPARE(costOf(report, "fc1").forwardMacs, qint64(3136) * 1024);                      // 3,211,264
        QCOMPARE(costOf(report, "fc2").forwardMacs, qint64(1024) * 10);                        // 10,240
        // Normalisation, activations, pooling, flatten and dropout: 0, but listed.
        for (const char *free : {"norm", "relu1", "pool1", "relu2", "pool2", "flatten", "relu3", "dropout"}) {
            QVERIFY2(costOf(report, free).known, free);
            QCOMPARE(costOf(report, free).forwardMacs, qint64(0));
        }
        QVERIFY(!costOf(report, "data").known);
        QVERIFY(!costOf(report, "loss").known);
        // 627,200 + 10,035,200 + 3,211,264 + 10,240 = 13,883,904 a sample; a training step is 3 x that x 128.
        QVERIFY(report.cost.known);
        QCOMPARE(report.cost.forwardMacs, qint64(13883904));
        QCOMPARE(report.cost.batchSize, qint64(128));
        QCOMPARE(report.cost.trainingStepMacs, qint64(3) * 128 * 13883904);                     // 5,331,419,136
        QCOMPARE(costOf(report, "conv2").trainingStepMacs, qint64(3) * 128 * 10035200);

        // Receptive field: conv1 5x5 -> (5, 1); pool1 2x2/2 -> (5 + 1*1, 1*2) = (6, 2);
        // conv2 5x5 -> (6 + 4*2, 2) = (14, 2); pool2 2x2/2 -> (14 + 1*2, 2*2) = (16, 4).
        QCOMPARE(costOf(report, "conv1").receptiveField.size, field(5, 1).size);
        QCOMPARE(costOf(report, "pool1").receptiveField.size, field(6, 2).size);
        QCOMPARE(costOf(report, "pool1").receptiveField.stride, field(6, 2).stride);
        QCOMPARE(costOf(report, "conv2").receptiveField.size, field(14, 2).size);
        QCOMPARE(costOf(report, "pool2").receptiveField.size, field(16, 4).size);
        QCOMPARE(costOf(report, "pool2").receptiveField.stride, field(16, 4).stride);
        QCOMPARE(receptiveFieldText(costOf(report, "pool2").receptiveField), QStringLiteral("16x16, stride 4"));
        for (const char *window : {"conv1", "pool1", "conv2", "pool2"})
            QVERIFY2(costOf(report, window).window, window);
        QVERIFY(!costOf(report, "relu2").window);
        QCOMPARE(costOf(report, "relu2").receptiveField.size, field(14, 2).size);  // carried, not shown
        QVERIFY(!costOf(report, "flatten").receptiveField.known());  // a linear layer's output has no field
    }

    // The image-folder CNN reads PNG files written from Fashion-MNIST (28x28 grey): the same samples from the IDX
    // files here. conv1 3x3 1 -> 32 at 28x28: 28*28*32 = 25,088 outputs of 9 products; conv2 3x3 32 -> 64 at
    // 14x14: 12,544 outputs of 3*3*32 = 288; fc1 3,136 -> 128; fc2 128 -> 10.
    void imageFolderCnnByHand()
    {
        if (!tytest::fashionMnistAvailable())
            TY_SKIP_WITHOUT_DATA("dataset-fashion-mnist is not installed");
        Preset preset = bundled(QStringLiteral("image-folder-cnn"));
        Node *data = preset.graph.node(QStringLiteral("data"));
        data->block = QStringLiteral("dataset.fashion_mnist");  // the same ports: images, labels
        data->params = QJsonObject{{QStringLiteral("val_count"), 5000}};
        const ShapeReport report = inspectedPreset(preset);
        QVERIFY(report.ok());
        QCOMPARE(costOf(report, "conv1").forwardMacs, qint64(25088) * 9);   // 225,792
        QCOMPARE(costOf(report, "conv2").forwardMacs, qint64(12544) * 288); // 3,612,672
        QCOMPARE(costOf(report, "fc1").forwardMacs, qint64(3136) * 128);    // 401,408
        QCOMPARE(costOf(report, "fc2").forwardMacs, qint64(128) * 10);      // 1,280
        QCOMPARE(report.cost.forwardMacs, qint64(225792 + 3612672 + 401408 + 1280));  // 4,241,152
        // Fields: conv1 (3, 1), pool1 (3 + 1, 2) = (4, 2), conv2 (4 + 2*2, 2) = (8, 2), pool2 (8 + 1*2, 4) = (10, 4).
        QCOMPARE(costOf(report, "pool2").receptiveField.size, field(10, 4).size);
        QCOMPARE(costOf(report, "pool2").receptiveField.stride, field(10, 4).stride);
    }

    void fashionMnistResnetByHand()
    {
        if (!tytest::fashionMnistAvailable())
            TY_SKIP_WITHOUT_DATA("dataset-fashion-mnist is not installed");
        const ShapeReport report = inspectedPreset(bundled(QStringLiteral("fashion-mnist-resnet")));
        QVERIFY(report.ok());
        // stem (conv_bn, width 32): 3x3, 1 -> 32 at 28x28: 28*28*32 = 25,088 outputs of 3*3*1 = 9 products.
        QCOMPARE(costOf(report, "stem/conv").forwardMacs, qint64(28 * 28 * 32) * (3 * 3 * 1));  // 225,792
        QCOMPARE(costOf(report, "stem/bn").forwardMacs, qint64(0));
        QCOMPARE(costOf(report, "stem").forwardMacs, qint64(225792));
        // The 2x2 pool gives 14x14. stage1 (residual unit, width 32): two 3x3 convs 32 -> 32 at 14x14, each
        // 14*14*32 = 6,272 outputs of 3*3*32 = 288 products.
        QCOMPARE(costOf(report, "stage1/conv1/conv").forwardMacs, qint64(14 * 14 * 32) * (3 * 3 * 32));  // 1,806,336
        QCOMPARE(costOf(report, "stage1").forwardMacs, qint64(2) * 1806336);                           // 3,612,672
        // stage2 (residual_down, width 64), 7x7 out: conv1 3x3/2 32 -> 64: 7*7*64 = 3,136 outputs of 3*3*32 = 288;
        // conv2 3x3 64 -> 64: 3,136 of 3*3*64 = 576; the shortcut 1x1/2 32 -> 64: 3,136 of 1*1*32 = 32.
        QCOMPARE(costOf(report, "stage2/conv1/conv").forwardMacs, qint64(3136) * 288);  // 903,168
        QCOMPARE(costOf(report, "stage2/conv2/conv").forwardMacs, qint64(3136) * 576);  // 1,806,336
        QCOMPARE(costOf(report, "stage2/shortcut/conv").forwardMacs, qint64(3136) * 32); // 100,352
        QCOMPARE(costOf(report, "stage2/shortcut").forwardMacs, qint64(100352));
        QCOMPARE(costOf(report, "stage2").forwardMacs, qint64(903168 + 1806336 + 100352));  // 2,809,856
        QCOMPARE(costOf(report, "stage2").trainingStepMacs, qint64(3) * 128 * 2809856);
        // fc: 64 -> 10 after the global average pool.
        QCOMPARE(costOf(report, "fc").forwardMacs, qint64(640));
        // 225,792 + 3,612,672 + 2,809,856 + 640 = 6,648,960 a sample; x 3 x 128 a training step.
        QCOMPARE(report.cost.forwardMacs, qint64(6648960));
        QCOMPARE(report.cost.trainingStepMacs, qint64(3) * 128 * 6648960);  // 2,553,200,640

        // Receptive field: stem 3x3 -> (3, 1); pool 2x2/2 -> (3 + 1*1, 2) = (4, 2); stage1's convs 3x3 ->
        // (4 + 2*2, 2) = (8, 2), then (8 + 2*2, 2) = (12, 2); its add joins (12, 2) with the input's (4, 2): the
        // larger, (12, 2). stage2: conv1 3x3/2 -> (12 + 2*2, 4) = (16, 4), conv2 -> (16 + 2*4, 4) = (24, 4), the
        // shortcut 1x1/2 -> (12, 4); joined: (24, 4). The global pool is one 7x7 window: (24 + 6*4, 4*7) = (48, 28).
        QCOMPARE(costOf(report, "stem").receptiveField.size, field(3, 1).size);
        QVERIFY(costOf(report, "stem").window);  // a composite holding a convolution
        QCOMPARE(costOf(report, "pool").receptiveField.size, field(4, 2).size);
        QCOMPARE(costOf(report, "stage1/conv1/conv").receptiveField.size, field(8, 2).size);
        QCOMPARE(costOf(report, "stage1").receptiveField.size, field(12, 2).size);
        QCOMPARE(costOf(report, "stage1").receptiveField.stride, field(12, 2).stride);
        QCOMPARE(costOf(report, "stage2/shortcut").receptiveField.size, field(12, 4).size);
        QCOMPARE(costOf(report, "stage2").receptiveField.size, field(24, 4).size);
        QCOMPARE(costOf(report, "stage2").receptiveField.stride, field(24, 4).stride);
        QCOMPARE(costOf(report, "gap").receptiveField.size, field(48, 28).size);
        QCOMPARE(costOf(report, "gap").receptiveField.stride, field(48, 28).stride);
    }

    // Two 3x3 convolutions of stride 1 and a 2x2 pool of stride 2: (3, 1), (3 + 2*1, 1) = (5, 1),
    // (5 + 1*1, 1*2) = (6, 2).
    void knownStackHasItsField()
    {
        const ShapeReport report = inspectedPreset(imageStack({conv("c1", 4, 3), conv("c2", 4, 3), maxPool("pool", 2)}));
        QVERIFY(report.ok());
        QCOMPARE(costOf(report, "c1").receptiveField.size, field(3, 1).size);
        QCOMPARE(costOf(report, "c2").receptiveField.size, field(5, 1).size);
        QCOMPARE(costOf(report, "pool").receptiveField.size, field(6, 2).size);
        QCOMPARE(costOf(report, "pool").receptiveField.stride, field(6, 2).stride);
        QCOMPARE(receptiveFieldText(costOf(report, "pool").receptiveField), QStringLiteral("6x6, stride 2"));
        // c1: 26*26*4 outputs of 3*3*1; c2: 24*24*4 of 3*3*4; fc: 12*12*4 = 576 features -> 4.
        QCOMPARE(report.cost.forwardMacs, qint64(26 * 26 * 4 * 9 + 24 * 24 * 4 * 36 + 576 * 4));
        QCOMPARE(report.cost.trainingStepMacs, qint64(3) * 10 * report.cost.forwardMacs);

        // Strides multiply: a 3x3/2 convolution then a 3x3/2 one: (3, 2), then (3 + 2*2, 4) = (7, 4).
        const ShapeReport strided = inspectedPreset(imageStack({conv("c1", 2, 3, 2), conv("c2", 2, 3, 2)}));
        QCOMPARE(costOf(strided, "c2").receptiveField.size, field(7, 4).size);
        QCOMPARE(costOf(strided, "c2").receptiveField.stride, field(7, 4).stride);
    }

    // Branches joined by add take the larger field: a 5x5 branch (5, 1) and a 1x1 one (1, 1) give (5, 1), and a
    // 3x3 after them (5 + 2, 1) = (7, 1).
    void branchesTakeTheLargerField()
    {
        Preset preset = imageStack({conv("wide", 2, 5, 1, 2), tytest::node(QStringLiteral("add"), QStringLiteral("layer.add")),
                                    conv("after", 2, 3, 1, 1)});
        preset.graph.nodes << conv("narrow", 2, 1);
        preset.graph.edges << tytest::edge(QStringLiteral("data.features"), QStringLiteral("narrow.in"))
                           << tytest::edge(QStringLiteral("narrow.out"), QStringLiteral("add.b"));
        for (Edge &e : preset.graph.edges)
            if (e.to.node == QStringLiteral("add") && e.to.port == QStringLiteral("in"))
                e.to.port = QStringLiteral("a");
        const ShapeReport report = inspectedPreset(preset);
        QVERIFY(report.ok());
        QCOMPARE(costOf(report, "narrow").receptiveField.size, field(1, 1).size);
        QCOMPARE(costOf(report, "add").receptiveField.size, field(5, 1).size);
        QVERIFY(!costOf(report, "add").window);
        QCOMPARE(costOf(report, "after").receptiveField.size, field(7, 1).size);
    }

    void otherBlocksRules_data()
    {
        QTest::addColumn<QString>("block");
        QTest::addColumn<QJsonObject>("params");
        QTest::addColumn<SampleShape>("in");
        QTest::addColumn<double>("macs");
        // Linear over the last dimension: 5 rows of 8 -> 3.
        QTest::newRow("linear per row") << "layer.linear" << QJsonObject{{"out_features", 3}} << SampleShape{5, 8} << 5.0 * 8 * 3;
        // Conv 1D: 4 -> 6 channels, kernel 3 over 10 steps: 8 outputs a channel, 6*8 of 3*4 products.
        QTest::newRow("conv1d") << "layer.conv1d" << QJsonObject{{"out_channels", 6}, {"kernel_size", 3}} << SampleShape{4, 10}
                                << 6.0 * 8 * 3 * 4;
        // Transposed 3x3/2: every one of the 2*5*5 input values into a 3x3 window of each of 4 channels.
        QTest::newRow("conv transpose") << "layer.conv_transpose2d"
                                        << QJsonObject{{"out_channels", 4}, {"kernel_size", 3}, {"stride", 2}} << SampleShape{2, 5, 5}
                                        << 2.0 * 5 * 5 * 4 * 3 * 3;
        // LSTM of hidden 3 over 4 steps of 2 features: 4 gates x 3 x (2 + 3) = 60 a step.
        QTest::newRow("lstm") << "layer.lstm" << QJsonObject{{"hidden_size", 3}} << SampleShape{4, 2} << 4.0 * 4 * 3 * (2 + 3);
        // Two bidirectional GRU layers of hidden 3: layer 1 2 x 3 x 3 x (2 + 3) = 90, layer 2 2 x 3 x 3 x (6 + 3) = 162.
        QTest::newRow("gru 2 layers both ways") << "layer.gru" << QJsonObject{{"hidden_size", 3}, {"num_layers", 2}, {"bidirectional", true}}
                                                << SampleShape{4, 2} << 4.0 * (90 + 162);
        // Self-attention over 6 steps of 8 features: projections 4*6*8*8 = 1,536, scores and values 2*6*6*8 = 576.
        QTest::newRow("self-attention") << "layer.self_attention" << QJsonObject{{"heads", 2}} << SampleShape{6, 8} << 1536.0 + 576;
        // The encoder adds its feed-forward network 8 -> 16 -> 8 per step: 2*6*8*16 = 1,536.
        QTest::newRow("transformer encoder") << "layer.transformer_encoder" << QJsonObject{{"heads", 2}, {"ff_dim", 16}}
                                             << SampleShape{6, 8} << 1536.0 + 576 + 1536;
        // Depthwise 3x3 over 8 channels of 6x6 (padding 1): 8*6*6 outputs of 3*3*1 products; grouped 4 -> 6 in 2 groups
        // over 5x5: 6*3*3 outputs of 3*3*2.
        QTest::newRow("depthwise conv") << "layer.conv2d" << QJsonObject{{"out_channels", 8}, {"groups", 8}, {"padding", 1}} << SampleShape{8, 6, 6}
                                        << 8.0 * 6 * 6 * 3 * 3 * 1;
        QTest::newRow("grouped conv") << "layer.conv2d" << QJsonObject{{"out_channels", 6}, {"groups", 2}} << SampleShape{4, 5, 5} << 6.0 * 3 * 3 * 3 * 3 * 2;
        QTest::newRow("relu6") << "layer.relu6" << QJsonObject{} << SampleShape{3, 4, 4} << 0.0;
        QTest::newRow("embedding") << "layer.embedding" << QJsonObject{{"num_embeddings", 30}, {"dim", 4}} << SampleShape{7} << 0.0;
        QTest::newRow("batch norm") << "layer.batchnorm2d" << QJsonObject{} << SampleShape{3, 4, 4} << 0.0;
        QTest::newRow("upsample") << "layer.upsample" << QJsonObject{{"scale", 2}} << SampleShape{3, 4, 4} << 0.0;
    }

    void otherBlocksRules()
    {
        QFETCH(QString, block);
        QFETCH(QJsonObject, params);
        QFETCH(SampleShape, in);
        QFETCH(double, macs);
        QCOMPARE(ruleCost(qPrintable(block), params, in).macs, macs);
    }

    // torch's adaptive windows over 7 positions into 3: [0, 3), [2, 5), [4, 7): 3 wide, starts 2 apart, taken as
    // ceil(7 / 3) = 3; over 8 into 4: windows of 2, 2 apart.
    void adaptivePoolWindows()
    {
        const OpCost cost = ruleCost("layer.adaptive_avgpool2d", {{QStringLiteral("output_height"), 3}, {QStringLiteral("output_width"), 4}},
                                     {1, 7, 8});
        QCOMPARE(cost.field.kind, FieldStep::Window);
        QCOMPARE(cost.field.kernel, (std::vector<int64_t>{3, 2}));
        QCOMPARE(cost.field.stride, (std::vector<int64_t>{3, 2}));
        QCOMPARE(ruleCost("layer.global_avgpool", {}, {2, 5, 6}).field.kernel, (std::vector<int64_t>{5, 6}));
        QCOMPARE(ruleCost("layer.flatten", {}, {2, 5, 6}).field.kind, FieldStep::End);
        QCOMPARE(ruleCost("layer.relu", {}, {2, 5, 6}).field.kind, FieldStep::Keep);
    }

    void countsAreWrittenCompactly()
    {
        QCOMPARE(macCountText(0), QStringLiteral("0"));
        QCOMPARE(macCountText(640), QStringLiteral("640"));
        QCOMPARE(macCountText(10240), QStringLiteral("10.2k"));
        QCOMPARE(macCountText(627200), QStringLiteral("627k"));
        QCOMPARE(macCountText(999999), QStringLiteral("1.00M"));
        QCOMPARE(macCountText(10035200), QStringLiteral("10.0M"));
        QCOMPARE(macCountText(5331419136), QStringLiteral("5.33G"));
        QCOMPARE(receptiveFieldText(ReceptiveField{{9}, {1}}), QStringLiteral("9, stride 1"));
        QCOMPARE(receptiveFieldText(ReceptiveField{{6, 10}, {2, 4}}), QStringLiteral("6x10, stride 2x4"));
        QCOMPARE(receptiveFieldText(ReceptiveField()), QString());
    }
};

TY_TEST_CLASS(TestCostEstimate)

#include "test_cost_estimate.moc"
