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

namespace {

ty::detail::BuiltOp augmentation(const char *block, const QJsonObject &params, const SampleShape &in)
{
    const Result<OpShape> shape = inferOpShape(QString::fromLatin1(block), QStringLiteral("aug"), params, {in});
    if (!shape)
        qFatal("%s", qPrintable(shape.error().toString()));
    Result<ty::detail::BuiltOp> op =
        ty::detail::buildOp(PlannedOp{QStringLiteral("aug"), QString::fromLatin1(block), params, {}, {in}, shape.value()});
    if (!op)
        qFatal("%s", qPrintable(op.error().toString()));
    return op.value();
}

} // namespace

void TestCompiler::imageAugmentationsActOnTheBatch()
{
    torch::manual_seed(3);
    // A bright disc of radius 5 in the centre of a 21 x 21 image (a 21 x 15 one: rotation must not skew it).
    const torch::Tensor r = torch::arange(21, torch::kFloat) - 10;
    const torch::Tensor disc = (r.view({21, 1}).pow(2) + r.view({1, 21}).pow(2)).le(25).to(torch::kFloat);
    const torch::Tensor x = disc.view({1, 1, 21, 21}).repeat({64, 2, 1, 1});

    // Rotation and zoom about the centre keep the centre bright; the disc's area follows the zoom.
    ty::detail::BuiltOp rotate = augmentation("transform.random_affine", {{QStringLiteral("degrees"), 180.0}, {QStringLiteral("translate"), 0.0},
                                                                           {QStringLiteral("scale_min"), 1.0}, {QStringLiteral("scale_max"), 1.0}}, {2, 21, 21});
    const torch::Tensor rotated = rotate.forward({x}, true);
    QCOMPARE(rotated.sizes().vec(), x.sizes().vec());
    QVERIFY(torch::allclose(rotated.index({torch::indexing::Slice(), torch::indexing::Slice(), 10, 10}), torch::ones({64, 2})));
    const torch::Tensor area = rotated.sum({1, 2, 3}) / 2;  // a disc stays a disc of about 81 pixels
    QVERIFY2(area.min().item<double>() > 70 && area.max().item<double>() < 92, qPrintable(QString::number(area.min().item<double>())));
    QVERIFY(!torch::allclose(rotated, x));
    QVERIFY(torch::equal(rotate.forward({x}, false), x));
    torch::Tensor wide = torch::zeros({64, 1, 15, 21});
    wide.index_put_({torch::indexing::Slice(), 0, 7, torch::indexing::Slice(3, 18)}, 1.0);  // a horizontal bar of 15
    ty::detail::BuiltOp rotateWide = augmentation("transform.random_affine", {{QStringLiteral("degrees"), 180.0}, {QStringLiteral("translate"), 0.0},
                                                                               {QStringLiteral("scale_min"), 1.0}, {QStringLiteral("scale_max"), 1.0}}, {1, 15, 21});
    const torch::Tensor bar = rotateWide.forward({wide}, true).sum({1, 2, 3});  // its length is kept at any angle
    QVERIFY2(bar.min().item<double>() > 12 && bar.max().item<double>() < 18, qPrintable(QString::number(bar.min().item<double>())));
    ty::detail::BuiltOp zoom = augmentation("transform.random_affine", {{QStringLiteral("degrees"), 0.0}, {QStringLiteral("translate"), 0.0},
                                                                         {QStringLiteral("scale_min"), 2.0}, {QStringLiteral("scale_max"), 2.0}}, {2, 21, 21});
    const double zoomed = (zoom.forward({x}, true).sum({1, 2, 3}) / 2).mean().item<double>();
    QVERIFY2(zoomed > 4 * 70 && zoomed < 4 * 92, qPrintable(QString::number(zoomed)));
    const Result<OpShape> backwards = inferOpShape(QStringLiteral("transform.random_affine"), QStringLiteral("aug"),
                                                   {{QStringLiteral("scale_min"), 1.0}, {QStringLiteral("scale_max"), 1.0}, {QStringLiteral("degrees"), 0.0},
                                                    {QStringLiteral("translate"), 0.0}}, {{64}});
    QVERIFY(!backwards.ok());  // not an image

    // Brightness alone: each sample is the input times one factor in [0.5, 1.5], the factors differ.
    const torch::Tensor grey = torch::rand({64, 1, 4, 4}) * 0.5 + 0.1;
    ty::detail::BuiltOp bright = augmentation("transform.color_jitter", {{QStringLiteral("brightness"), 0.5}, {QStringLiteral("contrast"), 0.0},
                                                                          {QStringLiteral("clamp"), true}}, {1, 4, 4});
    const torch::Tensor ratio = bright.forward({grey}, true) / grey;
    const torch::Tensor perSample = ratio.flatten(1);
    QVERIFY(torch::allclose(std::get<0>(perSample.min(1)), std::get<0>(perSample.max(1)), 1e-5, 1e-5));
    QVERIFY(perSample.min().item<double>() >= 0.5 - 1e-6 && perSample.max().item<double>() <= 1.5 + 1e-6);
    QVERIFY(perSample.max().item<double>() - perSample.min().item<double>() > 0.5);
    // Contrast alone keeps each sample's mean; clamping keeps [0, 1].
    ty::detail::BuiltOp contrast = augmentation("transform.color_jitter", {{QStringLiteral("brightness"), 0.0}, {QStringLiteral("contrast"), 0.9},
                                                                            {QStringLiteral("clamp"), false}}, {1, 4, 4});
    QVERIFY(torch::allclose(contrast.forward({grey}, true).flatten(1).mean(1), grey.flatten(1).mean(1), 1e-5, 1e-5));
    ty::detail::BuiltOp clamped = augmentation("transform.color_jitter", {{QStringLiteral("brightness"), 1.0}, {QStringLiteral("contrast"), 1.0},
                                                                           {QStringLiteral("clamp"), true}}, {1, 4, 4});
    const torch::Tensor jittered = clamped.forward({torch::rand({64, 1, 4, 4})}, true);
    QVERIFY(jittered.min().item<double>() >= 0 && jittered.max().item<double>() <= 1);
    QVERIFY(torch::equal(clamped.forward({grey}, false), grey));

    // Cutout with p = 1 on ones: each image loses one square (cut by the border), the same in every channel.
    const torch::Tensor ones = torch::ones({200, 3, 12, 12});
    ty::detail::BuiltOp cut = augmentation("transform.cutout", {{QStringLiteral("size"), 4}, {QStringLiteral("p"), 1.0}}, {3, 12, 12});
    const torch::Tensor holes = cut.forward({ones}, true).eq(0);
    QVERIFY(torch::equal(holes.index({torch::indexing::Slice(), 0}), holes.index({torch::indexing::Slice(), 2})));
    const torch::Tensor zeros = holes.index({torch::indexing::Slice(), 0}).sum({1, 2});
    QVERIFY(zeros.min().item<int64_t>() >= 4 && zeros.max().item<int64_t>() == 16);  // a corner keeps at least 2 x 2
    const torch::Tensor rowsHit = holes.index({torch::indexing::Slice(), 0}).any(2).sum(1), colsHit = holes.index({torch::indexing::Slice(), 0}).any(1).sum(1);
    QVERIFY(torch::equal(rowsHit * colsHit, zeros));  // a rectangle
    ty::detail::BuiltOp sometimes = augmentation("transform.cutout", {{QStringLiteral("size"), 4}, {QStringLiteral("p"), 0.5}}, {3, 12, 12});
    const double share = sometimes.forward({ones}, true).eq(0).flatten(1).any(1).to(torch::kFloat).mean().item<double>();
    QVERIFY2(share > 0.3 && share < 0.7, qPrintable(QString::number(share)));
    QVERIFY(torch::equal(cut.forward({ones}, false), ones));
}
