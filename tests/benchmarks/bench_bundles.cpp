// Run bundles as a user meets them: `trainyard-cli runs export 1..100 --bundle FILE` of 100 finished runs of
// 10,000 metric rows each, then `trainyard-cli runs import FILE --db NEW` into a new database (the target:
// <= 2 s) and once more into the same one (nothing is added), whole processes, median of three.

#include "bench_process.h"
#include "bench_sections.h"

#include "run_database.h"
#include "run_writer.h"

#include <QFileInfo>
#include <QTemporaryDir>

#include <cstdio>

namespace ty::bench {

namespace {

constexpr int kRuns = 100;
constexpr int kRowsPerRun = 10000;

// 100 finished runs of the MLP preset, each with 10,000 rows: four metrics of 2,500 steps.
QString writeSourceDatabase(const QString &folder)
{
    const QString path = folder + QStringLiteral("/source.sqlite");
    auto db = RunDatabase::open(path);
    if (!db)
        qFatal("%s", qPrintable(db.error().toString()));
    const QStringList names = {QStringLiteral("train/loss"), QStringLiteral("train/accuracy"), QStringLiteral("val/loss"),
                               QStringLiteral("val/accuracy")};
    for (int r = 0; r < kRuns; ++r) {
        NewRun newRun;
        newRun.name = QStringLiteral("run %1").arg(r);
        newRun.preset = QJsonObject{{QStringLiteral("name"), newRun.name}};
        const qint64 id = db.value()->createRun(newRun).value();
        RunWriter writer(path, id, 3600 * 1000);
        if (!writer.start().ok())
            qFatal("cannot start a run writer");
        for (int step = 1; step <= kRowsPerRun / names.size(); ++step) {
            for (int n = 0; n < names.size(); ++n)
                writer.appendMetric(MetricPoint{names[n], step, step / 430, step * 0.002, 1.0 / (step + n)});
        }
        if (!writer.finish(RunStatus::Finished).ok())
            qFatal("cannot finish a run");
    }
    return path;
}

double timed(const QStringList &arguments, const char *what)
{
    const ProcessRun run = runCli(arguments);
    if (!run.ok)
        qFatal("%s failed: %s", what, qPrintable(run.output.left(400)));
    return run.seconds;
}

} // namespace

void benchBundles(const Options &options, Report &report)
{
    std::fprintf(stderr, "run bundles\n");
    QTemporaryDir folder;
    const QString source = writeSourceDatabase(folder.path());
    const QString bundle = folder.filePath(QStringLiteral("runs.tybundle"));
    QStringList exportArguments{QStringLiteral("runs"), QStringLiteral("export")};
    for (int id = 1; id <= kRuns; ++id)
        exportArguments << QString::number(id);
    exportArguments << QStringLiteral("--bundle") << bundle << QStringLiteral("--db") << source;

    QList<double> exports, imports, again;
    const int repeats = options.quick ? 1 : 3;
    for (int i = 0; i < repeats; ++i) {
        exports << timed(exportArguments, "runs export");
        const QString target = folder.filePath(QStringLiteral("target-%1.sqlite").arg(i));
        imports << timed({QStringLiteral("runs"), QStringLiteral("import"), bundle, QStringLiteral("--db"), target}, "runs import");
        again << timed({QStringLiteral("runs"), QStringLiteral("import"), bundle, QStringLiteral("--db"), target}, "runs import again");
    }
    const double mb = QFileInfo(bundle).size() / 1e6;
    const QString what = QStringLiteral("%1 runs of %2 metric rows").arg(kRuns).arg(kRowsPerRun);
    report.add(QStringLiteral("bundles"), QStringLiteral("`runs export --bundle`, %1, whole process (median)").arg(what),
               median(exports) * 1000, QStringLiteral("ms"), QString(), true);
    report.add(QStringLiteral("bundles"), QStringLiteral("bundle size, %1").arg(what), mb, QStringLiteral("MB"), QString(), true);
    const double importMs = median(imports) * 1000;
    report.add(QStringLiteral("bundles"), QStringLiteral("`runs import` into a new database, %1, whole process (median)").arg(what),
               importMs, QStringLiteral("ms"), QStringLiteral("<= 2000"), importMs <= 2000);
    report.add(QStringLiteral("bundles"), QStringLiteral("`runs import` of the same bundle again (nothing added), whole process (median)"),
               median(again) * 1000, QStringLiteral("ms"), QString(), true);
}

} // namespace ty::bench
