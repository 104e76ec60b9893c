// The torch-free shape rules (core/shapes) against the builders that train: for every transform and layer
// block, over a grid of parameters and input shapes, an input the rules accept must run through the built op
// with exactly the output shape and parameter count the rules give.

#include "block_registry.h"
#include "detail/block_ops.h"
#include "test_engine_classes.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace ty;

namespace {

// Values to try for one parameter: its default and a few values around it, within its range.
QList<QJsonValue> candidates(const ParamSpec &spec)
{
    switch (spec.type) {
    case ParamType::Int: {
        QList<QJsonValue> values{spec.defaultValue};
        for (double v : {spec.minimum, 1.0, 2.0, 3.0})
            if (v >= spec.minimum && v <= spec.maximum && !values.contains(QJsonValue(v)))
                values << QJsonValue(v);
        return values;
    }
    case ParamType::Bool:
        return {QJsonValue(true), QJsonValue(false)};
    case ParamType::FloatList:
        return {spec.defaultValue, QJsonArray{0.5, 0.5, 0.5}};
    default:
        return {spec.defaultValue};
    }
}

// Every combination of the candidates of every parameter.
QList<QJsonObject> parameterGrid(const BlockDescriptor &block)
{
    QList<QJsonObject> grid{QJsonObject{}};
    for (const ParamSpec &spec : block.params) {
        QList<QJsonObject> next;
        for (const QJsonObject &partial : grid)
            for (const QJsonValue &value : candidates(spec)) {
                QJsonObject params = partial;
                params.insert(spec.name, value);
                next << params;
            }
        grid = next;
    }
    return grid;
}

std::vector<std::vector<SampleShape>> inputGrid(const BlockDescriptor &block)
{
    const std::vector<SampleShape> samples{{8}, {3, 5}, {2, 9, 9}, {3, 16, 12}, {1, 28, 28}, {3, 2, 2}};
    std::vector<std::vector<SampleShape>> grid;
    for (const SampleShape &s : samples) {
        if (block.inputs.size() == 1) {
            grid.push_back({s});
            continue;
        }
        grid.push_back({s, s});
        if (block.inputs.size() > 2)
            grid.push_back({s, s, s});  // add and concat take up to eight
        for (size_t dim = 0; dim < s.size(); ++dim) {
            SampleShape wider = s;
            ++wider[dim];
            grid.push_back({s, wider});
        }
    }
    return grid;
}

} // namespace

void TestShapeRules::rulesMatchTheBuiltOps()
{
    int blocks = 0;
    for (const BlockDescriptor &block : BlockRegistry::builtin().all()) {
        if (block.category != BlockCategory::Transform && block.category != BlockCategory::Layer)
            continue;
        ++blocks;
        int accepted = 0;
        for (const QJsonObject &explicitParams : parameterGrid(block))
            for (const std::vector<SampleShape> &inputs : inputGrid(block)) {
                const QJsonObject params = block.effectiveParams(explicitParams);
                const Result<OpShape> shape = inferOpShape(block.typeId, QStringLiteral("n"), params, inputs);
                if (!shape)
                    continue;
                ++accepted;
                const QString what = QStringLiteral("%1 %2 on %3").arg(block.typeId, QString::fromUtf8(QJsonDocument(params).toJson(QJsonDocument::Compact)),
                                                                        shapeText(inputs[0]));
                Result<ty::detail::BuiltOp> op = ty::detail::buildOp(PlannedOp{QStringLiteral("n"), block.typeId, params, {}, inputs, shape.value()});
                QVERIFY2(op.ok(), qPrintable(what));
                std::vector<torch::Tensor> batch;
                for (const SampleShape &s : inputs) {
                    SampleShape batched{2};
                    batched.insert(batched.end(), s.begin(), s.end());
                    batch.push_back(torch::rand(batched));
                }
                int64_t params_ = 0;
                if (op.value().module)
                    for (const torch::Tensor &p : op.value().module->parameters())
                        params_ += p.numel();
                QVERIFY2(params_ == shape.value().params, qPrintable(what + QStringLiteral(": %1 parameters").arg(params_)));
                for (bool training : {false, true}) {
                    torch::NoGradGuard noGrad;
                    if (op.value().module)
                        op.value().module->train(training);
                    torch::Tensor out;
                    try {
                        out = op.value().forward(batch, training);
                    } catch (const std::exception &e) {
                        QFAIL(qPrintable(what + QStringLiteral(": ") + QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0)));
                    }
                    const SampleShape built(out.sizes().begin() + 1, out.sizes().end());
                    QVERIFY2(out.size(0) == 2 && built == shape.value().output,
                             qPrintable(what + QStringLiteral(": rules %1, built %2").arg(shapeText(shape.value().output), shapeText(built))));
                }
            }
        QVERIFY2(accepted > 0, qPrintable(block.typeId + QStringLiteral(": no input of the grid was accepted")));
    }
    QVERIFY(blocks >= 20);
}

void TestShapeRules::rejectedInputsNameTheCulprit_data()
{
    QTest::addColumn<QString>("block");
    QTest::addColumn<QJsonObject>("params");
    QTest::addColumn<QList<qint64>>("input");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("message");
    using L = QList<qint64>;
    QTest::newRow("conv on features") << "layer.conv2d" << QJsonObject{} << L{8} << "in" << "expects [channels, height, width] samples, got [8]";
    QTest::newRow("kernel too large") << "layer.conv2d" << QJsonObject{{"kernel_size", 7}} << L{1, 5, 5} << "kernel_size" << "kernel 7 is larger than the padded input [1, 5, 5]";
    QTest::newRow("pool padding") << "layer.maxpool2d" << QJsonObject{{"kernel_size", 2}, {"padding", 2}} << L{1, 8, 8} << "padding" << "padding 2 is more than half the kernel size 2";
    QTest::newRow("normalize channels") << "transform.normalize" << QJsonObject{{"mean", QJsonArray{0.1, 0.2}}} << L{3, 4, 4} << "mean" << "needs 1 or 3 values";
    QTest::newRow("zero std") << "transform.normalize" << QJsonObject{{"std", QJsonArray{0.0}}} << L{3, 4, 4} << "std" << "divide by zero";
    QTest::newRow("batchnorm2d on features") << "layer.batchnorm2d" << QJsonObject{} << L{16} << "in" << "expects [channels, height, width] samples, got [16]";
}

void TestShapeRules::rejectedInputsNameTheCulprit()
{
    QFETCH(QString, block);
    QFETCH(QJsonObject, params);
    QFETCH(QList<qint64>, input);
    QFETCH(QString, field);
    QFETCH(QString, message);
    const BlockDescriptor *descriptor = BlockRegistry::builtin().find(block);
    QVERIFY(descriptor);
    const Result<OpShape> shape = inferOpShape(block, QStringLiteral("node7"), descriptor->effectiveParams(params),
                                               {SampleShape(input.begin(), input.end())});
    QVERIFY(!shape.ok());
    QCOMPARE(shape.error().node, QStringLiteral("node7"));
    QCOMPARE(shape.error().field, field);
    QVERIFY2(shape.error().message.contains(message), qPrintable(shape.error().message));
}
