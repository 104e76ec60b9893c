// The inspector's augmentation preview (core/engine/augmentation_preview.h) on 28x28 images: the bundled ResNet
// preset's random crop and flip on Fashion-MNIST, 16 variants of one sample, with the data set already loaded (what
// the preview computes: the pipeline compiled as for training, one batch through the transforms), median of 21; and,
// informative, a whole `trainyard-cli augment` process, which also loads LibTorch and decodes the data set.

#include "augmentation_preview.h"
#include "bench_sections.h"
#include "preset_dataset.h"
#include "preset_format.h"

#include <QProcess>

#include <algorithm>

namespace ty::bench {

void benchAugmentationPreview(const Options &options, Report &report)
{
    std::fprintf(stderr, "augmentation preview\n");
    const QString presetFile = QStringLiteral(TRAINYARD_SOURCE_DIR "/presets/fashion-mnist-resnet.trainyard.json");
    Result<Preset> preset = loadPreset(presetFile);
    if (!preset)
        qFatal("%s", qPrintable(preset.error().toString()));
    Result<LoadedDataset> data = loadDataset(datasetRequest(preset.value(), *firstDatasetNode(preset.value())));
    if (!data)
        qFatal("%s", qPrintable(data.error().toString()));
    AugmentationPreviewOptions request;
    request.nodeId = QStringLiteral("flip");
    std::vector<double> times;
    const int repeats = options.quick ? 5 : 21;
    for (int i = 0; i < repeats; ++i) {
        request.seed = quint64(i);
        const double start = now();
        const Result<AugmentationPreview> preview = previewAugmentation(preset.value(), data.value(), request);
        times.push_back(now() - start);
        if (!preview)
            qFatal("%s", qPrintable(preview.error().toString()));
    }
    std::sort(times.begin(), times.end());
    const double median = times[times.size() / 2] * 1000;
    report.add(QStringLiteral("data"), QStringLiteral("augmentation preview: 16 variants of a 28x28 image, data set loaded (median of %1)").arg(repeats),
               median, QStringLiteral("ms"), QStringLiteral("<= 200 ms"), median <= 200);

    QProcess process;
    const double start = now();
    process.start(QStringLiteral(TRAINYARD_CLI), {QStringLiteral("augment"), presetFile, QStringLiteral("--node"), QStringLiteral("flip"),
                                                  QStringLiteral("--json")});
    if (!process.waitForFinished(120000) || process.exitCode() != 0)
        qFatal("trainyard-cli augment failed: %s", process.readAllStandardError().constData());
    report.add(QStringLiteral("data"), QStringLiteral("augmentation preview: a whole `trainyard-cli augment` process (LibTorch and the data set loaded)"),
               (now() - start) * 1000, QStringLiteral("ms"));
}

} // namespace ty::bench
