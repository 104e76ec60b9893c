// The inspector's augmentation preview on a transform node, with the real trainyard-cli as its worker: 16 variants of
// a synthetic image through a random crop and flip that differ from each other and from the sample, the same images
// for the same seed and others after Reroll, the event loop running meanwhile, and the worker's message for a node
// it cannot preview.

#include "test_suite.h"
#include "training_ui_support.h"

#include "document/pipeline_document.h"
#include "inspector/augmentation_preview_view.h"
#include "preset_format.h"

#include <QJsonDocument>
#include <QLabel>
#include <QPushButton>
#include <QSet>
#include <QSignalSpy>
#include <QTimer>
#include <QtTest>

using namespace ty;

namespace {

const char kAugmentedImages[] = R"({
  "format": "trainyard-preset", "version": 1, "name": "augmented images",
  "nodes": [
    {"id": "data", "block": "dataset.synthetic", "params": {"kind": "images", "features": 12, "samples": 64, "test_samples": 16}},
    {"id": "crop", "block": "transform.random_crop", "params": {"padding": 2}},
    {"id": "flip", "block": "transform.random_hflip", "params": {"p": 0.5}},
    {"id": "flat", "block": "layer.flatten"},
    {"id": "fc", "block": "layer.linear", "params": {"out_features": 4}},
    {"id": "loss", "block": "loss.cross_entropy"},
    {"id": "opt", "block": "optimizer.sgd"}],
  "edges": [{"from": "data.features", "to": "crop.in"}, {"from": "crop.out", "to": "flip.in"}, {"from": "flip.out", "to": "flat.in"},
            {"from": "flat.out", "to": "fc.in"}, {"from": "fc.out", "to": "loss.input"}, {"from": "data.target", "to": "loss.target"},
            {"from": "loss.loss", "to": "opt.loss"}],
  "training": {"epochs": 1, "batch_size": 16, "device": "cpu"}})";

QSet<QByteArray> distinctImages(const QList<QImage> &images)
{
    QSet<QByteArray> keys;
    for (const QImage &image : images)
        keys.insert(QByteArray(reinterpret_cast<const char *>(image.constBits()), int(image.sizeInBytes())));
    return keys;
}

} // namespace

class TestAugmentationPreviewView : public QObject {
    Q_OBJECT

    PipelineDocument document;

    bool previewed(AugmentationPreviewView &view, bool reroll = false)
    {
        QSignalSpy finished(&view, &AugmentationPreviewView::finished);
        int ticks = 0;  // the event loop turns while the worker draws
        QTimer timer;
        connect(&timer, &QTimer::timeout, this, [&] { ++ticks; });
        timer.start(10);
        reroll ? view.reroll() : view.preview();
        if (!view.busy() || !finished.wait(120000))
            return false;
        return finished.first().first().toBool() && ticks > 0;
    }

private Q_SLOTS:
    void initTestCase()
    {
        const Result<Preset> preset = presetFromJson(QJsonDocument::fromJson(kAugmentedImages).object(), QString());
        QVERIFY2(preset, qPrintable(preset ? QString() : preset.error().toString()));
        document.setPreset(preset.value());
    }

    void variantsDifferAndRepeatForTheSeed()
    {
        AugmentationPreviewView view(&document, QStringLiteral("flip"), tytest::workerPath());
        view.setSeed(5);
        QVERIFY(!view.rerollButton()->isEnabled());
        QVERIFY2(previewed(view), qPrintable(view.statusLabel()->text()));
        QCOMPARE(view.images().size(), 17);  // the sample, then 16 variants
        QCOMPARE(view.images().first().size(), QSize(12, 12));
        const QSet<QByteArray> first = distinctImages(view.images());
        QVERIFY2(first.size() >= 10, qPrintable(QString::number(first.size())));
        QVERIFY(view.statusLabel()->text().contains(QStringLiteral("crop → flip")));
        QVERIFY(view.rerollButton()->isEnabled());
        const QList<QImage> shown = view.images();

        QVERIFY(previewed(view));  // the same seed: the same images
        QCOMPARE(view.images(), shown);
        QVERIFY(previewed(view, true));
        QVERIFY(view.images() != shown);
        QCOMPARE(view.images().first(), shown.first());  // the sample itself does not change
    }

    void aNodeWithoutPreviewSaysWhy()
    {
        AugmentationPreviewView view(&document, QStringLiteral("fc"), tytest::workerPath());
        QSignalSpy finished(&view, &AugmentationPreviewView::finished);
        view.preview();
        QVERIFY(finished.wait(120000));
        QCOMPARE(finished.first().first().toBool(), false);
        QVERIFY(view.images().isEmpty());
        QVERIFY2(view.statusLabel()->text().contains(QStringLiteral("fc is not a transform")), qPrintable(view.statusLabel()->text()));
    }
};

TY_TEST_CLASS(TestAugmentationPreviewView)
#include "test_augmentation_preview_view.moc"
