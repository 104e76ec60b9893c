// trainyard-bench-gui [--quick] [--markdown] [--only plots|runs|editing|stall|evaluate|data]
// The desktop app's figures of docs/benchmarks.md alone (trainyard-bench prints them too, with the rest); exits 1
// when a target is missed. Runs on the offscreen platform unless QT_QPA_PLATFORM says otherwise.

#include "bench_gui_sections.h"

#include <QApplication>
#include <QStringList>
#include <QThread>

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const QStringList args = QCoreApplication::arguments();
    ty::bench::GuiOptions options;
    options.quick = args.contains(QStringLiteral("--quick"));
    const int only = args.indexOf(QStringLiteral("--only"));
    const QString section = only >= 0 ? args.value(only + 1) : QString();
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
    report.print(args.contains(QStringLiteral("--markdown")));
    return report.missedTargets() == 0 ? 0 : 1;
}
