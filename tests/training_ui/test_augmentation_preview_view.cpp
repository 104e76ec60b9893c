// The inspector's augmentation preview on a transform node, with the real trainyard-cli as its long-lived worker
// (`augment --serve` through an AugmentationWorker): 16 variants of a synthetic image through a random crop and flip
// that differ from each other and from the sample, the same images for the same seed and others after Reroll, all
// from one worker process, the event loop running meanwhile; the worker's message for a node it cannot preview,
// after which the same worker still draws; a preview asked for while one is drawn replaces it; a worker that died is
// started again.

#include "test_suite.h"
#include "training_ui_support.h"
#include "augmented_images_preset.h"

#include "document/pipeline_document.h"
#include "inspector/augmentation_preview_view.h"
#include "inspector/augmentation_worker.h"
#include "preset_format.h"

#include <QJsonDocument>
#include <QLabel>
#include <QPushButton>
#include <QSet>
#include <QSignalSpy>
#include <QtTest>

#include <csignal>
#include <memory>

using namespace ty;

namespace {

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
    std::unique_ptr<AugmentationWorker> worker;

    // A preview, answered through the event loop: preview() returns at once, the worker's reply comes later.
    bool previewed(AugmentationPreviewView &view, bool reroll = false)
    {
        QSignalSpy finished(&view, &AugmentationPreviewView::finished);
        reroll ? view.reroll() : view.preview();
        if (!view.busy() || !finished.isEmpty() || !finished.wait(120000))
            return false;
        return finished.first().first().toBool();
    }

private Q_SLOTS:
    void initTestCase()
    {
        const Result<Preset> preset = presetFromJson(QJsonDocument::fromJson(tytest::kAugmentedImagesPreset).object(), QString());
        QVERIFY2(preset, qPrintable(preset ? QString() : preset.error().toString()));
        document.setPreset(preset.value());
        worker = std::make_unique<AugmentationWorker>(tytest::workerPath());
    }

    void variantsDifferAndRepeatForTheSeed()
    {
        AugmentationPreviewView view(&document, QStringLiteral("flip"), worker.get());
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
        const qint64 pid = worker->processId();
        QVERIFY(pid > 0);  // the worker stays after its reply

        QVERIFY(previewed(view));  // the same seed: the same images
        QCOMPARE(view.images(), shown);
        QVERIFY(previewed(view, true));  // Reroll: a second preview from the same process
        QVERIFY(view.images() != shown);
        QCOMPARE(view.images().first(), shown.first());  // the sample itself does not change
        QCOMPARE(worker->processId(), pid);
    }

    void aNewerPreviewReplacesTheOneDrawn()
    {
        AugmentationPreviewView view(&document, QStringLiteral("flip"), worker.get());
        QSignalSpy finished(&view, &AugmentationPreviewView::finished);
        view.setSeed(1);
        view.preview();
        view.setSeed(2);
        view.preview();
        view.setSeed(3);
        view.preview();  // replaces seed 2, which waited behind seed 1
        QVERIFY(finished.wait(120000));
        QTest::qWait(300);  // no second finished for the replaced previews
        QCOMPARE(finished.size(), 1);
        QVERIFY(finished.first().first().toBool());
        QVERIFY2(view.statusLabel()->text().startsWith(QStringLiteral("Seed 3,")), qPrintable(view.statusLabel()->text()));
        QVERIFY(!view.busy());
    }

    void aWorkerThatDiedIsStartedAgain()
    {
        AugmentationPreviewView view(&document, QStringLiteral("crop"), worker.get());
        QVERIFY2(previewed(view), qPrintable(view.statusLabel()->text()));
        const qint64 pid = worker->processId();
        QVERIFY(pid > 0);
        QVERIFY(::kill(pid_t(pid), SIGKILL) == 0);
        QTRY_COMPARE_WITH_TIMEOUT(worker->processId(), qint64(0), 10000);
        QVERIFY2(previewed(view, true), qPrintable(view.statusLabel()->text()));
        QVERIFY(worker->processId() > 0);
        QVERIFY(worker->processId() != pid);
        QCOMPARE(view.images().size(), 17);
    }

    void aNodeWithoutPreviewSaysWhy()
    {
        AugmentationPreviewView view(&document, QStringLiteral("fc"), worker.get());
        QSignalSpy finished(&view, &AugmentationPreviewView::finished);
        view.preview();
        QVERIFY(finished.wait(120000));
        QCOMPARE(finished.first().first().toBool(), false);
        QVERIFY(view.images().isEmpty());
        QVERIFY2(view.statusLabel()->text().contains(QStringLiteral("fc is not a transform")), qPrintable(view.statusLabel()->text()));
        const qint64 pid = worker->processId();
        QVERIFY(pid > 0);  // the worker answered and keeps serving
        AugmentationPreviewView flip(&document, QStringLiteral("flip"), worker.get());
        QVERIFY2(previewed(flip), qPrintable(flip.statusLabel()->text()));
        QCOMPARE(worker->processId(), pid);
    }
};

TY_TEST_CLASS(TestAugmentationPreviewView)
#include "test_augmentation_preview_view.moc"
