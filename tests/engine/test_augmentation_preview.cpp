// The augmentation preview (core/engine/augmentation_preview.h) on synthetic images through a random crop and a
// random flip: 16 variants that differ from each other and from the sample, the same for the same seed and others
// for another, equal to the compiled training graph's own output for that seed, and clear errors for a node that is
// not a transform, an unknown node and a sample out of range; an AugmentationPreviewer (the --serve worker's) that
// loads the data set once and compiles once per preset, drawing what previewAugmentation draws.

#include "test_suite.h"
#include "engine_fixtures.h"

#include "augmentation_preview.h"
#include "detail/compiled_pipeline.h"
#include "preset_dataset.h"

#include <QSet>
#include <QtTest>

using namespace ty;

namespace {

QJsonObject node(const char *id, const char *block, const QJsonObject &params = {})
{
    return QJsonObject{{QStringLiteral("id"), QString::fromLatin1(id)}, {QStringLiteral("block"), QString::fromLatin1(block)},
                       {QStringLiteral("params"), params}};
}

Preset augmentedImages()
{
    return test::makePreset(
        {node("data", "dataset.synthetic", {{QStringLiteral("kind"), QStringLiteral("images")}, {QStringLiteral("features"), 12},
                                            {QStringLiteral("samples"), 64}, {QStringLiteral("test_samples"), 16}}),
         node("crop", "transform.random_crop", {{QStringLiteral("padding"), 2}}),
         node("flip", "transform.random_hflip", {{QStringLiteral("p"), 0.5}}), node("flat", "layer.flatten"),
         node("fc", "layer.linear", {{QStringLiteral("out_features"), 4}}), node("loss", "loss.cross_entropy"), node("opt", "optimizer.sgd")},
        {QStringLiteral("data.features -> crop.in"), QStringLiteral("crop.out -> flip.in"), QStringLiteral("flip.out -> flat.in"),
         QStringLiteral("flat.out -> fc.in"), QStringLiteral("fc.out -> loss.input"), QStringLiteral("data.target -> loss.target"),
         QStringLiteral("loss.loss -> opt.loss")});
}

LoadedDataset loaded(const Preset &preset)
{
    Result<LoadedDataset> data = loadDataset(datasetRequest(preset, *firstDatasetNode(preset)));
    if (!data)
        qFatal("%s", qPrintable(data.error().toString()));
    return data.value();
}

AugmentationPreviewOptions options(const char *nodeId, quint64 seed, int64_t sample = 3)
{
    AugmentationPreviewOptions o;
    o.nodeId = QString::fromLatin1(nodeId);
    o.seed = seed;
    o.sample = sample;
    return o;
}

} // namespace

class TestAugmentationPreview : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void variantsDifferAndRepeatForTheSeed();
    void equalsTheTrainingGraphForTheSeed();
    void refusesWhatHasNoPreview();
    void previewerKeepsDataAndPipeline();
};

void TestAugmentationPreview::variantsDifferAndRepeatForTheSeed()
{
    const Preset preset = augmentedImages();
    const LoadedDataset data = loaded(preset);
    const Result<AugmentationPreview> preview = previewAugmentation(preset, data, options("flip", 7));
    QVERIFY2(preview, qPrintable(preview ? QString() : preview.error().toString()));
    const AugmentationPreview &p = preview.value();
    QCOMPARE(p.transforms, (QStringList{QStringLiteral("crop"), QStringLiteral("flip")}));
    QCOMPARE(p.sampleShape, data.train.x.sampleShape);
    QCOMPARE(p.variantShape, data.train.x.sampleShape);
    QCOMPARE(int(p.variants.size()), 16);
    // The original is training sample 3 as the graph receives it.
    const int64_t size = data.train.x.sampleSize();
    QCOMPARE(int64_t(p.original.size()), size);
    for (int64_t i = 0; i < size; ++i) {
        const float expected = data.train.x.isFloat ? data.train.x.floats[size_t(3 * size + i)]
                                                    : float(data.train.x.bytes[size_t(3 * size + i)]) * data.train.x.scale;
        QCOMPARE(p.original[size_t(i)], expected);
    }
    // 25 crops times 2 flips: most of the 16 draws differ from each other, and nearly all from the sample.
    QSet<QByteArray> distinct;
    int changed = 0;
    for (const std::vector<float> &variant : p.variants) {
        distinct.insert(QByteArray(reinterpret_cast<const char *>(variant.data()), int(variant.size() * sizeof(float))));
        changed += variant != p.original ? 1 : 0;
    }
    QVERIFY2(distinct.size() >= 10, qPrintable(QString::number(distinct.size())));
    QVERIFY2(changed >= 14, qPrintable(QString::number(changed)));

    const Result<AugmentationPreview> again = previewAugmentation(preset, data, options("flip", 7));
    QVERIFY(again);
    QVERIFY(again.value().variants == p.variants);
    const Result<AugmentationPreview> rerolled = previewAugmentation(preset, data, options("flip", 8));
    QVERIFY(rerolled);
    QVERIFY(rerolled.value().variants != p.variants);
    // Up to the crop only: the flip is not applied.
    const Result<AugmentationPreview> crop = previewAugmentation(preset, data, options("crop", 7));
    QVERIFY(crop);
    QCOMPARE(crop.value().transforms, QStringList{QStringLiteral("crop")});
}

// The same seed through the compiled training graph itself: a batch of 16 copies of the sample, training mode.
void TestAugmentationPreview::equalsTheTrainingGraphForTheSeed()
{
    const Preset preset = augmentedImages();
    const LoadedDataset data = loaded(preset);
    const Result<AugmentationPreview> preview = previewAugmentation(preset, data, options("flip", 11, 5));
    QVERIFY(preview);
    ty::detail::CompiledPipeline pipeline = ty::detail::compilePipeline(preset, data.shape);
    QVERIFY(pipeline.report.ok());
    const int64_t size = data.train.x.sampleSize();
    std::vector<int64_t> batchShape{16};
    batchShape.insert(batchShape.end(), data.train.x.sampleShape.begin(), data.train.x.sampleShape.end());
    torch::Tensor sample = data.train.x.isFloat
        ? torch::from_blob(const_cast<float *>(data.train.x.floats.data() + 5 * size), {size}, torch::kFloat).clone()
        : torch::from_blob(const_cast<uint8_t *>(data.train.x.bytes.data() + 5 * size), {size}, torch::kByte).to(torch::kFloat) * data.train.x.scale;
    const torch::Tensor batch = sample.view(std::vector<int64_t>(batchShape.begin() + 1, batchShape.end())).unsqueeze(0).expand(batchShape).contiguous();
    pipeline.model->train(true);
    torch::manual_seed(11);
    const torch::Tensor out = pipeline.model->forward(batch, pipeline.model->slotOf(QStringLiteral("flip"))).contiguous();
    for (int64_t i = 0; i < 16; ++i) {
        const torch::Tensor row = out[i].flatten();
        QVERIFY(std::equal(preview.value().variants[size_t(i)].begin(), preview.value().variants[size_t(i)].end(), row.data_ptr<float>()));
    }
}

void TestAugmentationPreview::refusesWhatHasNoPreview()
{
    const Preset preset = augmentedImages();
    const LoadedDataset data = loaded(preset);
    const Result<AugmentationPreview> layer = previewAugmentation(preset, data, options("fc", 0));
    QVERIFY(!layer);
    QCOMPARE(layer.error().node, QStringLiteral("fc"));
    QVERIFY2(layer.error().message.contains(QStringLiteral("not a transform")), qPrintable(layer.error().message));
    const Result<AugmentationPreview> unknown = previewAugmentation(preset, data, options("nope", 0));
    QVERIFY(!unknown && unknown.error().message.contains(QStringLiteral("no node nope")));
    const Result<AugmentationPreview> outside = previewAugmentation(preset, data, options("flip", 0, 64));
    QVERIFY(!outside);
    QVERIFY2(outside.error().message.contains(QStringLiteral("sample 64 is not in the training split")), qPrintable(outside.error().message));
}

void TestAugmentationPreview::previewerKeepsDataAndPipeline()
{
    Preset preset = augmentedImages();
    const LoadedDataset data = loaded(preset);
    AugmentationPreviewer previewer;
    for (quint64 seed : {7, 8, 7}) {  // another seed, then the first again: drawn as a fresh preview draws them
        const Result<AugmentationPreview> kept = previewer.preview(preset, options("flip", seed));
        const Result<AugmentationPreview> fresh = previewAugmentation(preset, data, options("flip", seed));
        QVERIFY2(kept && fresh, qPrintable(kept ? QString() : kept.error().toString()));
        QVERIFY(kept.value().variants == fresh.value().variants);
        QVERIFY(kept.value().original == fresh.value().original);
    }
    QVERIFY(previewer.preview(preset, options("crop", 1, 5)));  // another node and sample
    QCOMPARE(previewer.datasetLoads(), 1);
    QCOMPARE(previewer.compilations(), 1);
    QVERIFY(!previewer.preview(preset, options("fc", 1)));  // an error leaves what is kept
    QCOMPARE(previewer.compilations(), 1);

    Node *flip = preset.graph.node(QStringLiteral("flip"));  // an edited transform: compiled again, same data
    flip->params.insert(QStringLiteral("p"), 1.0);
    const Result<AugmentationPreview> edited = previewer.preview(preset, options("flip", 7));
    QVERIFY(edited);
    QVERIFY(edited.value().variants == previewAugmentation(preset, data, options("flip", 7)).value().variants);
    QCOMPARE(previewer.compilations(), 2);
    QCOMPARE(previewer.datasetLoads(), 1);

    Node *dataset = preset.graph.node(QStringLiteral("data"));  // another data set: loaded again
    dataset->params.insert(QStringLiteral("samples"), 80);
    QVERIFY(previewer.preview(preset, options("flip", 7)));
    QCOMPARE(previewer.datasetLoads(), 2);
    QCOMPARE(previewer.compilations(), 3);
}

TY_TEST_CLASS(TestAugmentationPreview)
#include "test_augmentation_preview.moc"
