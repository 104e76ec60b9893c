// MetricPlot and its data: appending updates the graphs at once and the chart only on the replot timer; the
// smoothing math; x axes; the hover read-out; exports; a large series.

#include "test_suite.h"
#include "common/run_colors.h"
#include "plots/metric_plot.h"
#include "plots/metric_plot_panel.h"
#include "plots/qcustomplot_include.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace ty;

namespace {

QList<MetricPoint> lossRows(qint64 from, qint64 to, int stepsPerEpoch = 100)
{
    QList<MetricPoint> rows;
    for (qint64 step = from; step <= to; ++step)
        rows.append({QStringLiteral("train/loss"), step, int((step - 1) / stepsPerEpoch) + 1, step * 0.5, 10.0 / double(step)});
    return rows;
}

} // namespace

class TestMetricPlot : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void emaMath();
    void emaSkipsNonFinite();
    void appendUpdatesGraphsAtOnce();
    void replotIsTimerDriven();
    void onlyShownMetricsReachGraphs();
    void smoothingOffHasNoSmoothGraph();
    void incrementalSmoothingMatchesBatch();
    void xAxes();
    void epochAxisEstimate();
    void readout();
    void exports();
    void followsDataUntilUserMoves();
    void removeAndClearRuns();
    void panelChoosesMetrics();
    void manyPoints();
    void anEmptyPlotUsesItsWholeWidth();
};

void TestMetricPlot::emaMath()
{
    // Debiased EMA: s_n = w s_{n-1} + (1-w) v_n, shown as s_n / (1 - w^n).
    const std::vector<double> values{1.0, 3.0, 2.0, 6.0};
    const double w = 0.5;
    const std::vector<double> smoothed = emaSmooth(values, w);
    QCOMPARE(smoothed.size(), values.size());
    double s = 0, power = 1;
    for (size_t i = 0; i < values.size(); ++i) {
        s = w * s + (1 - w) * values[i];
        power *= w;
        QVERIFY2(std::abs(smoothed[i] - s / (1 - power)) < 1e-12, qPrintable(QString::number(i)));
    }
    QCOMPARE(smoothed[0], 1.0);               // the first point is the first value, not pulled to 0
    QCOMPARE(smoothed[1], (0.5 * 0.5 + 0.5 * 3) / (1 - 0.25));  // 2.333..., not the biased 1.75
    QCOMPARE(emaSmooth(values, 0.0), values);  // weight 0: raw
    const std::vector<double> constant(50, 4.25);
    for (double v : emaSmooth(constant, 0.99))
        QVERIFY(std::abs(v - 4.25) < 1e-9);     // a constant stays constant at any weight
}

void TestMetricPlot::emaSkipsNonFinite()
{
    const double nan = std::nan("");
    const std::vector<double> smoothed = emaSmooth({2.0, nan, 4.0}, 0.5);
    QCOMPARE(smoothed[0], 2.0);
    QVERIFY(std::isnan(smoothed[1]));                            // drawn as a gap
    QVERIFY(std::abs(smoothed[2] - (0.5 * 2 * 0.5 + 0.5 * 4) / 0.75) < 1e-12);  // as if the NaN were not there
}

void TestMetricPlot::appendUpdatesGraphsAtOnce()
{
    MetricPlot plot;
    plot.setMetrics({QStringLiteral("train/loss")});
    plot.addRun(1, QStringLiteral("#1 a"));
    QCOMPARE(plot.graphPointCount(1, QStringLiteral("train/loss")), 0);
    plot.appendPoints(1, lossRows(1, 100));
    QCOMPARE(plot.graphPointCount(1, QStringLiteral("train/loss")), 100);
    QCOMPARE(plot.graphPointCount(1, QStringLiteral("train/loss"), true), 100);
    plot.appendPoints(1, lossRows(101, 250));
    QCOMPARE(plot.graphPointCount(1, QStringLiteral("train/loss")), 250);
    QCOMPARE(plot.sampleCount(1, QStringLiteral("train/loss")), qint64(250));
    // Sorted appends keep the container sorted; its last key is the last step.
    QCPGraph *graph = plot.customPlot()->graph(0);
    QCOMPARE(graph->data()->size(), 250);
    QCOMPARE((graph->data()->constEnd() - 1)->key, 250.0);
}

void TestMetricPlot::replotIsTimerDriven()
{
    MetricPlot plot;
    plot.setMetrics({QStringLiteral("train/loss")});
    plot.resize(600, 400);
    QTRY_VERIFY(!plot.replotPending());
    const int before = plot.replotCount();
    QSignalSpy replots(&plot, &MetricPlot::replotted);
    for (qint64 step = 1; step <= 500; ++step)  // 500 samples, one at a time
        plot.appendPoints(3, lossRows(step, step));
    QCOMPARE(plot.replotCount(), before);      // none yet: appending never replots
    QVERIFY(plot.replotPending());
    QVERIFY(replots.wait(5000));
    QCOMPARE(plot.replotCount(), before + 1);  // one replot for all 500
    QVERIFY(!plot.replotPending());
    QTest::qWait(3 * MetricPlot::kReplotIntervalMs);
    QCOMPARE(plot.replotCount(), before + 1);  // and none while nothing changes
    QCOMPARE(plot.graphPointCount(3, QStringLiteral("train/loss")), 500);
}

void TestMetricPlot::onlyShownMetricsReachGraphs()
{
    MetricPlot plot;
    plot.setMetrics({QStringLiteral("val/loss")});
    QSignalSpy known(&plot, &MetricPlot::knownMetricsChanged);
    QList<MetricPoint> rows = lossRows(1, 10);
    rows.append({QStringLiteral("val/loss"), 10, 1, 5.0, 0.7});
    plot.appendPoints(1, rows);
    QCOMPARE(plot.graphPointCount(1, QStringLiteral("train/loss")), 0);
    QCOMPARE(plot.graphPointCount(1, QStringLiteral("val/loss")), 1);
    QCOMPARE(plot.sampleCount(1, QStringLiteral("train/loss")), qint64(10));  // kept, not drawn
    QCOMPARE(plot.knownMetrics(), (QStringList{QStringLiteral("train/loss"), QStringLiteral("val/loss")}));
    QVERIFY(known.size() >= 1);
    plot.setMetrics({QStringLiteral("train/loss"), QStringLiteral("val/loss")});
    QCOMPARE(plot.graphPointCount(1, QStringLiteral("train/loss")), 10);  // the kept samples are drawn now
}

void TestMetricPlot::smoothingOffHasNoSmoothGraph()
{
    MetricPlot plot;
    plot.setMetrics({QStringLiteral("train/loss")});
    plot.setSmoothing(0.0);
    plot.appendPoints(1, lossRows(1, 20));
    QCOMPARE(plot.graphPointCount(1, QStringLiteral("train/loss")), 20);
    QCOMPARE(plot.graphPointCount(1, QStringLiteral("train/loss"), true), 0);
    QCOMPARE(plot.customPlot()->graphCount(), 1);
    plot.setSmoothing(0.9);
    QCOMPARE(plot.customPlot()->graphCount(), 2);
    QCOMPARE(plot.graphPointCount(1, QStringLiteral("train/loss"), true), 20);
}

void TestMetricPlot::incrementalSmoothingMatchesBatch()
{
    MetricPlot plot;
    plot.setMetrics({QStringLiteral("train/loss")});
    plot.setSmoothing(0.8);
    const QList<MetricPoint> rows = lossRows(1, 60);
    for (int i = 0; i < rows.size(); i += 7)
        plot.appendPoints(1, rows.mid(i, 7));
    std::vector<double> values;
    for (const MetricPoint &p : rows)
        values.push_back(p.value);
    const std::vector<double> expected = emaSmooth(values, 0.8);
    QCPGraph *smooth = plot.customPlot()->graph(1);
    QCOMPARE(smooth->data()->size(), 60);
    for (int i = 0; i < 60; ++i)
        QVERIFY2(std::abs(smooth->data()->at(i)->value - expected[size_t(i)]) < 1e-12, qPrintable(QString::number(i)));
}

void TestMetricPlot::xAxes()
{
    MetricPlot plot;
    plot.setMetrics({QStringLiteral("train/loss")});
    plot.setSmoothing(0);
    plot.appendPoints(1, lossRows(1, 300, 100));
    QCPGraph *graph = plot.customPlot()->graph(0);
    QCOMPARE(graph->data()->at(149)->key, 150.0);
    plot.setXAxis(PlotXAxis::Epoch);
    graph = plot.customPlot()->graph(0);
    QCOMPARE(graph->data()->at(149)->key, 1.5);      // step 150 of 100-step epochs
    QCOMPARE(graph->data()->at(299)->key, 3.0);
    plot.setXAxis(PlotXAxis::WallTime);
    graph = plot.customPlot()->graph(0);
    QCOMPARE(graph->data()->at(149)->key, 75.0);     // time = step * 0.5
    QCOMPARE(plot.customPlot()->xAxis->label(), QStringLiteral("time (s)"));
}

void TestMetricPlot::epochAxisEstimate()
{
    MetricPlot plot;
    plot.setMetrics({QStringLiteral("train/loss")});
    plot.setSmoothing(0);
    plot.setXAxis(PlotXAxis::Epoch);
    plot.appendPoints(1, lossRows(1, 40, 80));        // still in epoch 1: its steps span (0, 1]
    plot.replotNow();
    QCOMPARE((plot.customPlot()->graph(0)->data()->constEnd() - 1)->key, 1.0);
    plot.appendPoints(1, lossRows(41, 120, 80));      // epoch 2 began at step 81: 80 steps per epoch
    plot.replotNow();                                  // the keys are rebuilt at the tick
    QCPGraph *graph = plot.customPlot()->graph(0);
    QCOMPARE(graph->data()->size(), 120);
    QCOMPARE(graph->data()->at(39)->key, 0.5);
    QCOMPARE(graph->data()->at(119)->key, 1.5);
    plot.setStepsPerEpoch(1, 40);                      // the worker said so
    QCOMPARE(plot.customPlot()->graph(0)->data()->at(119)->key, 3.0);
}

void TestMetricPlot::readout()
{
    MetricPlot plot;
    plot.setMetrics({QStringLiteral("train/loss")});
    plot.setSmoothing(0);
    plot.addRun(1, QStringLiteral("#1 first"));
    plot.addRun(2, QStringLiteral("#2 second"));
    plot.appendPoints(1, lossRows(1, 10));
    QList<MetricPoint> other;
    for (qint64 step = 2; step <= 10; step += 2)
        other.append({QStringLiteral("train/loss"), step, 1, 0, 100.0 + double(step)});
    plot.appendPoints(2, other);
    const QString text = plot.readoutAt(4.2);
    QVERIFY2(text.startsWith(QStringLiteral("step 4\n")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("#1 first · train/loss: 2.5")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("#2 second · train/loss: 104")), qPrintable(text));
    const QString between = plot.readoutAt(3.0);  // run 2 has no step 3: its nearest sample, with its step
    QVERIFY2(between.contains(QStringLiteral("(raw")) == false, qPrintable(between));
    QVERIFY2(between.contains(QStringLiteral(" at step ")), qPrintable(between));
    plot.setSmoothing(0.5);
    QVERIFY2(plot.readoutAt(1).contains(QStringLiteral("10 (raw 10)")), qPrintable(plot.readoutAt(1)));
    MetricPlot empty;
    QVERIFY(empty.readoutAt(3).isEmpty());
}

void TestMetricPlot::exports()
{
    QTemporaryDir dir;
    MetricPlot plot;
    plot.setMetrics({QStringLiteral("train/loss"), QStringLiteral("val/accuracy")});
    plot.setSmoothing(0.5);
    plot.addRun(1, QStringLiteral("run, \"one\""));
    QList<MetricPoint> rows = lossRows(1, 5);
    rows.append({QStringLiteral("val/accuracy"), 4, 1, 2.0, 0.041});
    rows.append({QStringLiteral("val/accuracy"), 5, 1, 2.5, std::nan("")});
    rows.append({QStringLiteral("val/accuracy"), 6, 2, 3.0, double(0.3f)});  // computed as a float, widened
    plot.appendPoints(1, rows);
    for (const QString &name : {QStringLiteral("chart.png"), QStringLiteral("chart.svg"), QStringLiteral("chart.pdf")}) {
        const QString path = dir.filePath(name);
        const bool saved = name.endsWith(QLatin1String("png")) ? plot.savePng(path, 640, 400)
                         : name.endsWith(QLatin1String("svg")) ? plot.saveSvg(path, 640, 400)
                                                                : plot.savePdf(path, 640, 400);
        QVERIFY2(saved, qPrintable(name));
        QVERIFY2(QFileInfo(path).size() > 500, qPrintable(name));
    }
    QFile svg(dir.filePath(QStringLiteral("chart.svg")));
    QVERIFY(svg.open(QIODevice::ReadOnly));
    QVERIFY(svg.readAll().contains("<svg"));
    QImage png(dir.filePath(QStringLiteral("chart.png")));
    QCOMPARE(png.size(), QSize(640, 400));

    const QString csvPath = dir.filePath(QStringLiteral("data.csv"));
    QVERIFY(plot.saveCsv(csvPath));
    QFile csv(csvPath);
    QVERIFY(csv.open(QIODevice::ReadOnly | QIODevice::Text));
    const QStringList lines = QString::fromUtf8(csv.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 1 + 5 + 3);  // header, every sample of both shown metrics
    QCOMPARE(lines.at(0), QStringLiteral("run_id,run,metric,step,epoch,time,value,smoothed"));
    QCOMPARE(lines.at(1), QStringLiteral("1,\"run, \"\"one\"\"\",train/loss,1,1,0.5,10,10"));
    // The smoothed value with the shortest digits that read back as the same double (no binary noise).
    const QStringList second = lines.at(2).split(QLatin1Char(','));
    QCOMPARE(second.at(second.size() - 2), QStringLiteral("5"));
    QCOMPARE(second.last().toDouble(), (0.5 * 10 * 0.5 + 0.5 * 5) / 0.75);
    QVERIFY2(second.last().size() <= 18, qPrintable(second.last()));
    QCOMPARE(second.last(), QString::number((0.5 * 10 * 0.5 + 0.5 * 5) / 0.75, 'g', QLocale::FloatingPointShortest));
    QCOMPARE(lines.at(6), QStringLiteral("1,\"run, \"\"one\"\"\",val/accuracy,4,1,2,0.041,0.041"));  // not 0.041000000000000002
    QCOMPARE(lines.at(7), QStringLiteral("1,\"run, \"\"one\"\"\",val/accuracy,5,1,2.5,,"));  // NaN: empty
    // A float metric as the float it was (reads back as the same float), not its widened 0.30000001192092896.
    QCOMPARE(lines.at(8), QStringLiteral("1,\"run, \"\"one\"\"\",val/accuracy,6,2,3,0.3,0.3"));
    QVERIFY(!plot.saveCsv(dir.filePath(QStringLiteral("no/such/folder/x.csv"))));
}

void TestMetricPlot::followsDataUntilUserMoves()
{
    MetricPlot plot;
    plot.setMetrics({QStringLiteral("train/loss")});
    plot.appendPoints(1, lossRows(1, 100));
    plot.replotNow();
    QVERIFY(plot.customPlot()->xAxis->range().upper >= 100);
    plot.customPlot()->xAxis->setRange(10, 20);  // as a drag would
    QWheelEvent wheel(QPointF(100, 100), QPointF(100, 100), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(plot.customPlot(), &wheel);
    QVERIFY(!plot.followsData());
    const QCPRange zoomed = plot.customPlot()->xAxis->range();
    plot.appendPoints(1, lossRows(101, 200));
    plot.replotNow();
    QCOMPARE(plot.customPlot()->xAxis->range(), zoomed);  // new data leaves the user's view alone
    plot.resetView();
    plot.replotNow();
    QVERIFY(plot.followsData());
    QVERIFY(plot.customPlot()->xAxis->range().upper >= 200);
    plot.setLogY(true);
    plot.replotNow();
    QCOMPARE(plot.customPlot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
    QVERIFY(plot.customPlot()->yAxis->range().lower > 0);
}

void TestMetricPlot::removeAndClearRuns()
{
    MetricPlot plot;
    plot.setMetrics({QStringLiteral("train/loss")});
    plot.addRun(1, QStringLiteral("a"), QColor(Qt::red));
    plot.appendPoints(1, lossRows(1, 10));
    plot.appendPoints(2, lossRows(1, 5));  // an unknown run is added on the fly
    QCOMPARE(plot.runIds(), (QList<qint64>{1, 2}));
    QCOMPARE(plot.runColor(1), QColor(Qt::red));
    QVERIFY(plot.runColor(2).isValid());
    QVERIFY(plot.runColor(2) != plot.runColor(1));
    plot.clearRunData(1);
    QCOMPARE(plot.graphPointCount(1, QStringLiteral("train/loss")), 0);
    QCOMPARE(plot.sampleCount(1, QStringLiteral("train/loss")), qint64(0));
    plot.removeRun(2);
    QCOMPARE(plot.runIds(), QList<qint64>{1});
    QCOMPARE(plot.customPlot()->graphCount(), 0);
    plot.clear();
    QVERIFY(plot.runIds().isEmpty());
}

void TestMetricPlot::panelChoosesMetrics()
{
    MetricPlotPanel panel(QStringLiteral("loss"), {QStringLiteral("train/loss"), QStringLiteral("val/loss")});
    QCOMPARE(panel.plot()->metrics(), (QStringList{QStringLiteral("train/loss"), QStringLiteral("val/loss")}));
    panel.plot()->appendPoints(1, lossRows(1, 3));
    panel.showMetrics({QStringLiteral("train/lr")});
    QCOMPARE(panel.plot()->metrics(), QStringList{QStringLiteral("train/lr")});
    panel.setSmoothing(0.25);
    QCOMPARE(panel.plot()->smoothing(), 0.25);
    panel.setXAxis(PlotXAxis::Epoch);
    QCOMPARE(panel.plot()->xAxis(), PlotXAxis::Epoch);
    QTemporaryDir dir;
    QVERIFY(panel.exportTo(dir.filePath(QStringLiteral("x.csv"))));
    QVERIFY(QFileInfo::exists(dir.filePath(QStringLiteral("x.csv"))));
}

void TestMetricPlot::manyPoints()
{
    // Two million samples in batches as a long run delivers them: every one is kept and drawn from.
    MetricPlot plot;
    plot.setMetrics({QStringLiteral("train/loss")});
    plot.resize(800, 500);
    constexpr int kBatch = 100000;
    for (int batch = 0; batch < 20; ++batch) {
        MetricSamples samples;
        samples.reserve(kBatch);
        for (int i = 0; i < kBatch; ++i) {
            const qint64 step = qint64(batch) * kBatch + i + 1;
            samples.steps.push_back(step);
            samples.epochs.push_back(1);
            samples.times.push_back(double(step));
            samples.values.push_back(1.0 / double(step));
        }
        plot.appendSamples(1, QStringLiteral("train/loss"), samples);
    }
    QCOMPARE(plot.sampleCount(1, QStringLiteral("train/loss")), qint64(2000000));
    QCOMPARE(plot.graphPointCount(1, QStringLiteral("train/loss")), 2000000);
    QCOMPARE(plot.graphPointCount(1, QStringLiteral("train/loss"), true), 2000000);
    plot.replotNow();
    QCOMPARE(plot.customPlot()->xAxis->range().lower, 1.0);
}

TY_TEST_CLASS(TestMetricPlot)

#include "test_metric_plot.moc"

void TestMetricPlot::anEmptyPlotUsesItsWholeWidth()
{
    // Before the first sample (a run just started, or one without the chosen metric) the chart still spans the
    // widget: no squeezed axis rectangle.
    MetricPlot plot;
    plot.setMetrics({QStringLiteral("train/accuracy")});
    plot.resize(900, 500);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.replotNow();
    QVERIFY2(plot.customPlot()->axisRect()->width() > 600, qPrintable(QString::number(plot.customPlot()->axisRect()->width())));
    plot.addRun(1, QStringLiteral("#1 run"), style::runColor(1));
    plot.appendPoints(1, {MetricPoint{QStringLiteral("train/loss"), 1, 1, 0.1, 2.0}});  // not a shown metric
    plot.replotNow();
    QVERIFY2(plot.customPlot()->axisRect()->width() > 600, qPrintable(QString::number(plot.customPlot()->axisRect()->width())));
}
