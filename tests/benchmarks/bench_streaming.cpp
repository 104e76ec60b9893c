// Streaming data larger than memory: an image folder of 60,000 PNG files (Fashion-MNIST's training images,
// written by presets/fashion_mnist_to_png.py) trained for one epoch by trainyard-cli, as a user runs it, in
// memory and streamed. Figures: the share of the training steps' time spent waiting for data, and each run's
// peak resident memory (from wait4) above a streamed run of the same network on 1,000 images, against the size
// of the decoded images (one byte a pixel; in memory they are held as float32, four).

#include "bench_process.h"
#include "bench_sections.h"

#include <QDir>
#include <QDirIterator>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <cstdio>

namespace ty::bench {

namespace {

struct ChildRun {
    bool ok = false;
    double peakMb = 0;       // the child's peak resident set
    double waitSeconds = -1, trainSeconds = -1;
    QString output;
};

// Runs trainyard-cli with `arguments` and TRAINYARD_CACHE_DIR=`cache`; its peak memory from wait4's rusage.
ChildRun runStreamingCli(const QStringList &arguments, const QString &cache)
{
    const ProcessRun run = runCli(arguments, {QByteArrayLiteral("TRAINYARD_CACHE_DIR=") + cache.toLocal8Bit()});
    ChildRun out;
    out.ok = run.ok;
    out.peakMb = run.peakMb;
    out.output = run.output;
    const QRegularExpressionMatch waited =
        QRegularExpression(QStringLiteral("the steps waited ([0-9.]+) s for them, [0-9.]+ % of ([0-9.]+) s")).match(out.output);
    if (waited.hasMatch()) {
        out.waitSeconds = waited.captured(1).toDouble();
        out.trainSeconds = waited.captured(2).toDouble();
    }
    return out;
}

} // namespace

void benchStreaming(const Options &options, Report &report)
{
    std::fprintf(stderr, "streaming\n");
    const QString python = QStandardPaths::findExecutable(QStringLiteral("python3"));
    if (python.isEmpty() || !QDir(QStringLiteral("/usr/share/datasets/fashion-mnist")).exists()) {
        std::fprintf(stderr, "  skipped: needs python3 and Fashion-MNIST (dataset-fashion-mnist)\n");
        return;
    }
    QTemporaryDir dir;
    const QString png = dir.filePath(QStringLiteral("png"));
    QStringList scriptArgs{QStringLiteral(TRAINYARD_SOURCE_DIR "/presets/fashion_mnist_to_png.py"), png};
    if (options.quick)
        scriptArgs << QStringLiteral("--limit") << QStringLiteral("6000");
    if (QProcess::execute(python, scriptArgs) != 0)
        qFatal("fashion_mnist_to_png.py failed");
    const QString folder = png + QStringLiteral("/train");  // the training images alone: one folder per class
    qint64 files = 0;
    for (QDirIterator it(folder, {QStringLiteral("*.png")}, QDir::Files, QDirIterator::Subdirectories); it.hasNext(); it.next())
        ++files;
    const double decodedMb = double(files) * 784 / (1024.0 * 1024.0);

    // The bundled image-folder preset, narrower (8 and 16 channels) so that a step is short and waiting for data
    // weighs more; one epoch.
    const QStringList common{QStringLiteral("run"), QStringLiteral(TRAINYARD_SOURCE_DIR "/presets/image-folder-cnn.trainyard.json"),
                             QStringLiteral("--db"), dir.filePath(QStringLiteral("runs.db")), QStringLiteral("--set"),
                             QStringLiteral("data.dir=") + folder, QStringLiteral("--set"), QStringLiteral("training.epochs=1"),
                             QStringLiteral("--set"), QStringLiteral("conv1.out_channels=8"), QStringLiteral("--set"),
                             QStringLiteral("conv2.out_channels=16"), QStringLiteral("--set"), QStringLiteral("training.device=cpu"),
                             QStringLiteral("--set"), QStringLiteral("data.val_count=%1").arg(options.quick ? 500 : 5000)};
    const auto set = [](const QString &assignment) { return QStringList{QStringLiteral("--set"), assignment}; };
    const QString warm = dir.filePath(QStringLiteral("cache-warm")), cold = dir.filePath(QStringLiteral("cache-cold"));
    // The baseline streams too, from 1,000 images: what the process holds whatever the data's size (LibTorch, the
    // model, a batch's activations, the queue).
    const ChildRun baseline = runStreamingCli(common + set(QStringLiteral("training.streaming=on")) + set(QStringLiteral("data.limit=1000"))
                                         + set(QStringLiteral("data.val_count=200")), dir.filePath(QStringLiteral("cache-baseline")));
    const ChildRun memory = runStreamingCli(common + set(QStringLiteral("training.streaming=off")), warm);
    const ChildRun streamedWarm = runStreamingCli(common + set(QStringLiteral("training.streaming=on")), warm);
    const ChildRun streamedCold = runStreamingCli(common + set(QStringLiteral("training.streaming=on")), cold);
    for (const ChildRun *run : {&baseline, &memory, &streamedWarm, &streamedCold})
        if (!run->ok)
            qFatal("trainyard-cli failed:\n%s", qPrintable(run->output.right(2000)));
    if (streamedWarm.trainSeconds <= 0 || streamedCold.trainSeconds <= 0)
        qFatal("the streamed runs did not report their waiting:\n%s", qPrintable(streamedWarm.output.right(2000)));

    const QString images = QStringLiteral("%1 PNG files").arg(files);
    report.add(QStringLiteral("streaming"), QStringLiteral("decoded size of the %1 (bytes)").arg(images), decodedMb, QStringLiteral("MB"));
    report.add(QStringLiteral("streaming"), QStringLiteral("waiting for data, share of the steps' time (decoded cache warm)"),
               100.0 * streamedWarm.waitSeconds / streamedWarm.trainSeconds, QStringLiteral("%"), QStringLiteral("< 1"),
               streamedWarm.waitSeconds < 0.01 * streamedWarm.trainSeconds);
    report.add(QStringLiteral("streaming"), QStringLiteral("waiting for data, share of the steps' time (first run, decoded to disk)"),
               100.0 * streamedCold.waitSeconds / streamedCold.trainSeconds, QStringLiteral("%"), QStringLiteral("< 1"),
               streamedCold.waitSeconds < 0.01 * streamedCold.trainSeconds);
    report.add(QStringLiteral("streaming"), QStringLiteral("peak memory, baseline: streamed run on 1,000 images"), baseline.peakMb, QStringLiteral("MB"));
    report.add(QStringLiteral("streaming"), QStringLiteral("peak memory above baseline, in memory"), memory.peakMb - baseline.peakMb,
               QStringLiteral("MB"));
    const double half = decodedMb / 2;
    for (const auto &[name, run] : {std::pair{QStringLiteral("streamed, cache warm"), &streamedWarm},
                                    std::pair{QStringLiteral("streamed, first run"), &streamedCold}})
        report.add(QStringLiteral("streaming"), QStringLiteral("peak memory above baseline, %1").arg(name), run->peakMb - baseline.peakMb,
                   QStringLiteral("MB"), QStringLiteral("< %1").arg(half, 0, 'f', 1), run->peakMb - baseline.peakMb < half);
}

} // namespace ty::bench
