// The results side of the plots: the epoch axis from the run's recorded length (a run stopped in its first epoch,
// one still running), one colour per run in every view, log-axis ticks for small losses, the hover box inside
// the chart, chart colours that follow a dark palette, and a layout whose controls stay whole in a small window.

#include "test_suite.h"
#include "common/run_colors.h"
#include "plots/log_axis_ticker.h"
#include "preset_format.h"
#include "plots/metric_plot.h"
#include "plots/metric_plot_panel.h"
#include "plots/qcustomplot_include.h"
#include "plots/run_epoch_length.h"
#include "plots/run_metrics_feed.h"
#include "run_writer.h"
#include "runs/run_browser.h"
#include "runs/run_comparison_view.h"
#include "runs/runs_table_model.h"
#include "training/active_runs_view.h"
#include "training/training_panel.h"
#include "training_ui_support.h"

#include <QAbstractButton>
#include <QComboBox>
#include <QJsonArray>
#include <QSignalSpy>
#include <QTableView>
#include <QTreeWidget>
#include <QtTest>

#include <cmath>

using namespace ty;
using tytest::RunsFixture;

namespace {

// The "started" event as trainyard-cli's RunRecorder writes it.
RunEvent startedEvent(qint64 totalSteps)
{
    return RunEvent{0, 0, QStringLiteral("started"),
                    QStringLiteral("device cpu, 55040 training / 4960 validation / 10000 test samples, %1 steps, "
                                   "data sha256 ab12").arg(totalSteps)};
}

// Rows of train/loss for steps [from, to], every one in epoch `epoch` (a run that never reached the next).
QList<MetricPoint> lossRows(qint64 from, qint64 to, int epoch)
{
    QList<MetricPoint> rows;
    for (qint64 step = from; step <= to; ++step)
        rows.append({QStringLiteral("train/loss"), step, epoch, step * 0.1, 1.0 / double(step)});
    return rows;
}

double lastKey(const MetricPlot &plot, int graph = 0)
{
    return (plot.customPlot()->graph(graph)->data()->constEnd() - 1)->key;
}

double hueDistance(const QColor &a, const QColor &b)
{
    const double d = std::abs(a.hsvHueF() - b.hsvHueF()) * 360.0;
    return std::min(d, 360.0 - d);
}

} // namespace

class TestResultsPlots : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void stepsPerEpochFromTheRecord();
    void epochAxisOfARunStoppedInItsFirstEpoch();
    void epochAxisOfARunStillRunning();
    void paletteNeighboursAreDistinctAndReadable();
    void aRunHasOneColourInEveryView();
    void logAxisLabelsSmallLosses();
    void hoverBoxStaysInsideTheChart();
    void chartFollowsADarkPalette();
    void aSmallWindowStacksThePlotsAndWrapsTheControls();
};

// train/loss by epoch, fed from the database as the app's results view does (unsmoothed).
struct EpochAxisPlot {
    explicit EpochAxisPlot(RunDatabase *db)
    {
        plot.setMetrics({QStringLiteral("train/loss")});
        plot.setSmoothing(0);
        plot.setXAxis(PlotXAxis::Epoch);
        feed.setDatabase(db);
        QObject::connect(&feed, &RunMetricsFeed::rowsArrived, &plot,
                         [this](qint64 run, const QList<MetricPoint> &rows) { plot.appendPoints(run, rows); });
        QObject::connect(&feed, &RunMetricsFeed::stepsPerEpochRead, &plot, &MetricPlot::setStepsPerEpoch);
    }
    MetricPlot plot;
    RunMetricsFeed feed;
    QSignalSpy read{&feed, &RunMetricsFeed::stepsPerEpochRead};
};

void TestResultsPlots::stepsPerEpochFromTheRecord()
{
    Preset preset = tytest::tinyPreset(10);
    const QJsonObject json = presetToJson(preset);
    QCOMPARE(presetEpochs(json), 10);
    QCOMPARE(recordedTotalSteps({}), qint64(0));
    QCOMPARE(recordedStepsPerEpoch(json, {}), qint64(0));  // not started yet: unknown, not a guess
    QCOMPARE(recordedStepsPerEpoch(json, {startedEvent(4300)}), qint64(430));
    // A resumed run has a second "started" event; other events do not count.
    const QList<RunEvent> resumed{startedEvent(4300), RunEvent{60, 1, QStringLiteral("stopped"), QStringLiteral("9 steps")},
                                  startedEvent(4300)};
    QCOMPARE(recordedTotalSteps(resumed), qint64(4300));
    // Stages: their epochs add up.
    QJsonObject staged = json;
    QJsonObject training = staged.value(QStringLiteral("training")).toObject();
    training.remove(QStringLiteral("epochs"));
    training.insert(QStringLiteral("stages"), QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("head")}, {QStringLiteral("epochs"), 2}},
                                                         QJsonObject{{QStringLiteral("name"), QStringLiteral("all")}, {QStringLiteral("epochs"), 3}}});
    staged.insert(QStringLiteral("training"), training);
    QCOMPARE(presetEpochs(staged), 5);
    QCOMPARE(recordedStepsPerEpoch(staged, {startedEvent(500)}), qint64(100));
}

void TestResultsPlots::epochAxisOfARunStoppedInItsFirstEpoch()
{
    RunsFixture f;
    QVERIFY(f.open());
    const qint64 id = f.createRun(QStringLiteral("stopped early"), {}, tytest::tinyPreset(10));
    {
        RunWriter writer(f.path, id, 3600 * 1000);
        QVERIFY(writer.start().ok());
        writer.appendEvent(startedEvent(4300));
        writer.appendMetrics(lossRows(1, 60, 1));
        QVERIFY(writer.finish(RunStatus::Stopped).ok());
    }
    EpochAxisPlot axis(f.db.get());
    MetricPlot &plot = axis.plot;
    RunMetricsFeed &feed = axis.feed;
    QSignalSpy &read = axis.read;
    feed.addRun(id);
    QCOMPARE(read.size(), 1);
    QCOMPARE(read.at(0).at(1).toLongLong(), qint64(430));
    plot.replotNow();
    QCOMPARE(plot.customPlot()->graph(0)->data()->size(), 60);
    // Step 60 of 430 a epoch is 0.14 of the first epoch, not 0.97 as the rows alone suggested.
    QVERIFY2(std::abs(lastKey(plot) - 60.0 / 430.0) < 1e-9, qPrintable(QString::number(lastKey(plot))));
}

void TestResultsPlots::epochAxisOfARunStillRunning()
{
    RunsFixture f;
    QVERIFY(f.open());
    const qint64 id = f.createRun(QStringLiteral("live"), {}, tytest::tinyPreset(4));
    RunWriter writer(f.path, id, 3600 * 1000);
    QVERIFY(writer.start().ok());
    writer.appendMetrics(lossRows(1, 20, 1));  // rows before the start is known (an old run, a slow writer)
    QVERIFY(writer.flush().ok());
    EpochAxisPlot axis(f.db.get());
    MetricPlot &plot = axis.plot;
    RunMetricsFeed &feed = axis.feed;
    QSignalSpy &read = axis.read;
    feed.addRun(id);
    QCOMPARE(read.size(), 0);
    plot.replotNow();
    QCOMPARE(lastKey(plot), 1.0);  // estimated from the rows: all of epoch 1 so far
    writer.appendEvent(startedEvent(400));
    writer.appendMetrics(lossRows(21, 50, 1));
    QVERIFY(writer.flush().ok());
    feed.poll();
    QCOMPARE(read.size(), 1);
    QCOMPARE(read.at(0).at(1).toLongLong(), qint64(100));
    plot.replotNow();
    QCOMPARE(plot.customPlot()->graph(0)->data()->size(), 50);
    QCOMPARE(lastKey(plot), 0.5);
    writer.appendMetrics(lossRows(51, 60, 1));
    QVERIFY(writer.flush().ok());
    feed.poll();
    QCOMPARE(read.size(), 1);  // read once
    plot.replotNow();
    QCOMPARE(lastKey(plot), 0.6);
    QVERIFY(writer.finish(RunStatus::Finished).ok());
}

void TestResultsPlots::paletteNeighboursAreDistinctAndReadable()
{
    const int n = style::runPaletteSize();
    QVERIFY(n >= 8);
    const QColor light(Qt::white), darkBase(0x1f, 0x21, 0x24);
    for (int i = 0; i < n; ++i) {
        const QColor c = style::runPaletteColor(i), next = style::runPaletteColor(i + 1);
        const QString which = QStringLiteral("%1 (%2) and %3 (%4)").arg(i).arg(c.name()).arg(i + 1).arg(next.name());
        QVERIFY2(hueDistance(c, next) >= 60, qPrintable(which));  // runs #n and #n+1: far apart on the wheel
        QVERIFY2(style::contrastRatio(c, light) >= 2.5, qPrintable(c.name()));
        QVERIFY2(style::contrastRatio(c, darkBase) >= 3.0, qPrintable(c.name()));
        for (int j = 0; j < i; ++j)
            QVERIFY(style::runPaletteColor(j) != c);
    }
    QCOMPARE(style::runPaletteColor(n), style::runPaletteColor(0));
    // By id, the same everywhere and after a restart: no state decides it.
    QCOMPARE(style::runColor(1), style::runPaletteColor(0));
    QCOMPARE(style::runColor(12), style::runPaletteColor(1));
    for (qint64 id = 1; id < 40; ++id)
        QVERIFY(hueDistance(style::runColor(id), style::runColor(id + 1)) >= 60);
}

void TestResultsPlots::aRunHasOneColourInEveryView()
{
    RunsFixture f;
    QVERIFY(f.open());
    QList<qint64> ids;
    for (int i = 0; i < 2; ++i)
        ids << f.addRun(QStringLiteral("run %1").arg(i), RunStatus::Finished, 20);
    ids << f.createRun(QStringLiteral("staged"));
    {
        RunWriter writer(f.path, ids.at(2), 3600 * 1000);
        QVERIFY(writer.start().ok());
        writer.recordStage({0, QStringLiteral("head"), 0, -1, 0, 1, {}});
        writer.recordStage({1, QStringLiteral("all"), 10, -1, 1, 1, {}});
        writer.appendMetrics(lossRows(1, 20, 1));
        QVERIFY(writer.finish(RunStatus::Finished).ok());
    }
    TrainingPanel panel;
    panel.resize(1400, 900);
    QVERIFY(panel.openDatabase(f.path).ok());
    // Selected in the reverse order: the colour follows the run, not the order it was plotted in.
    panel.browser()->selectRuns({ids.at(2)});
    panel.browser()->selectRuns({ids.at(2), ids.at(1), ids.at(0)});
    QTRY_COMPARE(panel.plottedRuns().size(), 3);
    RunComparisonView *compare = panel.browser()->comparison();
    RunsTableModel *model = panel.browser()->model();
    for (qint64 id : ids) {
        const QColor colour = style::runColor(id);
        QCOMPARE(panel.lossPlot()->runColor(id), colour);
        QCOMPARE(panel.metricPlot()->runColor(id), colour);
        // The browser's marker and the comparison's header are squares of the same colour.
        const QIcon marker = model->data(model->index(model->rowOfRun(id), RunsTableModel::IdColumn), Qt::DecorationRole).value<QIcon>();
        QCOMPARE(marker.pixmap(10, 10).toImage().pixelColor(5, 5), colour);
        const int column = int(compare->shownRuns().indexOf(id));
        QVERIFY(column >= 0);
        QCOMPARE(compare->horizontalHeaderItem(column)->icon().pixmap(10, 10).toImage().pixelColor(5, 5), colour);
    }
    QTRY_COMPARE(panel.lossPlot()->stageMarks(ids.at(2)).size(), 1);
    QCOMPARE(panel.lossPlot()->stageMarks(ids.at(2)).first().line->pen().color(), style::runColor(ids.at(2)));
    // Deselected and selected again (a new view of it): the same colour.
    panel.browser()->selectRuns({ids.at(0)});
    QTRY_COMPARE(panel.plottedRuns(), QList<qint64>{ids.at(0)});
    panel.browser()->selectRuns({ids.at(1)});
    QTRY_COMPARE(panel.plottedRuns(), QList<qint64>{ids.at(1)});
    QCOMPARE(panel.lossPlot()->runColor(ids.at(1)), style::runColor(ids.at(1)));
}

void TestResultsPlots::logAxisLabelsSmallLosses()
{
    // A loss between 0.02 and 0.4: QCustomPlot's powers of ten would label 0.1 alone.
    const QVector<double> ticks = LogAxisTicker::ticksFor(QCPRange(0.016, 0.5));
    QVERIFY2(ticks.size() >= 4, qPrintable(QString::number(ticks.size())));
    QVERIFY(ticks.contains(0.02));
    QVERIFY(ticks.contains(0.05));
    QVERIFY(ticks.contains(0.2));
    for (double t : ticks)
        QVERIFY(t >= 0.016 && t <= 0.5);
    // Many decades: powers of ten; a flat curve: still at least two ticks.
    QCOMPARE(LogAxisTicker::ticksFor(QCPRange(1e-4, 10)), (QVector<double>{1e-4, 1e-3, 1e-2, 1e-1, 1, 10}));
    QVERIFY(LogAxisTicker::ticksFor(QCPRange(0.31, 0.33)).size() >= 2);

    MetricPlot plot;
    plot.resize(600, 400);
    plot.setMetrics({QStringLiteral("train/loss")});
    plot.setSmoothing(0);
    QList<MetricPoint> rows;
    for (int step = 1; step <= 200; ++step)
        rows.append({QStringLiteral("train/loss"), step, 1, 0, 0.4 * std::pow(0.05, (step - 1) / 199.0)});  // 0.4 .. 0.02
    plot.appendPoints(1, rows);
    plot.setLogY(true);
    plot.replotNow();
    const QVector<QString> labels = plot.customPlot()->yAxis->tickVectorLabels();
    QVERIFY2(labels.size() >= 4, qPrintable(QStringList(labels.begin(), labels.end()).join(QLatin1Char(' '))));
    QVERIFY2(labels.contains(QStringLiteral("0.02")), qPrintable(QStringList(labels.begin(), labels.end()).join(QLatin1Char(' '))));
    QVERIFY(labels.contains(QStringLiteral("0.1")));
    QVERIFY(labels.contains(QStringLiteral("0.2")));
    // QCustomPlot keeps a tick beyond each end (for sub ticks); those inside the shown range are 4 or more.
    const QCPRange shown = plot.customPlot()->yAxis->range();
    int inside = 0;
    for (double tick : plot.customPlot()->yAxis->tickVector())
        inside += shown.contains(tick) ? 1 : 0;
    QVERIFY2(inside >= 4, qPrintable(QString::number(inside)));
}

void TestResultsPlots::hoverBoxStaysInsideTheChart()
{
    MetricPlot plot;
    plot.resize(500, 320);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setMetrics({QStringLiteral("train/loss"), QStringLiteral("val/loss")});
    plot.setSmoothing(0.6);
    plot.addRun(7, QStringLiteral("#7 Fashion-MNIST MLP · fc1.out_features=64 · training.batch_size=32 · opt.lr=0.0003"));
    plot.appendPoints(7, lossRows(1, 300, 1));
    plot.replotNow();
    const QRect chart = plot.customPlot()->axisRect()->rect();
    for (const double fraction : {0.02, 0.5, 0.98}) {
        const QPoint at(chart.left() + int(chart.width() * fraction), chart.center().y());
        plot.showHoverAt(at);
        const QRectF box = plot.hoverBoxRect();
        const QString where = QStringLiteral("at %1: box %2,%3 %4x%5 in chart %6..%7")
                                  .arg(fraction).arg(box.left()).arg(box.top()).arg(box.width()).arg(box.height())
                                  .arg(chart.left()).arg(chart.right());
        QVERIFY2(!box.isEmpty(), qPrintable(where));
        QVERIFY2(box.left() >= chart.left() && box.right() <= chart.right() + 1, qPrintable(where));
        QVERIFY2(box.top() >= chart.top() && box.bottom() <= chart.bottom() + 1, qPrintable(where));
    }
    // Narrowed until the name must be shortened, the box still fits.
    plot.resize(300, 240);
    plot.replotNow();
    const QRect narrow = plot.customPlot()->axisRect()->rect();
    plot.showHoverAt(narrow.center());
    QVERIFY(plot.hoverBoxRect().left() >= narrow.left() && plot.hoverBoxRect().right() <= narrow.right() + 1);
    QVERIFY(plot.hoverBoxRect().width() < narrow.width());

    // With room on both sides: right of the tracer line at the left edge, left of it at the right edge.
    MetricPlot wide;
    wide.resize(900, 320);
    wide.show();
    QVERIFY(QTest::qWaitForWindowExposed(&wide));
    wide.setMetrics({QStringLiteral("train/loss")});
    wide.addRun(3, QStringLiteral("#3 Wine MLP"));
    wide.appendPoints(3, lossRows(1, 300, 1));
    wide.replotNow();
    const QRect area = wide.customPlot()->axisRect()->rect();
    const QPoint left(area.left() + 5, area.center().y()), right(area.right() - 5, area.center().y());
    wide.showHoverAt(left);
    QVERIFY(wide.hoverBoxRect().left() > left.x());
    wide.showHoverAt(right);
    QVERIFY2(wide.hoverBoxRect().right() < right.x(), qPrintable(QString::number(wide.hoverBoxRect().right())));
    QVERIFY(wide.hoverBoxRect().left() > area.left());
    plot.showHoverAt(QPoint(chart.right() + 50, chart.center().y()));  // off the chart: hidden
    QVERIFY(plot.hoverBoxRect().isEmpty());
}

void TestResultsPlots::chartFollowsADarkPalette()
{
    MetricPlot plot;
    plot.setMetrics({QStringLiteral("train/loss"), QStringLiteral("val/loss")});
    plot.appendPoints(1, lossRows(1, 30, 1));
    plot.appendPoints(1, {{QStringLiteral("val/loss"), 30, 1, 3, 0.4}});
    // What the chart paints in its corner (outside the axes) is its background.
    const auto corner = [&plot]() { return plot.customPlot()->toPixmap(300, 200).toImage().pixelColor(1, 1); };
    QVERIFY(corner().lightness() > 200);  // the light default
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x2b, 0x2d, 0x31));
    dark.setColor(QPalette::WindowText, QColor(0xe6, 0xe6, 0xe6));
    dark.setColor(QPalette::Base, QColor(0x1f, 0x21, 0x24));
    dark.setColor(QPalette::Text, QColor(0xe6, 0xe6, 0xe6));
    plot.setPalette(dark);
    QCustomPlot *chart = plot.customPlot();
    QCOMPARE(corner(), QColor(0x1f, 0x21, 0x24));
    QCOMPARE(chart->axisRect()->backgroundBrush().color(), QColor(0x1f, 0x21, 0x24));
    QCOMPARE(plot.chartBackground(), QColor(0x1f, 0x21, 0x24));
    for (QCPAxis *axis : {chart->xAxis, chart->yAxis}) {
        QVERIFY(axis->tickLabelColor().lightness() > 180);
        QVERIFY(axis->labelColor().lightness() > 180);
        QVERIFY(axis->basePen().color().lightness() > 150);
        QVERIFY(axis->grid()->pen().color().lightness() > 150);  // light lines, faint by their alpha
        QVERIFY(axis->grid()->pen().color().alphaF() < 0.5);
    }
    QVERIFY(chart->legend->textColor().lightness() > 180);
    QCOMPARE(chart->legend->brush().color(), QColor(0x1f, 0x21, 0x24));
    // The per-epoch markers are filled with the dark background, not white.
    bool found = false;
    for (int i = 0; i < chart->graphCount(); ++i)
        if (chart->graph(i)->scatterStyle().shape() == QCPScatterStyle::ssCircle) {
            QCOMPARE(chart->graph(i)->scatterStyle().brush().color(), QColor(0x1f, 0x21, 0x24));
            found = true;
        }
    QVERIFY(found);
    // Back to light.
    QPalette light = dark;
    light.setColor(QPalette::Window, QColor(0xef, 0xef, 0xef));
    light.setColor(QPalette::WindowText, Qt::black);
    light.setColor(QPalette::Base, Qt::white);
    light.setColor(QPalette::Text, Qt::black);
    plot.setPalette(light);
    QVERIFY(corner().lightness() > 200);
    QVERIFY(chart->yAxis->tickLabelColor().lightness() < 80);
}


namespace {

// Each visible button, box and check box of `area` is shown whole: as wide as it asks and inside `area`.
QStringList clippedControls(const QWidget *area)
{
    QStringList clipped;
    for (const QWidget *w : area->findChildren<QWidget *>()) {
        if (!w->isVisible() || !w->sizeHint().isValid()
            || !(qobject_cast<const QAbstractButton *>(w) || qobject_cast<const QComboBox *>(w)))
            continue;  // (a table's corner button has no size of its own)
        const QRect inArea(w->mapTo(area, QPoint(0, 0)), w->size());
        if (w->width() < w->sizeHint().width() || !area->rect().contains(inArea))
            clipped << QStringLiteral("%1 '%2' %3 wide (asks %4) at %5,%6 in %7x%8")
                           .arg(QString::fromLatin1(w->metaObject()->className()),
                                qobject_cast<const QAbstractButton *>(w) ? qobject_cast<const QAbstractButton *>(w)->text()
                                                                         : qobject_cast<const QComboBox *>(w)->currentText())
                           .arg(w->width()).arg(w->sizeHint().width()).arg(inArea.x()).arg(inArea.y())
                           .arg(area->width()).arg(area->height());
    }
    return clipped;
}

} // namespace

void TestResultsPlots::aSmallWindowStacksThePlotsAndWrapsTheControls()
{
    RunsFixture f;
    QVERIFY(f.open());
    f.addRun(QStringLiteral("a run"), RunStatus::Finished, 20);
    TrainingPanel panel;
    QVERIFY(panel.openDatabase(f.path).ok());
    // The Experiments page of a 1280 x 720 window.
    panel.resize(1280, 620);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    const QWidget *loss = panel.lossPlotPanel(), *metric = panel.metricPlotPanel();
    QTRY_VERIFY2(metric->mapTo(&panel, QPoint(0, 0)).y() >= loss->mapTo(&panel, QPoint(0, loss->height())).y(),
                 "the two plots stand one above the other");
    // No control's minimum width pushes the split: the plots keep their 3 : 2 share of the width.
    QVERIFY2(loss->width() >= panel.width() / 2, qPrintable(QString::number(loss->width())));
    for (const QWidget *area : {loss, metric, static_cast<const QWidget *>(panel.browser())}) {
        const QStringList clipped = clippedControls(area);
        QVERIFY2(clipped.isEmpty(), qPrintable(clipped.join(QLatin1Char('\n'))));
    }
    // A wide window puts them side by side again.
    panel.resize(2400, 1000);
    QTRY_COMPARE(metric->mapTo(&panel, QPoint(0, 0)).y(), loss->mapTo(&panel, QPoint(0, 0)).y());
    QVERIFY(metric->mapTo(&panel, QPoint(0, 0)).x() >= loss->mapTo(&panel, QPoint(loss->width(), 0)).x());
}

TY_TEST_CLASS(TestResultsPlots)

#include "test_results_plots.moc"
