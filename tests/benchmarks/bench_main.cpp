// trainyard-bench [--quick] [--markdown] [--device cpu|cuda]
//                 [--only training|data|streaming|logging|team|editing|startup|process|plots|runs|bundles|stall|evaluate]
// Prints every figure of docs/benchmarks.md as one table, the desktop app's too unless the project is built
// headless (those run on the offscreen platform unless QT_QPA_PLATFORM says otherwise); exits 1 when a target
// is missed.

#include "bench_sections.h"
#include "host_allocator.h"
#include "host_memory.h"

#include <QCoreApplication>
#ifdef TRAINYARD_BENCH_GUI
#include "bench_gui_sections.h"

#include <QApplication>
#endif
#include <QStringList>
#include <QThread>

#include <torch/torch.h>

int main(int argc, char **argv)
{
    // As trainyard-cli and its training module do: the engine rows train in this process.
    ty::configureHostAllocatorForTraining();
    ty::installLargeBlockCache();
#ifdef TRAINYARD_BENCH_GUI
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
#else
    QCoreApplication app(argc, argv);
#endif
    const QStringList args = QCoreApplication::arguments();
    ty::bench::Options options;
    options.quick = args.contains(QStringLiteral("--quick"));
    options.repeats = options.quick ? 1 : 3;
    if (const int device = args.indexOf(QStringLiteral("--device")); device >= 0)
        options.device = args.value(device + 1);
    const int only = args.indexOf(QStringLiteral("--only"));
    const QString section = only >= 0 ? args.value(only + 1) : QString();
    std::fprintf(stderr, "trainyard-bench: %d CPU threads for LibTorch, %d cores\n", torch::get_num_threads(),
                 QThread::idealThreadCount());

    ty::bench::Report report;
    if (section.isEmpty() || section == QStringLiteral("data")) {
        ty::bench::benchData(options, report);
        ty::bench::benchAugmentationPreview(options, report);
    }
    if (section.isEmpty() || section == QStringLiteral("streaming"))
        ty::bench::benchStreaming(options, report);
    if (section.isEmpty() || section == QStringLiteral("training"))
        ty::bench::benchTraining(options, report);
    if (section.isEmpty() || section == QStringLiteral("logging"))
        ty::bench::benchLogging(options, report);
    if (section.isEmpty() || section == QStringLiteral("team"))
        ty::bench::benchTeamStore(options, report);
    if (section.isEmpty() || section == QStringLiteral("editing"))
        ty::bench::benchValidation(options, report);
    if (section.isEmpty() || section == QStringLiteral("startup"))
        ty::bench::benchStartup(options, report);
    if (section.isEmpty() || section == QStringLiteral("process")) {
        ty::bench::benchWholeProcess(options, report);
        ty::bench::benchPredictMemory(options, report);
    }
    if (section.isEmpty() || section == QStringLiteral("runs"))
        ty::bench::benchRunList(options, report);
    if (section.isEmpty() || section == QStringLiteral("runs") || section == QStringLiteral("bundles"))
        ty::bench::benchBundles(options, report);
#ifdef TRAINYARD_BENCH_GUI
    ty::bench::GuiOptions gui;
    gui.quick = options.quick;
    if (section.isEmpty() || section == QStringLiteral("plots"))
        ty::bench::benchPlots(gui, report);
    if (section.isEmpty() || section == QStringLiteral("runs")) {
        ty::bench::benchRunBrowser(gui, report);
        ty::bench::benchMetricsCsvExport(gui, report);
    }
    if (section.isEmpty() || section == QStringLiteral("editing"))
        ty::bench::benchDocumentEditing(gui, report);
    if (section.isEmpty() || section == QStringLiteral("stall"))
        ty::bench::benchEventLoopStall(gui, report);
    if (section.isEmpty() || section == QStringLiteral("evaluate"))
        ty::bench::benchEvaluateView(gui, report);
    if (section.isEmpty() || section == QStringLiteral("data"))
        ty::bench::benchAugmentationView(gui, report);
#endif
    report.print(args.contains(QStringLiteral("--markdown")));
    return report.missedTargets() == 0 ? 0 : 1;
}
