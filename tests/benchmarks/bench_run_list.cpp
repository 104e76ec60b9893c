// `trainyard-cli runs list` of a database of 10,000 runs (the run browser's fixture), as a user types it: the
// whole process, text and --json, median of five, and its peak resident set.

#include "bench_process.h"
#include "bench_run_fixture.h"
#include "bench_sections.h"

#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>

namespace ty::bench {

namespace {

constexpr int kRuns = 10000;

void listRuns(const QString &db, bool json, int repeats, Report &report)
{
    QStringList arguments{QStringLiteral("runs"), QStringLiteral("list"), QStringLiteral("--db"), db};
    if (json)
        arguments << QStringLiteral("--json");
    QList<double> seconds;
    double peakMb = 0;
    for (int i = 0; i < repeats; ++i) {
        const ProcessRun run = runCli(arguments);
        if (!run.ok)
            qFatal("runs list failed: %s", qPrintable(run.output.left(400)));
        if (run.output.count(json ? QStringLiteral("\"status\"") : QStringLiteral("\n")) < kRuns)
            qFatal("runs list printed fewer than %d runs", kRuns);
        seconds << run.seconds;
        peakMb = std::max(peakMb, run.peakMb);
    }
    const QString how = json ? QStringLiteral("runs list --json") : QStringLiteral("runs list");
    const double ms = median(seconds) * 1000;
    report.add(QStringLiteral("runs"), QStringLiteral("`trainyard-cli %1`, %2 runs, whole process (median)").arg(how).arg(kRuns), ms,
               QStringLiteral("ms"), QStringLiteral("<= 300"), ms <= 300);
    report.add(QStringLiteral("runs"), QStringLiteral("`trainyard-cli %1`, %2 runs, peak resident set").arg(how).arg(kRuns), peakMb,
               QStringLiteral("MB"), QStringLiteral("<= 100"), peakMb <= 100);
}

} // namespace

void benchRunList(const Options &options, Report &report)
{
    std::fprintf(stderr, "runs list\n");
    QTemporaryDir folder;
    const QString db = writeRunDatabase(folder.path(), kRuns);
    const int repeats = options.quick ? 1 : 5;
    listRuns(db, false, repeats, report);
    listRuns(db, true, repeats, report);
}

} // namespace ty::bench
