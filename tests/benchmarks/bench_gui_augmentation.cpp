// The inspector's augmentation preview as the user feels it: a real AugmentationPreviewView and its long-lived
// worker (`trainyard-cli augment --serve`, AugmentationWorker) on the bundled ResNet preset's flip node
// (Fashion-MNIST, 28x28). The first preview starts the worker (LibTorch loaded, the data set decoded, the preset
// compiled); each Reroll after it, with the worker running, is timed from the click to the 16 variants shown in the
// grid (the request written, the worker's forward pass, the reply read and drawn), median of 21.

#include "bench_gui_sections.h"

#include "document/pipeline_document.h"
#include "inspector/augmentation_preview_view.h"
#include "inspector/augmentation_worker.h"
#include "preset_format.h"

#include <QEventLoop>
#include <QLabel>
#include <QTimer>

#include <algorithm>
#include <vector>

namespace ty::bench {

namespace {

// Clicks `click` and waits for the view's finished(); the seconds it took, or a fatal error.
double timedPreview(AugmentationPreviewView &view, void (AugmentationPreviewView::*click)())
{
    QEventLoop loop;
    bool ok = false;
    const QMetaObject::Connection done = QObject::connect(&view, &AugmentationPreviewView::finished, &loop, [&](bool success) {
        ok = success;
        loop.quit();
    });
    QTimer::singleShot(120000, &loop, &QEventLoop::quit);
    const double start = now();
    (view.*click)();
    loop.exec();
    const double seconds = now() - start;
    QObject::disconnect(done);
    if (!ok || view.images().size() != 17)
        qFatal("augmentation preview failed: %s", qPrintable(view.statusLabel()->text()));
    return seconds;
}

} // namespace

void benchAugmentationView(const GuiOptions &options, Report &report)
{
    std::fprintf(stderr, "augmentation preview view\n");
    Result<Preset> preset = loadPreset(QStringLiteral(TRAINYARD_SOURCE_DIR "/presets/fashion-mnist-resnet.trainyard.json"));
    if (!preset)
        qFatal("%s", qPrintable(preset.error().toString()));
    PipelineDocument document;
    document.setPreset(preset.value());
    AugmentationWorker worker(QStringLiteral(TRAINYARD_CLI));
    AugmentationPreviewView view(&document, QStringLiteral("flip"), &worker);
    const double first = timedPreview(view, &AugmentationPreviewView::preview) * 1000;
    report.add(QStringLiteral("data"), QStringLiteral("augmentation preview in the app: the first preview (the worker started, LibTorch and the data set loaded)"),
               first, QStringLiteral("ms"));
    const qint64 pid = worker.processId();
    std::vector<double> times;
    const int repeats = options.quick ? 5 : 21;
    for (int i = 0; i < repeats; ++i)
        times.push_back(timedPreview(view, &AugmentationPreviewView::reroll));
    if (worker.processId() != pid)
        qFatal("the augmentation worker was started again");
    std::sort(times.begin(), times.end());
    const double median = times[times.size() / 2] * 1000;
    report.add(QStringLiteral("data"),
               QStringLiteral("augmentation preview in the app: Reroll with the worker running, request to 16 variants shown (median of %1)").arg(repeats),
               median, QStringLiteral("ms"), QStringLiteral("<= 200 ms"), median <= 200);
}

} // namespace ty::bench
