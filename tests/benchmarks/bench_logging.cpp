// Metric logging: training with and without the database writer, and the writer's own rows per second; training
// with and without a live TensorBoard file beside the database, and the file's own rows per second.

#include "bench_sections.h"
#include "engine_run.h"
#include "run_database.h"
#include "run_writer.h"
#include "tensorboard_event_file.h"

#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>
#include <QtEndian>

#include <cstdio>

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

// Rows per second appended to a live TensorBoard file: `rows` metric rows in batches of 5,000 (a second of a fast
// run's rows), each batch one write, as RunWriter's writer thread hands them over.
double tensorBoardRowsPerSecond(int rows)
{
    QTemporaryDir dir;
    Result<std::unique_ptr<TensorBoardEventFile>> file =
        TensorBoardEventFile::create(dir.filePath(QStringLiteral("1-bench")), QDateTime::currentDateTimeUtc(), QStringLiteral("bench"));
    if (!file)
        qFatal("%s", qPrintable(file.error().toString()));
    std::vector<MetricPoint> batch;
    const double start = now();
    for (int i = 0; i < rows; ++i) {
        batch.push_back(MetricPoint{i % 2 ? QStringLiteral("train/loss") : QStringLiteral("train/accuracy"), i / 2, 1, i * 0.001, 1.0 / (i + 1)});
        if (batch.size() == 5000 || i + 1 == rows) {
            if (!file.value()->append(1.8e9, batch.data(), batch.size()))
                qFatal("cannot append to the benchmark's event file");
            batch.clear();
        }
    }
    return rows / (now() - start);
}

// The scalar records in the event files of `folder`'s run folders (the TFRecord framing walked, the first record of
// each file, file_version, left out).
qint64 eventRecords(const QString &folder)
{
    qint64 records = 0;
    QDirIterator files(folder, {QStringLiteral("events.out.tfevents.*")}, QDir::Files, QDirIterator::Subdirectories);
    while (files.hasNext()) {
        QFile file(files.next());
        if (!file.open(QIODevice::ReadOnly))
            continue;
        const QByteArray bytes = file.readAll();
        for (qsizetype at = 0; at + 12 <= bytes.size(); ++records)
            at += 12 + qsizetype(qFromLittleEndian<quint64>(bytes.constData() + at)) + 4;
        --records;
    }
    return records;
}

// Training with the database, with and without a live TensorBoard file: interleaved pairs in alternating order. The
// overhead is a difference of two noisy figures, so it is read from each pair's own ratio (the two runs of a pair
// see about the same machine), the median of them; beside it, the medians of each side.
void benchLiveTensorBoard(const Options &options, Report &report)
{
    const int steps = options.quick ? 300 : 2000;
    const int pairs = options.quick ? 1 : std::max(options.repeats, 9);
    QTemporaryDir board;
    QList<double> with, without, ratios;
    for (int i = 0; i < pairs; ++i) {
        double rate[2] = {0, 0};  // without, with
        for (const bool tensorBoard : {i % 2 == 0, i % 2 != 0})
            rate[tensorBoard] = engineSamplesPerSecond(QStringLiteral("fashion-mnist-mlp"), 16, 100, steps, true, QStringLiteral("cpu"),
                                                       tensorBoard ? board.path() : QString());
        without << rate[0];
        with << rate[1];
        ratios << rate[1] / rate[0];
        std::fprintf(stderr, "  pair %d: %.0f samples/s without, %.0f with a live TensorBoard file\n", i + 1, rate[0], rate[1]);
    }
    report.add(QStringLiteral("logging"), QStringLiteral("MLP, batch 16, with the database: engine without a live TensorBoard file (median)"),
               median(without), QStringLiteral("samples/s"));
    report.add(QStringLiteral("logging"), QStringLiteral("MLP, batch 16, with the database: engine with a live TensorBoard file (median)"), median(with),
               QStringLiteral("samples/s"));
    const double overhead = std::max(0.0, 1.0 - median(ratios)) * 100;
    report.add(QStringLiteral("logging"), QStringLiteral("live TensorBoard overhead (median of the pairs' ratios)"), overhead, QStringLiteral("%"),
               QStringLiteral("< 1"), overhead < 1.0);

    // What the file costs, apart from the machine's swings: its rows per training step, appended at the file's own
    // rate, against the time of a step.
    double rate = 0;
    for (int i = 0; i < options.repeats; ++i)
        rate = std::max(rate, tensorBoardRowsPerSecond(options.quick ? 200000 : 1000000));
    report.add(QStringLiteral("logging"), QStringLiteral("live TensorBoard file, rows appended per second"), rate, QStringLiteral("rows/s"));
    const double rowsPerStep = double(eventRecords(board.path())) / pairs / (100 + steps);  // one file a pair
    const double share = rowsPerStep / rate / (16.0 / median(with)) * 100;
    report.add(QStringLiteral("logging"),
               QStringLiteral("live TensorBoard file: writer-thread time for a step's rows (%1 rows), share of a step").arg(rowsPerStep, 0, 'f', 2), share,
               QStringLiteral("%"));
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

    benchLiveTensorBoard(options, report);
}

} // namespace ty::bench
