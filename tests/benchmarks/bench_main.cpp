// trainyard-bench [--help] [--quick] [--markdown] [--device cpu|cuda]
//                 [--only training|data|streaming|logging|team|editing|startup|process|plots|runs|bundles|stall|evaluate]
// Prints every figure of docs/benchmarks.md as one table, the desktop app's too unless the project is built
// headless (those run on the offscreen platform unless QT_QPA_PLATFORM says otherwise); exits 1 when a target
// is missed.

#include "bench_arguments.h"
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
    QStringList sections = {QStringLiteral("training"), QStringLiteral("data"), QStringLiteral("streaming"),
                            QStringLiteral("logging"), QStringLiteral("team"), QStringLiteral("editing"),
                            QStringLiteral("startup"), QStringLiteral("process"), QStringLiteral("runs"),
                            QStringLiteral("bundles")};
#ifdef TRAINYARD_BENCH_GUI
    sections << QStringLiteral("plots") << QStringLiteral("stall") << QStringLiteral("evaluate");
#endif
    const ty::bench::Arguments args = ty::bench::parseArguments(sections, true);
    ty::bench::Options options;
    options.quick = args.quick;
    options.repeats = options.quick ? 1 : 3;
    options.device = args.device;
    const QString &section = args.section;
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
    report.print(args.markdown);
    return report.missedTargets() == 0 ? 0 : 1;
}
