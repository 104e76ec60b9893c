// Shape rules of layers whose parameters shape their output: reshape (a -1 resolved, every bad shape refused
// naming the node and field), conv 1D (length arithmetic and parameter count) and layer norm (a scale and a shift
// per value of the last dimension), and the sequence blocks (embedding, LSTM, GRU: outputs and parameter
// counts), the image layers (transposed convolution, upsampling, adaptive pooling, group norm, channel
// dropout), the dimension blocks (permute, squeeze, unsqueeze, positional embedding) and attention. The engine's
// grid test checks the same rules against the built modules. A node whose parameter value validation refused is
// left unshaped instead of running its rule with that value.

#include "test_suite.h"
#include "core_test_support.h"

#include "block_registry.h"
#include "block_shapes.h"
#include "preset_inspection.h"

#include <QJsonArray>
#include <QtTest>

using namespace ty;

namespace {

Result<OpShape> shapeOf(const char *block, QJsonObject params, const SampleShape &in)
{
    const QString type = QString::fromLatin1(block);
    return inferOpShape(type, QStringLiteral("n"), BlockRegistry::builtin().find(type)->effectiveParams(params), {in});
}

} // namespace

class TestLayerShapes : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void reshapeResolvesMinusOne_data()
    {
        QTest::addColumn<QJsonArray>("shape");
        QTest::addColumn<SampleShape>("in");
        QTest::addColumn<SampleShape>("out");
        QTest::newRow("flat to image") << QJsonArray{1, 28, 28} << SampleShape{784} << SampleShape{1, 28, 28};
        QTest::newRow("-1 first") << QJsonArray{-1, 7} << SampleShape{2, 7, 2} << SampleShape{4, 7};
        QTest::newRow("-1 alone flattens") << QJsonArray{-1} << SampleShape{3, 4, 5} << SampleShape{60};
        QTest::newRow("-1 of one") << QJsonArray{12, -1} << SampleShape{3, 4} << SampleShape{12, 1};
    }

    void reshapeResolvesMinusOne()
    {
        QFETCH(QJsonArray, shape);
        QFETCH(SampleShape, in);
        QFETCH(SampleShape, out);
        const Result<OpShape> s = shapeOf("layer.reshape", {{QStringLiteral("shape"), shape}}, in);
        QVERIFY2(s.ok(), qPrintable(s.ok() ? QString() : s.error().toString()));
        QCOMPARE(s.value().output, out);
        QCOMPARE(s.value().params, 0);
    }

    void reshapeRefusesWhatCannotBe_data()
    {
        QTest::addColumn<QJsonArray>("shape");
        QTest::addColumn<QString>("message");
        QTest::newRow("wrong size") << QJsonArray{5, 5} << "cannot give the 24 values of a [2, 3, 4] sample the shape [5, 5]";
        QTest::newRow("no whole split") << QJsonArray{5, -1} << "cannot give the 24 values";
        QTest::newRow("two unknowns") << QJsonArray{-1, -1} << "only one dimension may be -1";
        QTest::newRow("zero") << QJsonArray{0, 24} << "whole numbers of at least 1, or -1";
        QTest::newRow("fraction") << QJsonArray{2.5, 2} << "whole numbers of at least 1, or -1";
        QTest::newRow("empty") << QJsonArray{} << "needs at least one dimension";
    }

    void reshapeRefusesWhatCannotBe()
    {
        QFETCH(QJsonArray, shape);
        QFETCH(QString, message);
        const Result<OpShape> s = shapeOf("layer.reshape", {{QStringLiteral("shape"), shape}}, {2, 3, 4});
        QVERIFY(!s.ok());
        QCOMPARE(s.error().node, QStringLiteral("n"));
        QCOMPARE(s.error().field, QStringLiteral("shape"));
        QVERIFY2(s.error().message.contains(message), qPrintable(s.error().message));
    }

    void conv1dAndLayerNorm()
    {
        const Result<OpShape> conv = shapeOf("layer.conv1d", {{QStringLiteral("out_channels"), 8}, {QStringLiteral("kernel_size"), 5},
                                                              {QStringLiteral("stride"), 2}, {QStringLiteral("padding"), 1}}, {3, 20});
        QVERIFY(conv.ok());
        QCOMPARE(conv.value().output, (SampleShape{8, 9}));  // (20 + 2 - 5) / 2 + 1
        QCOMPARE(conv.value().params, 8 * 3 * 5 + 8);
        const Result<OpShape> image = shapeOf("layer.conv1d", {}, {1, 28, 28});
        QVERIFY(!image.ok());
        QVERIFY(image.error().message.contains(QStringLiteral("expects [channels, length] samples")));
        const Result<OpShape> norm = shapeOf("layer.layer_norm", {}, {10, 32});
        QVERIFY(norm.ok());
        QCOMPARE(norm.value().output, (SampleShape{10, 32}));
        QCOMPARE(norm.value().params, 64);
    }

    // Parameter counts as PyTorch's nn.Embedding, nn.LSTM and nn.GRU report them (sum of p.numel()).
    void sequenceBlocks_data()
    {
        QTest::addColumn<QString>("block");
        QTest::addColumn<QJsonObject>("params");
        QTest::addColumn<SampleShape>("in");
        QTest::addColumn<SampleShape>("out");
        QTest::addColumn<qint64>("count");
        QTest::newRow("embedding") << "layer.embedding" << QJsonObject{{"num_embeddings", 72}, {"dim", 16}} << SampleShape{32}
                                   << SampleShape{32, 16} << qint64(72 * 16);
        QTest::newRow("lstm last") << "layer.lstm" << QJsonObject{{"hidden_size", 64}} << SampleShape{32, 16} << SampleShape{64}
                                   << qint64(4 * 64 * 16 + 4 * 64 * 64 + 2 * 4 * 64);
        QTest::newRow("lstm sequence, 2 layers, both ways")
            << "layer.lstm" << QJsonObject{{"hidden_size", 8}, {"num_layers", 2}, {"bidirectional", true}, {"output", "sequence"}}
            << SampleShape{5, 3} << SampleShape{5, 16} << qint64(2 * (4 * 8 * 3 + 4 * 8 * 8 + 64) + 2 * (4 * 8 * 16 + 4 * 8 * 8 + 64));
        QTest::newRow("gru last, both ways") << "layer.gru" << QJsonObject{{"hidden_size", 10}, {"bidirectional", true}} << SampleShape{7, 4}
                                             << SampleShape{20} << qint64(2 * (3 * 10 * 4 + 3 * 10 * 10 + 2 * 3 * 10));
    }

    void sequenceBlocks() { checkFetchedShape(); }

    void imageAndDimensionBlocks_data()
    {
        QTest::addColumn<QString>("block");
        QTest::addColumn<QJsonObject>("params");
        QTest::addColumn<SampleShape>("in");
        QTest::addColumn<SampleShape>("out");
        QTest::addColumn<qint64>("count");
        QTest::newRow("transposed conv doubles") << "layer.conv_transpose2d" << QJsonObject{{"out_channels", 4}} << SampleShape{3, 7, 5}
                                                 << SampleShape{4, 14, 10} << qint64(3 * 4 * 2 * 2 + 4);
        QTest::newRow("transposed conv padded") << "layer.conv_transpose2d"
                                                << QJsonObject{{"out_channels", 2}, {"kernel_size", 3}, {"padding", 1}, {"output_padding", 1}, {"bias", false}}
                                                << SampleShape{1, 4, 4} << SampleShape{2, 8, 8} << qint64(1 * 2 * 3 * 3);
        // Depthwise: one 3x3 filter per channel, 8 * 1 * 3 * 3 weights and 8 biases; grouped: 6 filters over 4 / 2 channels.
        QTest::newRow("depthwise conv") << "layer.conv2d" << QJsonObject{{"out_channels", 8}, {"groups", 8}, {"padding", 1}} << SampleShape{8, 5, 5}
                                        << SampleShape{8, 5, 5} << qint64(8 * 1 * 3 * 3 + 8);
        QTest::newRow("grouped conv") << "layer.conv2d" << QJsonObject{{"out_channels", 6}, {"groups", 2}, {"bias", false}} << SampleShape{4, 5, 5}
                                      << SampleShape{6, 3, 3} << qint64(6 * 2 * 3 * 3);
        QTest::newRow("relu6") << "layer.relu6" << QJsonObject{} << SampleShape{3, 4, 4} << SampleShape{3, 4, 4} << qint64(0);
        QTest::newRow("upsample") << "layer.upsample" << QJsonObject{{"scale", 3}} << SampleShape{2, 4, 5} << SampleShape{2, 12, 15} << qint64(0);
        QTest::newRow("adaptive pool") << "layer.adaptive_avgpool2d" << QJsonObject{{"output_height", 3}, {"output_width", 2}} << SampleShape{8, 7, 9}
                                       << SampleShape{8, 3, 2} << qint64(0);
        QTest::newRow("group norm") << "layer.group_norm" << QJsonObject{{"groups", 4}} << SampleShape{8, 5, 5} << SampleShape{8, 5, 5} << qint64(16);
        QTest::newRow("group norm on sequences") << "layer.group_norm" << QJsonObject{{"groups", 2}} << SampleShape{6, 10} << SampleShape{6, 10} << qint64(12);
        QTest::newRow("dropout 2d") << "layer.dropout2d" << QJsonObject{} << SampleShape{3, 4, 4} << SampleShape{3, 4, 4} << qint64(0);
        QTest::newRow("permute") << "layer.permute" << QJsonObject{{"dims", QJsonArray{2, 0, 1}}} << SampleShape{3, 4, 5} << SampleShape{5, 3, 4} << qint64(0);
        QTest::newRow("squeeze") << "layer.squeeze" << QJsonObject{{"dim", 1}} << SampleShape{4, 1, 6} << SampleShape{4, 6} << qint64(0);
        QTest::newRow("unsqueeze at the end") << "layer.unsqueeze" << QJsonObject{{"dim", 1}} << SampleShape{784} << SampleShape{784, 1} << qint64(0);
        QTest::newRow("self-attention") << "layer.self_attention" << QJsonObject{{"heads", 2}} << SampleShape{12, 8} << SampleShape{12, 8}
                                        << qint64(4 * 8 * 8 + 4 * 8);
        QTest::newRow("transformer encoder") << "layer.transformer_encoder" << QJsonObject{{"heads", 2}, {"ff_dim", 32}} << SampleShape{12, 8}
                                             << SampleShape{12, 8} << qint64((4 * 8 * 8 + 4 * 8) + (8 * 32 + 32) + (32 * 8 + 8) + 4 * 8);
        QTest::newRow("positional embedding") << "layer.positional_embedding" << QJsonObject{} << SampleShape{16, 32} << SampleShape{16, 32} << qint64(512);
    }

    void imageAndDimensionBlocks() { checkFetchedShape(); }

    void imageAndDimensionBlocksRefuse_data()
    {
        QTest::addColumn<QString>("block");
        QTest::addColumn<QJsonObject>("params");
        QTest::addColumn<SampleShape>("in");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("message");
        QTest::newRow("output padding") << "layer.conv_transpose2d" << QJsonObject{{"output_padding", 2}} << SampleShape{1, 4, 4} << "output_padding"
                                        << "output_padding 2 must be smaller than the stride 2";
        QTest::newRow("conv groups of inputs") << "layer.conv2d" << QJsonObject{{"out_channels", 6}, {"groups", 3}} << SampleShape{4, 5, 5} << "groups"
                                               << "groups 3 must divide both the 4 input channels and the 6 output channels";
        QTest::newRow("conv groups of outputs") << "layer.conv2d" << QJsonObject{{"out_channels", 5}, {"groups", 2}} << SampleShape{4, 5, 5} << "groups"
                                                << "groups 2 must divide both the 4 input channels and the 5 output channels";
        QTest::newRow("upsample features") << "layer.upsample" << QJsonObject{} << SampleShape{8} << "in" << "expects [channels, height, width] samples, got [8]";
        QTest::newRow("pool larger") << "layer.adaptive_avgpool2d" << QJsonObject{{"output_height", 9}} << SampleShape{1, 8, 8} << "output_height"
                                     << "output 9 x 1 is larger than the input [1, 8, 8]";
        QTest::newRow("groups") << "layer.group_norm" << QJsonObject{{"groups", 3}} << SampleShape{8, 4, 4} << "groups" << "8 channels do not divide into 3 groups";
        QTest::newRow("permute short") << "layer.permute" << QJsonObject{{"dims", QJsonArray{1, 0}}} << SampleShape{3, 4, 5} << "dims"
                                       << "lists 2 dimensions for a [3, 4, 5] sample of 3";
        QTest::newRow("permute twice") << "layer.permute" << QJsonObject{{"dims", QJsonArray{0, 0}}} << SampleShape{3, 4} << "dims"
                                       << "must list each of the dimensions 0 to 1 once";
        QTest::newRow("squeeze size") << "layer.squeeze" << QJsonObject{{"dim", 0}} << SampleShape{3, 4} << "dim" << "dimension 0 of a [3, 4] sample is not of size 1";
        QTest::newRow("squeeze last") << "layer.squeeze" << QJsonObject{{"dim", 0}} << SampleShape{1} << "dim" << "would leave a sample without dimensions";
        QTest::newRow("unsqueeze past") << "layer.unsqueeze" << QJsonObject{{"dim", 3}} << SampleShape{3, 4} << "dim" << "has no position 3";
        QTest::newRow("heads") << "layer.self_attention" << QJsonObject{{"heads", 3}} << SampleShape{12, 8} << "heads"
                               << "8 features do not divide into 3 heads";
        QTest::newRow("attention on features") << "layer.transformer_encoder" << QJsonObject{} << SampleShape{64} << "in"
                                               << "expects [steps, features] samples, got [64]";
        QTest::newRow("positions of images") << "layer.positional_embedding" << QJsonObject{} << SampleShape{1, 28, 28} << "in"
                                             << "expects [steps, features] samples, got [1, 28, 28]";
    }

    void imageAndDimensionBlocksRefuse()
    {
        QFETCH(QString, block);
        QFETCH(QJsonObject, params);
        QFETCH(SampleShape, in);
        QFETCH(QString, field);
        QFETCH(QString, message);
        const Result<OpShape> s = shapeOf(qPrintable(block), params, in);
        QVERIFY(!s.ok());
        QCOMPARE(s.error().node, QStringLiteral("n"));
        QCOMPARE(s.error().field, field);
        QVERIFY2(s.error().message.contains(message), qPrintable(s.error().message));
    }

    // Found by fuzz_preset: a pool with kernel_size 0 passed its refused value to the window arithmetic, which
    // divided by zero (SIGFPE in `validate` and in the editor).
    void refusedParameterValuesAreNotShaped_data()
    {
        QTest::addColumn<QString>("block");
        QTest::addColumn<QString>("param");
        QTest::addColumn<QJsonValue>("good");
        QTest::addColumn<QJsonValue>("bad");
        QTest::newRow("max pool kernel 0") << "layer.maxpool2d" << "kernel_size" << QJsonValue(2) << QJsonValue(0);
        QTest::newRow("avg pool kernel -3") << "layer.avgpool2d" << "kernel_size" << QJsonValue(2) << QJsonValue(-3);
        QTest::newRow("conv kernel 0") << "layer.conv2d" << "kernel_size" << QJsonValue(3) << QJsonValue(0);
        QTest::newRow("linear beyond int64") << "layer.linear" << "out_features" << QJsonValue(4) << QJsonValue(1e300);
        QTest::newRow("linear as text") << "layer.linear" << "out_features" << QJsonValue(4) << QJsonValue(QStringLiteral("4"));
    }

    void refusedParameterValuesAreNotShaped()
    {
        QFETCH(QString, block);
        QFETCH(QString, param);
        QFETCH(QJsonValue, good);
        QFETCH(QJsonValue, bad);
        using tytest::node;
        const auto preset = [&](const QJsonValue &value) {
            Preset p;
            p.graph = tytest::graph(
                {node(QStringLiteral("data"), QStringLiteral("dataset.synthetic"),
                      {{QStringLiteral("kind"), QStringLiteral("images")}, {QStringLiteral("features"), 8}}),
                 node(QStringLiteral("n"), block, {{param, value}}), node(QStringLiteral("flat"), QStringLiteral("layer.flatten")),
                 node(QStringLiteral("fc"), QStringLiteral("layer.linear"), {{QStringLiteral("out_features"), 4}}),
                 node(QStringLiteral("loss"), QStringLiteral("loss.cross_entropy")), node(QStringLiteral("opt"), QStringLiteral("optimizer.sgd"))},
                {{"data.features", "n.in"}, {"n.out", "flat.in"}, {"flat.out", "fc.in"}, {"fc.out", "loss.input"},
                 {"data.target", "loss.target"}, {"loss.loss", "opt.loss"}});
            return p;
        };
        const ShapeReport fine = inspectPresetShapes(preset(good));
        QVERIFY2(fine.ok(), qPrintable(tytest::dump(fine.issues)));
        QVERIFY(fine.nodes.value(QStringLiteral("n")).known);
        QVERIFY(fine.nodes.value(QStringLiteral("fc")).known);

        const ShapeReport refused = inspectPresetShapes(preset(bad));
        const Issues errors = tytest::errorsOf(refused.issues);
        QCOMPARE(errors.size(), 1);
        QCOMPARE(errors.first().node, QStringLiteral("n"));
        QCOMPARE(errors.first().param, param);
        QVERIFY(!refused.nodes.value(QStringLiteral("n")).known);
        QVERIFY(!refused.nodes.value(QStringLiteral("fc")).known);
        QCOMPARE(refused.totalParams, 0);
    }

    void sequenceBlocksRefuseOtherShapes()
    {
        const Result<OpShape> table = shapeOf("layer.embedding", {}, {4, 8});
        QVERIFY(!table.ok());
        QCOMPARE(table.error().field, QStringLiteral("in"));
        QVERIFY2(table.error().message.contains(QStringLiteral("expects [length] samples of ids, got [4, 8]")), qPrintable(table.error().message));
        for (const char *recurrent : {"layer.lstm", "layer.gru"}) {
            const Result<OpShape> flat = shapeOf(recurrent, {}, {32});
            QVERIFY(!flat.ok());
            QVERIFY2(flat.error().message.contains(QStringLiteral("expects [steps, features] samples, got [32]")), qPrintable(flat.error().message));
        }
    }

private:
    // The rule of the current data row's block on its input: the output and parameter count of the row.
    void checkFetchedShape()
    {
        QFETCH(QString, block);
        QFETCH(QJsonObject, params);
        QFETCH(SampleShape, in);
        QFETCH(SampleShape, out);
        QFETCH(qint64, count);
        const Result<OpShape> s = shapeOf(qPrintable(block), params, in);
        QVERIFY2(s.ok(), qPrintable(s.ok() ? QString() : s.error().toString()));
        QCOMPARE(s.value().output, out);
        QCOMPARE(qint64(s.value().params), count);
    }
};

TY_TEST_CLASS(TestLayerShapes)

#include "test_layer_shapes.moc"
