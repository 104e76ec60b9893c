// Time to first step: a fresh `trainyard-cli run` of the MLP preset until its first training step is done, beside
// the PyTorch script's (python3, import torch, read the gzipped IDX files, one step) and a program that only loads
// LibTorch. Each a new process, taking turns; medians.

#include "bench_sections.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

namespace ty::bench {

namespace {

// Seconds from the start of `trainyard-cli run` to the end of its first step: when its "started" event came, plus
// the first metric row's time (seconds since that event). -1 when it fails.
double trainyardFirstStep(const QString &db, bool *ahead)
{
    QProcess process;
    const double start = now();
    process.start(QStringLiteral(TRAINYARD_CLI),
                  {QStringLiteral("run"), QStringLiteral(TRAINYARD_SOURCE_DIR "/presets/fashion-mnist-mlp.trainyard.json"), QStringLiteral("--db"), db,
                   QStringLiteral("--events"), QStringLiteral("--quiet"), QStringLiteral("--set"), QStringLiteral("training.epochs=1")});
    double started = -1, first = -1;
    while (first < 0 && process.waitForReadyRead(60000)) {
        while (process.canReadLine()) {
            const QJsonObject event = QJsonDocument::fromJson(process.readLine()).object();
            const QString kind = event.value(QStringLiteral("event")).toString();
            if (kind == QStringLiteral("started")) {
                started = now() - start;
                *ahead = event.value(QStringLiteral("data_loaded_ahead")).toBool();
            } else if (kind == QStringLiteral("metrics") && started >= 0) {
                first = started + event.value(QStringLiteral("rows")).toArray().at(0).toArray().at(3).toDouble();
                break;
            }
        }
    }
    process.kill();
    process.waitForFinished(-1);
    return first;
}

// Seconds from the start of the PyTorch script to its "first step" line; -1 when it fails.
double pytorchFirstStep()
{
    const QString interpreter = qEnvironmentVariableIsEmpty("TRAINYARD_BENCH_PYTHON") ? QStringLiteral("/usr/bin/python3")
                                                                                       : qEnvironmentVariable("TRAINYARD_BENCH_PYTHON");
    QProcess process;
    const double start = now();
    process.start(interpreter, {QStringLiteral(TRAINYARD_SOURCE_DIR "/tests/benchmarks/pytorch_reference.py"), QStringLiteral("--first-step")});
    while (process.waitForReadyRead(60000))
        if (process.canReadLine() && process.readLine().startsWith("first step")) {
            const double seconds = now() - start;
            process.waitForFinished(-1);
            return seconds;
        }
    process.waitForFinished(-1);
    return -1;
}

double floorTime()
{
    QProcess process;
    const double start = now();
    process.start(QStringLiteral(TORCH_LOAD_FLOOR), {});
    process.waitForFinished(-1);
    return now() - start;
}

} // namespace

void benchStartup(const Options &options, Report &report)
{
    std::fprintf(stderr, "time to first step\n");
    QTemporaryDir dir;
    QList<double> engine, script, floors;
    int ahead = 0;
    for (int i = 0; i < (options.quick ? 2 : 7); ++i) {
        bool loadedAhead = false;
        const double ours = trainyardFirstStep(dir.filePath(QStringLiteral("runs-%1.sqlite").arg(i)), &loadedAhead);
        if (ours < 0)
            qFatal("trainyard-cli run of the MLP preset did not reach its first step");
        engine << ours;
        ahead += loadedAhead ? 1 : 0;
        if (const double theirs = pytorchFirstStep(); theirs >= 0)
            script << theirs;
        floors << floorTime();
    }
    const double ours = median(engine);
    report.add(QStringLiteral("startup"), QStringLiteral("`trainyard-cli run` of the MLP preset to its first step (median)"), ours * 1000,
               QStringLiteral("ms"), QStringLiteral("<= 400"), ours <= 0.4);
    report.add(QStringLiteral("startup"), QStringLiteral("runs whose data set decoded while LibTorch loaded"), ahead,
               QStringLiteral("of %1").arg(engine.size()), QStringLiteral("all"), ahead == engine.size());
    if (!script.isEmpty()) {
        const double theirs = median(script);
        report.add(QStringLiteral("startup"), QStringLiteral("the PyTorch script to its first step (median)"), theirs * 1000, QStringLiteral("ms"));
        report.add(QStringLiteral("startup"), QStringLiteral("engine / PyTorch script, time to first step"), ours / theirs, QStringLiteral("x"),
                   QStringLiteral("<= 1"), ours <= theirs);
    }
    report.add(QStringLiteral("startup"), QStringLiteral("a program that only loads LibTorch and runs one op (median)"), median(floors) * 1000,
               QStringLiteral("ms"));
}

} // namespace ty::bench
