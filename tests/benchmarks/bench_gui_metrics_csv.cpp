// The run browser's "Export Metrics as CSV…" of a large selection: 20 runs of 10,000 metric rows each. What writing
// the file takes on the calling thread (the window would freeze that long, had it written on the GUI thread), and,
// as the browser does it (on its export thread), the time to the finished file with the longest event-loop turn
// meanwhile.

#include "bench_gui_sections.h"

#include "long_form_metrics.h"
#include "run_database.h"
#include "run_writer.h"
#include "runs/run_browser.h"
#include "runs/runs_table_model.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <cmath>

namespace ty::bench {

namespace {

constexpr int kRuns = 20;
constexpr int kRowsPerRun = 10000;  // four metrics of 2,500 steps
const QString kSection = QStringLiteral("runs");

QList<qint64> writeRuns(RunDatabase &db)
{
    QList<qint64> ids;
    for (int r = 0; r < kRuns; ++r) {
        NewRun run;
        run.name = QStringLiteral("csv %1").arg(r);
        run.preset = QJsonObject{{QStringLiteral("format"), QStringLiteral("trainyard-preset")}, {QStringLiteral("version"), 1}};
        const Result<qint64> id = db.createRun(run);
        if (!id)
            qFatal("%s", qPrintable(id.error().toString()));
        RunWriter writer(db.path(), id.value(), 3600 * 1000);
        if (!writer.start().ok())
            qFatal("the fixture's writer does not start");
        QList<MetricPoint> rows;
        for (int step = 1; step <= kRowsPerRun / 4; ++step)
            for (const char *name : {"train/loss", "train/accuracy", "val/loss", "val/accuracy"})
                rows.append({QString::fromLatin1(name), step, step / 250, step * 0.013, double(float(std::exp(-step / 900.0) + r * 1e-3))});
        writer.appendMetrics(rows);
        if (!writer.finish(RunStatus::Finished).ok())
            qFatal("the fixture's rows were not written");
        ids << id.value();
    }
    return ids;
}

} // namespace

void benchMetricsCsvExport(const GuiOptions &options, Report &report)
{
    std::fprintf(stderr, "metrics as CSV\n");
    QTemporaryDir folder;
    const QString dbPath = folder.filePath(QStringLiteral("runs.sqlite"));
    Result<std::unique_ptr<RunDatabase>> db = RunDatabase::open(dbPath);
    if (!db)
        qFatal("%s", qPrintable(db.error().toString()));
    const QList<qint64> ids = writeRuns(*db.value());
    const QString label = QStringLiteral("%1 runs x %2 rows").arg(kRuns).arg(kRowsPerRun);

    QList<double> direct;
    for (int i = 0; i < (options.quick ? 1 : 3); ++i) {
        const double start = now();
        const Result<qint64> rows = writeLongFormMetricsCsv(*db.value(), ids, folder.filePath(QStringLiteral("direct.csv")));
        direct << (now() - start) * 1000;
        if (!rows || rows.value() != qint64(kRuns) * kRowsPerRun)
            qFatal("the export wrote %lld rows", rows ? rows.value() : -1LL);
    }
    const double directMs = median(direct);
    report.add(kSection, QStringLiteral("metrics as CSV, %1, on the calling thread (median)").arg(label), directMs, QStringLiteral("ms"));
    report.add(kSection, QStringLiteral("metrics as CSV, %1, file size").arg(label),
               double(QFileInfo(folder.filePath(QStringLiteral("direct.csv"))).size()) / (1 << 20), QStringLiteral("MB"));

    RunBrowser browser;
    browser.resize(1280, 800);
    browser.show();
    if (!browser.openDatabase(dbPath).ok())
        qFatal("the browser does not open the fixture");
    processPendingEvents();
    bool done = false;
    QObject::connect(&browser, &RunBrowser::metricsExported, [&done] { done = true; });
    double lastTick = now(), longest = 0;
    QTimer ticker;
    ticker.setTimerType(Qt::PreciseTimer);
    QObject::connect(&ticker, &QTimer::timeout, [&] {
        longest = std::max(longest, now() - lastTick);
        lastTick = now();
    });
    ticker.start(5);
    const double start = now();
    lastTick = start;
    if (!browser.exportMetricsCsv(ids, folder.filePath(QStringLiteral("browser.csv"))))
        qFatal("the browser's export does not start: %s", qPrintable(browser.statusText()));
    QElapsedTimer limit;
    limit.start();
    while (!done && limit.elapsed() < 120000)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    const double totalMs = (now() - start) * 1000;
    longest = std::max(longest, now() - lastTick) * 1000;
    if (!done)
        qFatal("the browser's export did not finish");
    report.add(kSection, QStringLiteral("metrics as CSV, %1, from the run browser: the file written").arg(label), totalMs, QStringLiteral("ms"));
    report.add(kSection, QStringLiteral("longest event-loop turn while the run browser exports"), longest, QStringLiteral("ms"),
               QStringLiteral("<= 50"), longest <= 50);
}

} // namespace ty::bench
