// trainyard-bench-gui [--help] [--quick] [--markdown] [--only plots|runs|editing|stall|evaluate|data]
// The desktop app's figures of docs/benchmarks.md alone (trainyard-bench prints them too, with the rest); exits 1
// when a target is missed. Runs on the offscreen platform unless QT_QPA_PLATFORM says otherwise.

#include "bench_arguments.h"
#include "bench_gui_sections.h"

#include <QApplication>
#include <QStringList>
#include <QThread>

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const ty::bench::Arguments args = ty::bench::parseArguments(
        {QStringLiteral("plots"), QStringLiteral("runs"), QStringLiteral("editing"), QStringLiteral("stall"),
         QStringLiteral("evaluate"), QStringLiteral("data")},
        false);
    ty::bench::GuiOptions options;
    options.quick = args.quick;
    const QString &section = args.section;
    std::fprintf(stderr, "trainyard-bench-gui: platform %s, %d cores\n", qPrintable(QApplication::platformName()),
                 QThread::idealThreadCount());

    ty::bench::Report report;
    if (section.isEmpty() || section == QStringLiteral("plots"))
        ty::bench::benchPlots(options, report);
    if (section.isEmpty() || section == QStringLiteral("runs")) {
        ty::bench::benchRunBrowser(options, report);
        ty::bench::benchMetricsCsvExport(options, report);
    }
    if (section.isEmpty() || section == QStringLiteral("editing"))
        ty::bench::benchDocumentEditing(options, report);
    if (section.isEmpty() || section == QStringLiteral("stall"))
        ty::bench::benchEventLoopStall(options, report);
    if (section.isEmpty() || section == QStringLiteral("evaluate"))
        ty::bench::benchEvaluateView(options, report);
    if (section.isEmpty() || section == QStringLiteral("data"))
        ty::bench::benchAugmentationView(options, report);
    report.print(args.markdown);
    return report.missedTargets() == 0 ? 0 : 1;
}
