// Evaluate view: a run evaluated on a test split of 10,000 samples and 10 classes (the size of Fashion-MNIST's),
// stored as a finished run stores it; showing it in EvaluationView until painted (confusion matrix, per-class
// table, mistakes), then a confusion cell's samples listed. The thumbnails' data loads in the background and is
// not part of the time (it depends on the data set; the fixture's preset names a folder with no data).

#include "bench_gui_sections.h"

#include "classification_scores.h"
#include "evaluation_records.h"
#include "evaluation_view.h"
#include "run_database.h"

#include <QJsonArray>
#include <QListWidget>
#include <QTemporaryDir>

#include <random>

namespace ty::bench {

namespace {

constexpr int kSamples = 10000;
constexpr int kClasses = 10;
const QString kSection = QStringLiteral("evaluate");

// A run with one stored evaluation of kSamples samples: logits that favour the true class, so the matrix has a
// strong diagonal and a few thousand mistakes.
qint64 writeEvaluatedRun(RunDatabase &db)
{
    NewRun run;
    run.name = QStringLiteral("evaluated");
    run.preset = QJsonObject{{QStringLiteral("format"), QStringLiteral("trainyard-preset")}, {QStringLiteral("version"), 1},
                             {QStringLiteral("name"), QStringLiteral("evaluated")}, {QStringLiteral("nodes"), QJsonArray()},
                             {QStringLiteral("edges"), QJsonArray()}};
    const qint64 id = db.createRun(run).value();
    std::mt19937 random(7);
    std::normal_distribution<float> noise(0.0f, 1.0f);
    std::vector<float> logits(size_t(kSamples * kClasses));
    std::vector<int64_t> labels(kSamples);
    for (int i = 0; i < kSamples; ++i) {
        labels[size_t(i)] = i % kClasses;
        for (int c = 0; c < kClasses; ++c)
            logits[size_t(i * kClasses + c)] = noise(random) + (c == labels[size_t(i)] ? 2.0f : 0.0f);
    }
    EvaluationReport report;
    report.split = QStringLiteral("test");
    report.checkpointStep = 4690;
    scoreClassification(logits, labels, kClasses, {}, 5, &report);
    if (!db.addEvaluation(evaluationRecordOf(id, report), evaluationSampleRowsOf(report)))
        qFatal("cannot store the fixture's evaluation");
    return id;
}

} // namespace

void benchEvaluateView(const GuiOptions &options, Report &report)
{
    std::fprintf(stderr, "evaluate view\n");
    QTemporaryDir folder;
    std::unique_ptr<RunDatabase> db = std::move(RunDatabase::open(folder.filePath(QStringLiteral("runs.sqlite"))).value());
    const qint64 id = writeEvaluatedRun(*db);

    const int repeats = options.quick ? 3 : 9;
    QList<double> open, cell;
    for (int i = 0; i < repeats; ++i) {
        EvaluationView view;
        view.resize(1600, 900);
        view.show();
        view.setDatabase(db.get());
        processPendingEvents();
        double start = now();
        if (!view.showRun(id))
            qFatal("the evaluation does not show");
        processPendingEvents();
        open << (now() - start) * 1000;
        start = now();
        view.showCell(3, 5);
        processPendingEvents();
        cell << (now() - start) * 1000;
        if (view.gallery()->count() == 0 && view.report().confusionAt(3, 5) > 0)
            qFatal("the cell's samples are not listed");
    }
    const double openMs = median(open), cellMs = median(cell);
    report.add(kSection, QStringLiteral("show a run evaluated on %1 samples, painted (median of %2)").arg(kSamples).arg(repeats), openMs,
               QStringLiteral("ms"), QStringLiteral("<= 500"), openMs <= 500);
    report.add(kSection, QStringLiteral("list one confusion cell's samples, painted (median of %1)").arg(repeats), cellMs, QStringLiteral("ms"),
               QStringLiteral("<= 100"), cellMs <= 100);
}

} // namespace ty::bench
