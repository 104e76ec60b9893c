// trainyard-bench [--quick] [--markdown] [--only training|data|logging|editing]
// Prints every figure of docs/benchmarks.md as one table; exits 1 when a target is missed.

#include "bench_sections.h"

#include <QCoreApplication>
#include <QStringList>
#include <QThread>

#include <torch/torch.h>

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = QCoreApplication::arguments();
    ty::bench::Options options;
    options.quick = args.contains(QStringLiteral("--quick"));
    options.repeats = options.quick ? 1 : 3;
    const int only = args.indexOf(QStringLiteral("--only"));
    const QString section = only >= 0 ? args.value(only + 1) : QString();
    std::fprintf(stderr, "trainyard-bench: %d CPU threads for LibTorch, %d cores\n", torch::get_num_threads(),
                 QThread::idealThreadCount());

    ty::bench::Report report;
    if (section.isEmpty() || section == QStringLiteral("data"))
        ty::bench::benchData(options, report);
    if (section.isEmpty() || section == QStringLiteral("training"))
        ty::bench::benchTraining(options, report);
    if (section.isEmpty() || section == QStringLiteral("logging"))
        ty::bench::benchLogging(options, report);
    if (section.isEmpty() || section == QStringLiteral("editing"))
        ty::bench::benchValidation(options, report);
    report.print(args.contains(QStringLiteral("--markdown")));
    return report.missedTargets() == 0 ? 0 : 1;
}
