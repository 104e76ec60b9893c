// Metric logging: training with and without the database writer, and the writer's own rows per second.

#include "bench_sections.h"
#include "engine_run.h"
#include "run_database.h"
#include "run_writer.h"

#include <QTemporaryDir>

namespace ty::bench {

namespace {

// Rows per second committed by a RunWriter into a fresh database: `rows` metric rows appended from this thread in
// chunks of 100, timed until finish() returns (every row committed).
double writerRowsPerSecond(int rows)
{
    QTemporaryDir dir;
    const QString dbPath = dir.filePath(QStringLiteral("runs.sqlite"));
    Result<std::unique_ptr<RunDatabase>> db = RunDatabase::open(dbPath);
    NewRun run;
    run.name = QStringLiteral("writer benchmark");
    const qint64 id = db.value()->createRun(run).value();
    RunWriter writer(dbPath, id);
    writer.start();
    const double start = now();
    QList<MetricPoint> chunk;
    for (int i = 0; i < rows; ++i) {
        chunk.append(MetricPoint{QStringLiteral("train/loss"), i, 1, i * 0.001, 1.0 / (i + 1)});
        if (chunk.size() == 100) {
            writer.appendMetrics(chunk);
            chunk.clear();
        }
    }
    writer.finish(RunStatus::Finished);
    return rows / (now() - start);
}

} // namespace

void benchLogging(const Options &options, Report &report)
{
    std::fprintf(stderr, "logging\n");
    // The overhead is the difference of two throughputs that each move by several percent from run to run, so
    // this figure takes more samples than the others: best of 7 pairs, interleaved, in alternating order.
    const int steps = options.quick ? 300 : 2000;
    const int pairs = options.quick ? 1 : std::max(options.repeats, 7);
    double with = 0, without = 0;
    const auto measure = [&](bool database) {
        const double rate = engineSamplesPerSecond(QStringLiteral("fashion-mnist-mlp"), 16, 100, steps, database);
        (database ? with : without) = std::max(database ? with : without, rate);
    };
    for (int i = 0; i < pairs; ++i) {
        measure(i % 2 == 0);
        measure(i % 2 != 0);
    }
    report.add(QStringLiteral("logging"), QStringLiteral("MLP, batch 16: engine without the database"), without, QStringLiteral("samples/s"));
    report.add(QStringLiteral("logging"), QStringLiteral("MLP, batch 16: engine writing every metric to the database"), with,
               QStringLiteral("samples/s"));
    const double overhead = std::max(0.0, 1.0 - with / without) * 100;
    report.add(QStringLiteral("logging"), QStringLiteral("logging overhead"), overhead, QStringLiteral("%"), QStringLiteral("< 1"), overhead < 1.0);
    const double engineStep = 16.0 / with;
    const double dataShare = report.value(QStringLiteral("batch_seconds")) * 16.0 / 128.0 / engineStep * 100;
    if (report.value(QStringLiteral("batch_seconds")) > 0)
        report.add(QStringLiteral("data"), QStringLiteral("share of an MLP batch-16 step spent drawing its batch"), dataShare,
                   QStringLiteral("%"), QStringLiteral("< 1"), dataShare < 1.0);

    // The writer alone: a million metric rows from the training thread, committed in batches; best of the repeats.
    double rate = 0;
    for (int i = 0; i < options.repeats; ++i)
        rate = std::max(rate, writerRowsPerSecond(options.quick ? 200000 : 1000000));
    report.add(QStringLiteral("logging"), QStringLiteral("run writer, rows committed per second"), rate, QStringLiteral("rows/s"),
               QStringLiteral(">= 500000"), rate >= 500000);
}

} // namespace ty::bench
