// The Sweeps and Speed pages' charts follow the window's palette, as the live plots and the Evaluate view's curves
// do: a dark palette gives a dark chart with light axes, titles and notes, and back to light gives a white one.

#include "test_suite.h"
#include "training_ui_support.h"

#include "plots/qcustomplot_include.h"
#include "run_database.h"
#include "sweeps/sweep_view.h"
#include "training/run_speed_view.h"
#include "training/training_panel.h"

#include <QtTest>

using namespace ty;

namespace {

QColor corner(QCustomPlot *plot) { return plot->toPixmap(300, 200).toImage().pixelColor(2, 2); }

// Every text of the chart's frame: axis labels, tick labels, titles.
bool framedIn(QCustomPlot *plot, double minLightness, double maxLightness)
{
    const auto in = [&](const QColor &c) { return c.lightnessF() >= minLightness && c.lightnessF() <= maxLightness; };
    if (!in(plot->xAxis->labelColor()) || !in(plot->yAxis->tickLabelColor()))
        return false;
    for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
        if (auto *title = qobject_cast<QCPTextElement *>(plot->plotLayout()->elementAt(i)); title && !in(title->textColor()))
            return false;
    return true;
}

} // namespace

class TestChartPalettes : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void sweepChartsFollowThePalette()
    {
        tytest::RunsFixture f;
        QVERIFY(f.open());
        TrainingPanel panel;
        QVERIFY(panel.openDatabase(f.path).ok());
        SweepView view;
        view.setWatcher(panel.watcher());
        view.resize(1200, 700);
        view.setPalette(tytest::darkPalette());
        for (QCustomPlot *plot : {view.parallelPlot(), view.scatterPlot(), view.curvesPlot(), view.importancePlot()}) {
            QVERIFY2(corner(plot).lightnessF() < 0.2, qPrintable(plot->objectName() + QLatin1Char(' ') + corner(plot).name()));
            QVERIFY2(framedIn(plot, 0.8, 1.0), qPrintable(plot->objectName()));
        }
        // The importance chart's note ("No sweep chosen") in the palette's placeholder colour, after a switch too.
        const auto noteColor = [&view] {
            for (int i = 0; i < view.importancePlot()->itemCount(); ++i)
                if (auto *note = qobject_cast<QCPItemText *>(view.importancePlot()->item(i)); note && note->objectName() == QLatin1String("note"))
                    return note->color();
            return QColor();
        };
        QTRY_COMPARE(noteColor(), tytest::darkPalette().color(QPalette::PlaceholderText));
        view.setPalette(tytest::lightPalette());
        for (QCustomPlot *plot : {view.parallelPlot(), view.scatterPlot(), view.curvesPlot(), view.importancePlot()}) {
            QVERIFY2(corner(plot).lightnessF() > 0.95, qPrintable(plot->objectName()));
            QVERIFY2(framedIn(plot, 0.0, 0.2), qPrintable(plot->objectName()));
        }
        QTRY_COMPARE(noteColor(), tytest::lightPalette().color(QPalette::PlaceholderText));
    }

    void speedChartsFollowThePalette()
    {
        RunSpeedView view;
        view.resize(1200, 700);
        view.setPalette(tytest::darkPalette());
        for (QCustomPlot *plot : {view.ratePlot(), view.phasePlot()}) {
            QVERIFY2(corner(plot).lightnessF() < 0.2, qPrintable(plot->objectName()));
            QVERIFY2(framedIn(plot, 0.8, 1.0), qPrintable(plot->objectName()));
            QVERIFY(!plot->legend->visible());  // nothing to list: no empty box
        }
        view.setPalette(tytest::lightPalette());
        for (QCustomPlot *plot : {view.ratePlot(), view.phasePlot()})
            QVERIFY2(corner(plot).lightnessF() > 0.95, qPrintable(plot->objectName()));
    }
};

TY_TEST_CLASS(TestChartPalettes)

#include "test_chart_palettes.moc"
