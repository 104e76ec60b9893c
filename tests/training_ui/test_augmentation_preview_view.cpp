// The inspector's augmentation preview on a transform node, with the real trainyard-cli as its long-lived worker
// (`augment --serve` through an AugmentationWorker): 16 variants of a synthetic image through a random crop and flip
// that differ from each other and from the sample, the same images for the same seed and others after Reroll, all
// from one worker process, the event loop running meanwhile; the worker's message for a node it cannot preview,
// after which the same worker still draws; a preview asked for while one is drawn replaces it (a warm-up never does);
// a worker that died is started again, one that cannot start says so. The inspector warms the worker when it shows
// a transform node (and not for other nodes): started, the data set loaded and the preset compiled before the button
// is pressed, so that the first preview starts no process and loads nothing; a click during the warm-up waits for it.

#include "test_suite.h"
#include "training_ui_support.h"
#include "augmented_images_preset.h"

#include "document/pipeline_document.h"
#include "inspector/augmentation_preview_view.h"
#include "inspector/augmentation_worker.h"
#include "inspector/inspector_panel.h"
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

    void cleanup() { document.setSelectedNodes({}); }  // an inspector made by the next test shows no node at first

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

        // A warm-up asked for while a preview waits is dropped: the preview is drawn, and answered once.
        QSignalSpy warmed(worker.get(), &AugmentationWorker::warmedUp);
        view.setSeed(4);
        view.preview();
        view.setSeed(5);
        view.preview();  // waits behind seed 4
        view.warmUp();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 120000);
        QTest::qWait(300);
        QCOMPARE(finished.size(), 2);
        QVERIFY2(view.statusLabel()->text().startsWith(QStringLiteral("Seed 5,")), qPrintable(view.statusLabel()->text()));
        QCOMPARE(warmed.size(), 0);
    }

    // Showing a transform node in the inspector starts the worker and has it load the data set and compile the preset;
    // the first preview then comes from that process, loading and compiling nothing (the worker's counts).
    void showingATransformNodeWarmsTheWorker()
    {
        InspectorPanel panel(&document);
        panel.setWorkerPath(tytest::workerPath());
        AugmentationWorker *warmedWorker = panel.augmentationWorker();
        QSignalSpy warmed(warmedWorker, &AugmentationWorker::warmedUp);
        document.setSelectedNodes({QStringLiteral("fc")});  // not a transform: no worker
        QCOMPARE(panel.shownNode(), QStringLiteral("fc"));
        QCOMPARE(warmedWorker->starts(), 0);
        document.setSelectedNodes({QStringLiteral("flip")});
        QCOMPARE(warmedWorker->starts(), 1);  // started by the selection, before any preview
        QVERIFY(warmed.wait(120000));
        const QJsonObject warmUp = warmed.first().first().toJsonObject();
        QVERIFY2(!warmUp.contains(QStringLiteral("error")), qPrintable(warmUp.value(QStringLiteral("error")).toString()));
        QCOMPARE(warmUp.value(QStringLiteral("dataset_loads")).toInt(), 1);
        QCOMPARE(warmUp.value(QStringLiteral("compilations")).toInt(), 1);
        const qint64 pid = warmedWorker->processId();
        QVERIFY(pid > 0);

        auto *view = panel.findChild<AugmentationPreviewView *>();
        QVERIFY(view);
        QSignalSpy replies(warmedWorker, &AugmentationWorker::replied);
        QSignalSpy finished(view, &AugmentationPreviewView::finished);
        view->previewButton()->click();
        QVERIFY(finished.wait(120000));
        QVERIFY2(finished.first().first().toBool(), qPrintable(view->statusLabel()->text()));
        QCOMPARE(view->images().size(), 17);
        QCOMPARE(warmedWorker->starts(), 1);
        QCOMPARE(warmedWorker->processId(), pid);
        QCOMPARE(replies.size(), 1);
        const QJsonObject reply = replies.first().at(1).toJsonObject();
        QCOMPARE(reply.value(QStringLiteral("dataset_loads")).toInt(), 1);  // nothing loaded or compiled for the preview
        QCOMPARE(reply.value(QStringLiteral("compilations")).toInt(), 1);
        QCOMPARE(warmed.size(), 1);
    }

    // A click before the warm-up is done waits for it: one process, one preview.
    void aPreviewDuringTheWarmUpWaitsForIt()
    {
        InspectorPanel panel(&document);
        panel.setWorkerPath(tytest::workerPath());
        AugmentationWorker *warmedWorker = panel.augmentationWorker();
        QSignalSpy warmed(warmedWorker, &AugmentationWorker::warmedUp);
        document.setSelectedNodes({QStringLiteral("crop")});
        auto *view = panel.findChild<AugmentationPreviewView *>();
        QVERIFY(view);
        QVERIFY2(previewed(*view), qPrintable(view->statusLabel()->text()));
        QCOMPARE(warmed.size(), 1);  // answered before the preview, which waited behind it
        QCOMPARE(warmedWorker->starts(), 1);
        QCOMPARE(view->images().size(), 17);
    }

    // A worker that cannot start: the warm-up and the preview (which tries again) say why, naming the program.
    void aWorkerThatCannotStartSaysSo()
    {
        const QString missing = QStringLiteral("/nonexistent/trainyard-cli");
        AugmentationWorker broken(missing);
        AugmentationPreviewView view(&document, QStringLiteral("flip"), &broken);
        QSignalSpy warmed(&broken, &AugmentationWorker::warmedUp);
        view.warmUp();
        QTRY_COMPARE_WITH_TIMEOUT(warmed.size(), 1, 30000);
        QVERIFY(warmed.first().first().toJsonObject().value(QStringLiteral("error")).toString().contains(missing));
        QSignalSpy finished(&view, &AugmentationPreviewView::finished);
        view.preview();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30000);
        QCOMPARE(finished.first().first().toBool(), false);
        QCOMPARE(broken.starts(), 2);
        const QString message = view.statusLabel()->text();
        QVERIFY2(message.contains(QStringLiteral("did not start")) && message.contains(missing), qPrintable(message));
        QCOMPARE(broken.processId(), qint64(0));
    }

    void aWorkerThatDiedIsStartedAgain()
    {
        AugmentationPreviewView view(&document, QStringLiteral("crop"), worker.get());
        QVERIFY2(previewed(view), qPrintable(view.statusLabel()->text()));
        const qint64 pid = worker->processId();
        QVERIFY(pid > 0);
        const int starts = worker->starts();
        QVERIFY(::kill(pid_t(pid), SIGKILL) == 0);
        QTRY_COMPARE_WITH_TIMEOUT(worker->processId(), qint64(0), 10000);
        QVERIFY2(previewed(view, true), qPrintable(view.statusLabel()->text()));
        QVERIFY(worker->processId() > 0);
        QVERIFY(worker->processId() != pid);
        QCOMPARE(worker->starts(), starts + 1);
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
