// The Evaluate view's Curves tab (issue 42): an evaluation stored with its curves shows every class's ROC and
// precision-recall curve with its area in the legend and the macro figures in the titles; a class chosen alone is
// drawn over the others in grey; a class without samples says why; an evaluation stored before the curves says so;
// the plots follow a dark palette.

#include "test_suite.h"
#include "training_ui_support.h"

#include "classifier_curves_view.h"
#include "evaluation_view.h"
#include "plots/qcustomplot_include.h"

#include "classification_scores.h"
#include "evaluation_report.h"

#include <QComboBox>
#include <QLabel>
#include <QTabWidget>
#include <QtTest>

#include <random>

using namespace ty;

namespace {

// An evaluation of `classes` classes over 300 samples whose logits favour the label, scored as the worker scores
// one; `missing` (if >= 0) is never a label.
qint64 addScoredEvaluation(RunDatabase &db, qint64 runId, int classes, int missing = -1)
{
    std::mt19937 random(7);
    std::normal_distribution<float> noise(0.0f, 1.0f);
    std::vector<float> logits;
    std::vector<int64_t> labels;
    for (int i = 0; i < 300; ++i) {
        int label = i % classes;
        if (label == missing)
            label = (label + 1) % classes;
        labels.push_back(label);
        for (int c = 0; c < classes; ++c)
            logits.push_back(noise(random) + (c == label ? 1.5f : 0.0f));
    }
    EvaluationReport report;
    report.split = QStringLiteral("test");
    report.checkpointStep = 10;
    QStringList names;
    for (int c = 0; c < classes; ++c)
        names << QStringLiteral("class %1").arg(c);
    scoreClassification(logits, labels, classes, names, 1, &report);
    return tytest::addClassificationEvaluation(db, runId, report);
}

} // namespace

class TestEvaluationCurves : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyClassHasItsCurveAndArea()
    {
        tytest::RunsFixture runs;
        QVERIFY(runs.open());
        const qint64 run = runs.createRun(QStringLiteral("mlp"));
        addScoredEvaluation(*runs.db, run, 4);
        EvaluationView view;
        view.resize(1280, 720);
        view.setDatabase(runs.db.get());
        QVERIFY(view.showRun(run).ok());
        const ClassifierCurves &curves = view.report().curves;
        QCOMPARE(curves.perClass.size(), 4);
        QVERIFY(curves.rocAuc && *curves.rocAuc > 0.7);
        QVERIFY2(view.summary()->text().contains(QStringLiteral("ROC AUC %1").arg(*curves.rocAuc, 0, 'f', 4)), qPrintable(view.summary()->text()));

        view.showCurves();
        QCOMPARE(view.tabs()->currentWidget(), view.curves());
        ClassifierCurvesView *shown = view.curves();
        QCOMPARE(shown->classChooser()->count(), 5);  // all, then each class
        QVERIFY2(shown->rocTitle().contains(QStringLiteral("macro AUC %1").arg(*curves.rocAuc, 0, 'f', 4)), qPrintable(shown->rocTitle()));
        // The diagonal and four classes; the legend names each with its area.
        QCOMPARE(shown->rocPlot()->plottableCount(), 5);
        const QStringList legend = shown->legendTexts(shown->rocPlot());
        QCOMPARE(legend.size(), 4);
        for (int c = 0; c < 4; ++c)
            QCOMPARE(legend[c], QStringLiteral("class %1  AUC %2").arg(c).arg(*curves.perClass[c].rocAuc, 0, 'f', 4));
        QVERIFY(shown->legendTexts(shown->precisionRecallPlot()).first().contains(QStringLiteral("AP ")));
        // Each curve holds the stored points.
        auto *first = qobject_cast<QCPCurve *>(shown->rocPlot()->plottable(1));
        QVERIFY(first);
        QCOMPARE(size_t(first->data()->size()), curves.perClass[0].roc.x.size());

        // One class: drawn over the other three in grey, its name and area in the title.
        shown->classChooser()->setCurrentIndex(3);
        Q_EMIT shown->classChooser()->activated(3);
        QCOMPARE(shown->shownClass(), 2);
        QCOMPARE(shown->rocPlot()->plottableCount(), 5);
        QCOMPARE(shown->legendTexts(shown->rocPlot()), QStringList{QStringLiteral("class 2  AUC %1").arg(*curves.perClass[2].rocAuc, 0, 'f', 4)});
        QVERIFY(shown->rocTitle().contains(QStringLiteral("class 2 against the rest")));
        auto *last = qobject_cast<QCPCurve *>(shown->rocPlot()->plottable(4));
        QVERIFY(last && last->pen().color().alphaF() == 1.0);
        QVERIFY(qobject_cast<QCPCurve *>(shown->rocPlot()->plottable(1))->pen().color().alphaF() < 0.5);
        shown->showClass(-1);
        QCOMPARE(shown->legendTexts(shown->rocPlot()).size(), 4);
        QVERIFY(shown->rocPlot()->legend->visible());
    }

    // Beyond kMaxLegendClasses classes the legend would cover the plot: all classes are drawn without it (the
    // chooser lists them with their areas), and one class chosen has its legend again.
    void manyClassesLeaveTheLegendToTheChooser()
    {
        tytest::RunsFixture runs;
        QVERIFY(runs.open());
        const qint64 run = runs.createRun(QStringLiteral("many"));
        const int classes = ClassifierCurvesView::kMaxLegendClasses + 3;
        addScoredEvaluation(*runs.db, run, classes);
        EvaluationView view;
        view.setDatabase(runs.db.get());
        QVERIFY(view.showRun(run).ok());
        ClassifierCurvesView *shown = view.curves();
        QCOMPARE(shown->classChooser()->count(), classes + 1);
        QVERIFY(shown->classChooser()->itemText(classes).contains(QStringLiteral("AUC 0.")));
        QCOMPARE(shown->rocPlot()->plottableCount(), classes + 1);
        QVERIFY(shown->legendTexts(shown->rocPlot()).isEmpty());
        QVERIFY(!shown->rocPlot()->legend->visible());
        shown->showClass(classes - 1);
        QCOMPARE(shown->legendTexts(shown->rocPlot()).size(), 1);
        QVERIFY(shown->rocPlot()->legend->visible());
    }

    void aMissingClassAndAnOldEvaluationSayWhy()
    {
        tytest::RunsFixture runs;
        QVERIFY(runs.open());
        const qint64 run = runs.createRun(QStringLiteral("mlp"));
        const qint64 withMissing = addScoredEvaluation(*runs.db, run, 3, 1);
        EvaluationView view;
        view.setDatabase(runs.db.get());
        QVERIFY(view.showEvaluation(withMissing).ok());
        ClassifierCurvesView *shown = view.curves();
        QVERIFY2(shown->summary()->text().contains(QStringLiteral("macro average is over 2 of 3 classes")), qPrintable(shown->summary()->text()));
        QVERIFY(shown->classChooser()->itemText(2).contains(QStringLiteral("no AUC")));
        shown->showClass(1);
        QVERIFY2(shown->summary()->text().contains(QStringLiteral("no sample of class \"class 1\"")), qPrintable(shown->summary()->text()));

        // Stored before the curves were: no curves, a note that says how to get them.
        QJsonObject old = evaluationToJson(view.report());
        for (const char *key : {"curves", "roc_auc", "average_precision", "auc_average", "auc_classes", "auc_note"})
            old.remove(QLatin1String(key));
        EvaluationRecord record;
        record.runId = run;
        record.split = QStringLiteral("val");
        record.checkpointStep = 3;
        record.task = QStringLiteral("classification");
        record.summary = old;
        const qint64 oldId = runs.db->addEvaluation(record, {}).value();
        QVERIFY(view.showEvaluation(oldId).ok());
        QVERIFY2(shown->summary()->text().contains(QStringLiteral("trainyard-cli evaluate")), qPrintable(shown->summary()->text()));
        QVERIFY(!shown->classChooser()->isEnabled());
        QCOMPARE(shown->rocPlot()->plottableCount(), 1);  // the diagonal alone
    }

    void theCurvesFollowADarkPalette()
    {
        ClassifierCurves curves;
        curves.rocAuc = 0.75;
        curves.averagePrecision = 0.5;
        curves.averagedClasses = 2;
        for (int c = 0; c < 2; ++c) {
            ClassCurves k;
            k.name = QStringLiteral("k%1").arg(c);
            k.index = c;
            k.rocAuc = 0.75;
            k.averagePrecision = 0.5;
            k.roc = CurvePoints{{0, 0, 0.5, 1}, {0, 0.5, 1, 1}};
            k.precisionRecall = CurvePoints{{0, 0.5, 1}, {1, 1, 0.5}};
            curves.perClass.append(k);
        }
        curves.binary = true;
        ClassifierCurvesView view;
        view.resize(900, 400);
        view.setPalette(tytest::darkPalette());
        view.setCurves(curves);
        QVERIFY(view.rocTitle().contains(QStringLiteral("class \"k1\" AUC 0.7500")));
        const QImage shot = view.rocPlot()->toPixmap(400, 300).toImage();
        // The background is the palette's dark base; the axis labels are light.
        QVERIFY2(shot.pixelColor(2, 2).lightnessF() < 0.2, qPrintable(shot.pixelColor(2, 2).name()));
        QVERIFY(view.rocPlot()->xAxis->labelColor().lightnessF() > 0.8);
        QVERIFY(view.rocPlot()->legend->textColor().lightnessF() > 0.8);
        // Back to light: the same plot turns white.
        view.setPalette(tytest::lightPalette());
        QVERIFY(view.rocPlot()->toPixmap(400, 300).toImage().pixelColor(2, 2).lightnessF() > 0.95);
    }
};

TY_TEST_CLASS(TestEvaluationCurves)

#include "test_evaluation_curves.moc"
