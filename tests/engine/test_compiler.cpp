// The graph compiler builds one module whose forward pass equals hand-built LibTorch models.

#include "detail/compiled_pipeline.h"
#include "engine_fixtures.h"
#include "test_engine_classes.h"

#include <QtTest>

using namespace ty;

namespace {

DatasetShape featureData(int64_t features, int64_t classes)
{
    DatasetShape shape;
    shape.sampleShape = {features};
    shape.numClasses = classes;
    return shape;
}

torch::Tensor param(ty::detail::GraphModule &model, const std::string &name)
{
    return model.named_parameters()[name];
}

} // namespace

void TestCompiler::mlpEqualsHandBuiltSequential()
{
    const Preset preset = test::classifierPreset(QStringLiteral("blobs"), QStringLiteral("optimizer.sgd"), 0.1);
    torch::manual_seed(1);
    ty::detail::CompiledPipeline compiled = ty::detail::compilePipeline(preset, featureData(8, 4));
    QVERIFY2(compiled.report.ok(), qPrintable(compiled.report.issues.value(0).toString()));

    torch::nn::Sequential reference(torch::nn::Flatten(), torch::nn::Linear(8, 32), torch::nn::ReLU(), torch::nn::Linear(32, 4));
    {
        torch::NoGradGuard noGrad;
        reference[1]->as<torch::nn::Linear>()->weight.copy_(param(*compiled.model, "fc1.weight"));
        reference[1]->as<torch::nn::Linear>()->bias.copy_(param(*compiled.model, "fc1.bias"));
        reference[3]->as<torch::nn::Linear>()->weight.copy_(param(*compiled.model, "fc_out.weight"));
        reference[3]->as<torch::nn::Linear>()->bias.copy_(param(*compiled.model, "fc_out.bias"));
    }
    const torch::Tensor x = torch::randn({16, 8});
    const torch::Tensor expected = reference->forward(x);
    const torch::Tensor actual = compiled.model->forward(x, compiled.model->slotOf(QStringLiteral("fc_out")));
    QCOMPARE(actual.sizes().vec(), expected.sizes().vec());
    QVERIFY(torch::allclose(actual, expected, 1e-6, 1e-6));
    QCOMPARE(compiled.report.totalParams, qint64(8 * 32 + 32 + 32 * 4 + 4));
}

void TestCompiler::residualCnnEqualsHandBuiltFunctional()
{
    auto node = [](const char *id, const char *block, const QJsonObject &params = {}) {
        return QJsonObject{{QStringLiteral("id"), QString::fromLatin1(id)}, {QStringLiteral("block"), QString::fromLatin1(block)},
                           {QStringLiteral("params"), params}};
    };
    const Preset preset = test::makePreset(
        {node("data", "dataset.synthetic", {{QStringLiteral("kind"), QStringLiteral("images")}}),
         node("conv", "layer.conv2d", {{QStringLiteral("out_channels"), 4}, {QStringLiteral("kernel_size"), 3}, {QStringLiteral("padding"), 1}}),
         node("bn", "layer.batchnorm2d"), node("relu", "layer.relu"),
         node("add", "layer.add"), node("pool", "layer.maxpool2d", {{QStringLiteral("kernel_size"), 2}}),
         node("gap", "layer.global_avgpool"), node("fc", "layer.linear", {{QStringLiteral("out_features"), 3}}),
         node("loss", "loss.cross_entropy"), node("opt", "optimizer.sgd")},
        {QStringLiteral("data.features -> conv.in"), QStringLiteral("conv.out -> bn.in"), QStringLiteral("bn.out -> relu.in"),
         QStringLiteral("relu.out -> add.a"), QStringLiteral("conv.out -> add.b"), QStringLiteral("add.out -> pool.in"),
         QStringLiteral("pool.out -> gap.in"), QStringLiteral("gap.out -> fc.in"), QStringLiteral("fc.out -> loss.input"),
         QStringLiteral("data.target -> loss.target"), QStringLiteral("loss.loss -> opt.loss")});
    DatasetShape images;
    images.sampleShape = {2, 8, 8};
    images.numClasses = 3;
    ty::detail::CompiledPipeline compiled = ty::detail::compilePipeline(preset, images);
    QVERIFY2(compiled.report.ok(), qPrintable(compiled.report.issues.value(0).toString()));
    QCOMPARE(compiled.report.nodes.value(QStringLiteral("pool")).outputShape, (std::vector<qint64>{4, 4, 4}));

    ty::detail::GraphModule &model = *compiled.model;
    model.eval();
    const torch::Tensor x = torch::randn({5, 2, 8, 8});
    // The same network written by hand with the compiled weights.
    const torch::Tensor conv = torch::conv2d(x, param(model, "conv.weight"), param(model, "conv.bias"), 1, 1);
    const torch::Tensor bn = torch::batch_norm(conv, param(model, "bn.weight"), param(model, "bn.bias"),
                                               model.named_buffers()["bn.running_mean"], model.named_buffers()["bn.running_var"],
                                               false, 0.1, 1e-5, false);
    const torch::Tensor pooled = torch::max_pool2d(torch::relu(bn) + conv, {2, 2}, {2, 2});
    const torch::Tensor expected = torch::linear(pooled.mean({2, 3}), param(model, "fc.weight"), param(model, "fc.bias"));
    const torch::Tensor actual = model.forward(x, model.slotOf(QStringLiteral("fc")));
    QVERIFY(torch::allclose(actual, expected, 1e-5, 1e-5));
}

void TestCompiler::transformsOnlyActWhileTraining()
{
    auto node = [](const char *id, const char *block, const QJsonObject &params = {}) {
        return QJsonObject{{QStringLiteral("id"), QString::fromLatin1(id)}, {QStringLiteral("block"), QString::fromLatin1(block)},
                           {QStringLiteral("params"), params}};
    };
    const Preset preset = test::makePreset(
        {node("data", "dataset.synthetic"), node("noise", "transform.gaussian_noise", {{QStringLiteral("std"), 1.0}}),
         node("norm", "transform.normalize", {{QStringLiteral("mean"), QJsonArray{1.0}}, {QStringLiteral("std"), QJsonArray{2.0}}}),
         node("fc", "layer.linear", {{QStringLiteral("out_features"), 4}}), node("loss", "loss.cross_entropy"), node("opt", "optimizer.sgd")},
        {QStringLiteral("data.features -> noise.in"), QStringLiteral("noise.out -> norm.in"), QStringLiteral("norm.out -> fc.in"),
         QStringLiteral("fc.out -> loss.input"), QStringLiteral("data.target -> loss.target"), QStringLiteral("loss.loss -> opt.loss")});
    ty::detail::CompiledPipeline compiled = ty::detail::compilePipeline(preset, featureData(8, 4));
    QVERIFY(compiled.report.ok());
    const torch::Tensor x = torch::randn({64, 8});
    const int norm = compiled.model->slotOf(QStringLiteral("norm"));
    compiled.model->eval();
    QVERIFY(torch::allclose(compiled.model->forward(x, norm), (x - 1.0) / 2.0));
    compiled.model->train();
    const torch::Tensor noisy = compiled.model->forward(x, norm);
    QVERIFY(!torch::allclose(noisy, (x - 1.0) / 2.0));
    // Noise of std 1, halved by the normalisation: about 0.5.
    const double spread = (noisy - (x - 1.0) / 2.0).std().item<double>();
    QVERIFY2(spread > 0.4 && spread < 0.6, qPrintable(QString::number(spread)));
}

void TestCompiler::randomCropKeepsShapeAndContent()
{
    const QJsonObject params{{QStringLiteral("padding"), 2}};
    const Result<OpShape> shape = inferOpShape(QStringLiteral("transform.random_crop"), QStringLiteral("crop"), params, {{1, 6, 6}});
    QVERIFY(shape.ok());
    QCOMPARE(shape.value().output, (SampleShape{1, 6, 6}));
    Result<ty::detail::BuiltOp> op = ty::detail::buildOp(
        PlannedOp{QStringLiteral("crop"), QStringLiteral("transform.random_crop"), params, {}, {{1, 6, 6}}, shape.value()});
    QVERIFY(op.ok());
    const torch::Tensor x = torch::arange(36, torch::kFloat).view({1, 1, 6, 6}).repeat({50, 1, 1, 1}) + 1;
    const torch::Tensor cropped = op.value().forward({x}, true);
    QCOMPARE(cropped.sizes().vec(), x.sizes().vec());
    // Each crop is the image shifted by at most 2 pixels: the centre 2x2 pixels always survive.
    QVERIFY(torch::equal(cropped.index({torch::indexing::Slice(), 0, 2, 2}).ne(0), torch::ones({50}, torch::kBool)));
    // Some crops moved.
    QVERIFY(!torch::equal(cropped, x));
    QVERIFY(torch::equal(op.value().forward({x}, false), x));
}
