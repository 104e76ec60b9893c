// Stage boundaries on the curves: a run trained in stages, read from its run database, shows a labelled vertical
// line where each stage after the first begins, on every x axis; a running run gets its lines as its stages
// begin (read again with its new rows).

#include "test_suite.h"
#include "plots/metric_plot.h"
#include "plots/qcustomplot_include.h"
#include "plots/run_metrics_feed.h"
#include "run_writer.h"
#include "runs/run_browser.h"
#include "training/training_panel.h"
#include "training_ui_support.h"

#include <QtTest>

using namespace ty;
using tytest::RunsFixture;

namespace {

// train/loss rows for steps [from, to], 20 steps an epoch, half a second a step.
QList<MetricPoint> stageLossRows(qint64 from, qint64 to)
{
    QList<MetricPoint> rows;
    for (qint64 step = from; step <= to; ++step)
        rows.append({QStringLiteral("train/loss"), step, int(1 + (step - 1) / 20), step * 0.5, 1.0 / double(step)});
    return rows;
}

// The plot's stage lines and labels, as drawn: "name@x" for each shown mark.
QStringList drawnMarks(MetricPlot *plot, qint64 runId)
{
    plot->replotNow();
    QStringList drawn;
    for (const MetricPlot::StageMark &mark : plot->stageMarks(runId)) {
        if (!mark.line->visible() || !mark.label->visible())
            continue;
        const double x = mark.line->point1->coords().x();
        if (mark.line->point2->coords().x() != x || mark.label->position->coords().x() != x)
            return {QStringLiteral("line and label apart")};
        drawn << QStringLiteral("%1@%2").arg(mark.label->text()).arg(x);
    }
    return drawn;
}

} // namespace

class TestStageMarks : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void finishedRunShowsItsStages();
    void runningRunGetsStagesAsTheyBegin();
};

void TestStageMarks::finishedRunShowsItsStages()
{
    RunsFixture f;
    QVERIFY(f.open());
    const qint64 id = f.createRun(QStringLiteral("staged"));
    {
        RunWriter writer(f.path, id, 3600 * 1000);
        QVERIFY(writer.start().ok());
        writer.recordStage({0, QStringLiteral("head"), 0, -1, 0, 2, {QStringLiteral("fc1")}});
        writer.appendMetrics(stageLossRows(1, 40));
        writer.recordStage({1, QStringLiteral("all"), 40, -1, 2, 3, {}});
        writer.appendMetrics(stageLossRows(41, 100));
        writer.recordStage({1, {}, 0, 100});
        QVERIFY(writer.finish(RunStatus::Finished).ok());
    }
    const qint64 plain = f.addRun(QStringLiteral("plain"), RunStatus::Finished, 30);

    TrainingPanel panel;
    QVERIFY(panel.openDatabase(f.path).ok());
    panel.browser()->selectRuns({id, plain});
    QCOMPARE(panel.plottedRuns().size(), 2);
    MetricPlot *plot = panel.lossPlot();
    // One line: the first stage begins at step 0, with the curve.
    QCOMPARE(drawnMarks(plot, id), QStringList{QStringLiteral("all@40")});
    QCOMPARE(drawnMarks(panel.metricPlot(), id), QStringList{QStringLiteral("all@40")});
    QVERIFY(plot->stageMarks(plain).isEmpty());
    const MetricPlot::StageMark mark = plot->stageMarks(id).value(0);
    QVERIFY(plot->customPlot()->hasItem(mark.line) && plot->customPlot()->hasItem(mark.label));
    QCOMPARE(mark.line->pen().color(), plot->runColor(id));
    // At the top of the chart, whatever the data's range.
    QCOMPARE(mark.line->point1->coords().y(), 0.0);
    QCOMPARE(mark.line->point2->coords().y(), 1.0);
    QVERIFY(mark.label->position->coords().y() < 0.1);

    plot->setXAxis(PlotXAxis::Epoch);  // 20 steps an epoch: the stage begins after epoch 2
    QCOMPARE(drawnMarks(plot, id), QStringList{QStringLiteral("all@2")});
    plot->setXAxis(PlotXAxis::WallTime);  // at the time of step 40
    QCOMPARE(drawnMarks(plot, id), QStringList{QStringLiteral("all@20")});
    plot->setLogY(true);
    QCOMPARE(drawnMarks(plot, id), QStringList{QStringLiteral("all@20")});

    // Unselected, the run and its lines go.
    const int items = plot->customPlot()->itemCount();
    panel.browser()->selectRuns({plain});
    QVERIFY(plot->stageMarks(id).isEmpty());
    QCOMPARE(plot->customPlot()->itemCount(), items - 2);
}

void TestStageMarks::runningRunGetsStagesAsTheyBegin()
{
    RunsFixture f;
    QVERIFY(f.open());
    const qint64 id = f.createRun(QStringLiteral("live"));
    RunWriter writer(f.path, id, 3600 * 1000);
    QVERIFY(writer.start().ok());
    writer.recordStage({0, QStringLiteral("warmup"), 0, -1, 0, 1, {}});
    writer.appendMetrics(stageLossRows(1, 20));
    QVERIFY(writer.flush().ok());

    TrainingPanel panel;
    panel.resize(1400, 800);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QVERIFY(panel.openDatabase(f.path).ok());
    panel.browser()->selectRuns({id});
    MetricPlot *plot = panel.lossPlot();
    QCOMPARE(plot->sampleCount(id, QStringLiteral("train/loss")), qint64(20));
    QVERIFY(drawnMarks(plot, id).isEmpty());

    writer.recordStage({1, QStringLiteral("head"), 20, -1, 1, 1, {QStringLiteral("fc1")}});
    writer.appendMetrics(stageLossRows(21, 44));
    writer.recordStage({2, QStringLiteral("all"), 45, -1, 2, 1, {}});
    writer.appendMetrics(stageLossRows(45, 45));
    QVERIFY(writer.flush().ok());
    panel.feed()->poll();
    QCOMPARE(plot->sampleCount(id, QStringLiteral("train/loss")), qint64(45));
    QCOMPARE(drawnMarks(plot, id), (QStringList{QStringLiteral("head@20"), QStringLiteral("all@45")}));
    // A stage that just began is at the chart's right edge: its name goes left of its line, where it can be read.
    QCOMPARE(plot->stageMarks(id).value(0).label->positionAlignment(), Qt::AlignTop | Qt::AlignLeft);
    QCOMPARE(plot->stageMarks(id).value(1).label->positionAlignment(), Qt::AlignTop | Qt::AlignRight);

    // Nothing new: the marks are not rebuilt.
    const MetricPlot::StageMark before = plot->stageMarks(id).value(1);
    panel.feed()->poll();
    QCOMPARE(plot->stageMarks(id).value(1).line, before.line);
    QVERIFY(writer.finish(RunStatus::Finished).ok());
}

TY_TEST_CLASS(TestStageMarks)

#include "test_stage_marks.moc"
