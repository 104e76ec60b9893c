// Shape rules of layers whose parameters shape their output: reshape (a -1 resolved, every bad shape refused
// naming the node and field), conv 1D (length arithmetic and parameter count) and layer norm (a scale and a shift
// per value of the last dimension). The engine's grid test checks the same rules against the built modules.

#include "test_suite.h"

#include "block_registry.h"
#include "block_shapes.h"

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
};

TY_TEST_CLASS(TestLayerShapes)

#include "test_layer_shapes.moc"
