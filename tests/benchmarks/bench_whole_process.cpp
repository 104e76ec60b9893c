// Whole processes, as a user feels them: `trainyard-cli run` of the bundled Fashion-MNIST presets against the
// PyTorch script doing the same work (tests/benchmarks/pytorch_reference.py --whole: start-up, reading the data,
// training, validation after each epoch, the test split, the metric rows recorded in SQLite), taking turns, best
// of three; and how the first epoch's steps compare with the second's (the first epoch ran six times slower
// before the allocator was set up for training: core/common/host_allocator.h).

#include "bench_process.h"
#include "bench_sections.h"

#include "run_database.h"

#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>

namespace ty::bench {

namespace {

const QString kSection = QStringLiteral("process");

struct Case {
    QString model;     // "mlp" or "cnn": the preset and the script's --model
    int epochs = 1;
    double atLeast = 0;  // target for script / trainyard wall time; 0: none
};

QString presetOf(const QString &model)
{
    return QStringLiteral(TRAINYARD_SOURCE_DIR "/presets/fashion-mnist-%1.trainyard.json").arg(model);
}

QString python()
{
    return qEnvironmentVariableIsEmpty("TRAINYARD_BENCH_PYTHON") ? QStringLiteral("/usr/bin/python3") : qEnvironmentVariable("TRAINYARD_BENCH_PYTHON");
}

// The mean time of a step in each epoch of the newest run in `db` (seconds), from its train/loss rows: the time
// from the epoch's first logged step to its last over the steps between (the rows' times are whole
// milliseconds, so single gaps are too coarse). Indexed by epoch - 1; empty when the database cannot be read.
QList<double> stepSecondsByEpoch(const QString &db)
{
    Result<std::unique_ptr<RunDatabase>> opened = RunDatabase::open(db);
    if (!opened)
        return {};
    const Result<QList<RunInfo>> runs = opened.value()->listRuns();
    if (!runs || runs.value().isEmpty())
        return {};
    const Result<QList<MetricPoint>> rows = opened.value()->metrics(runs.value().first().id, QStringLiteral("train/loss"));
    if (!rows)
        return {};
    QList<double> means;
    for (int first = 0; first < rows.value().size();) {
        int last = first;
        while (last + 1 < rows.value().size() && rows.value().at(last + 1).epoch == rows.value().at(first).epoch)
            ++last;
        const MetricPoint &a = rows.value().at(first), &b = rows.value().at(last);
        if (b.step > a.step)
            means.append((b.time - a.time) / double(b.step - a.step));
        first = last + 1;
    }
    return means;
}

// The fastest of a case's processes, with its step times per epoch.
struct Best {
    ProcessRun run;  // not ok until one is offered
    QList<double> stepSeconds;
    void offer(const ProcessRun &candidate, const QList<double> &steps)
    {
        if (!run.ok || candidate.seconds < run.seconds) {
            run = candidate;
            stepSeconds = steps;
        }
    }
};

void benchCase(const Case &c, int repeats, const QString &folder, Report &report)
{
    Best ours, theirs;
    for (int i = 0; i < repeats; ++i) {
        // A new database each time: a user's first run of the day pays for creating it.
        const QString db = QDir(folder).filePath(QStringLiteral("%1-%2-%3.sqlite").arg(c.model).arg(c.epochs).arg(i));
        const ProcessRun run = runCli({QStringLiteral("run"), presetOf(c.model), QStringLiteral("--db"), db, QStringLiteral("--quiet"),
                                       QStringLiteral("--set"), QStringLiteral("training.epochs=%1").arg(c.epochs)});
        if (!run.ok)
            qFatal("trainyard-cli run of the %s preset failed: %s", qPrintable(c.model), qPrintable(run.output.right(400)));
        ours.offer(run, stepSecondsByEpoch(db));

        const QString scriptDb = QDir(folder).filePath(QStringLiteral("script-%1-%2-%3.sqlite").arg(c.model).arg(c.epochs).arg(i));
        const ProcessRun script = runProcess(python(), {QStringLiteral(TRAINYARD_SOURCE_DIR "/tests/benchmarks/pytorch_reference.py"),
                                                        QStringLiteral("--whole"), QStringLiteral("--model"), c.model, QStringLiteral("--epochs"),
                                                        QString::number(c.epochs), QStringLiteral("--db"), scriptDb});
        if (!script.ok) {
            std::fprintf(stderr, "  the PyTorch script failed (python3-torch installed?): %s\n", qPrintable(script.output.right(400)));
            continue;
        }
        const QJsonObject result = QJsonDocument::fromJson(script.output.section(QLatin1Char('\n'), -2).toUtf8()).object();
        QList<double> steps;
        for (const QJsonValue &seconds : result.value(QStringLiteral("step_seconds")).toArray())
            steps.append(seconds.toDouble());
        theirs.offer(script, steps);
    }
    const QString what = QStringLiteral("%1, %2 epoch%3").arg(c.model.toUpper()).arg(c.epochs).arg(c.epochs == 1 ? QString() : QStringLiteral("s"));
    report.add(kSection, QStringLiteral("%1: `trainyard-cli run`, whole process (best of %2)").arg(what).arg(repeats), ours.run.seconds, QStringLiteral("s"));
    report.add(kSection, QStringLiteral("%1: `trainyard-cli run`, minor page faults").arg(what), double(ours.run.minorFaults), QStringLiteral("faults"));
    if (theirs.run.ok) {
        report.add(kSection, QStringLiteral("%1: PyTorch script, whole process (best of %2)").arg(what).arg(repeats), theirs.run.seconds, QStringLiteral("s"));
        report.add(kSection, QStringLiteral("%1: PyTorch script, minor page faults").arg(what), double(theirs.run.minorFaults), QStringLiteral("faults"));
    }
    if (theirs.run.ok) {
        const double faster = theirs.run.seconds / ours.run.seconds;
        if (c.atLeast > 0)
            report.addRatio(kSection, QStringLiteral("%1: times faster than the PyTorch script (its time / trainyard-cli's)").arg(what), faster, c.atLeast);
        else
            report.add(kSection, QStringLiteral("%1: times faster than the PyTorch script (its time / trainyard-cli's)").arg(what), faster, QStringLiteral("x"));
    }
    if (ours.stepSeconds.size() >= 2) {
        const double ratio = ours.stepSeconds.at(0) / ours.stepSeconds.at(1);
        report.add(kSection, QStringLiteral("%1: trainyard-cli step time, epoch 1 / epoch 2 (%2 / %3 ms)").arg(what)
                                 .arg(ours.stepSeconds.at(0) * 1000, 0, 'f', 3).arg(ours.stepSeconds.at(1) * 1000, 0, 'f', 3),
                   ratio, QStringLiteral("x"), QStringLiteral("<= 1.1"), ratio <= 1.1);
    }
    if (theirs.stepSeconds.size() >= 2)
        report.add(kSection, QStringLiteral("%1: PyTorch script step time, epoch 1 / epoch 2").arg(what),
                   theirs.stepSeconds.at(0) / theirs.stepSeconds.at(1), QStringLiteral("x"));
}

} // namespace

void benchWholeProcess(const Options &options, Report &report)
{
    std::fprintf(stderr, "whole processes\n");
    if (!QDir(QStringLiteral("/usr/share/datasets/fashion-mnist")).exists()) {
        std::fprintf(stderr, "  skipped: needs Fashion-MNIST (dataset-fashion-mnist)\n");
        return;
    }
    QTemporaryDir folder;
    const int repeats = options.quick ? 1 : 3;
    for (const Case &c : {Case{QStringLiteral("mlp"), 1, 2.0}, Case{QStringLiteral("mlp"), 5, 1.6}, Case{QStringLiteral("cnn"), 1, 0}})
        benchCase(c, repeats, folder.path(), report);
}

} // namespace ty::bench
