// Plots: MetricPlot replot time with a 1,000,000- and a 10,000,000-point training loss, smoothing on and off,
// and with 1,000 new steps before each replot. A replot is what the plot's timer does (follow the data, redraw
// every layer) plus the paint that shows it.

#include "bench_gui_sections.h"
#include "bench_loss_curve.h"

#include "plots/metric_plot.h"

namespace ty::bench {

namespace {

const QString kLoss = QStringLiteral("train/loss");

double medianReplotMs(MetricPlot &plot, int repeats)
{
    plot.replotNow();  // warm-up: caches of labels and layer buffers
    processPendingEvents();
    QList<double> times;
    for (int i = 0; i < repeats; ++i) {
        const double start = now();
        plot.replotNow();
        processPendingEvents();
        times << now() - start;
    }
    return median(times) * 1000;
}

void benchSeries(qint64 points, double targetMs, const GuiOptions &options, Report &report)
{
    const QString size = points >= 10000000 ? QStringLiteral("10M") : QStringLiteral("1M");
    std::mt19937_64 rng(7);
    const MetricSamples samples = noisyLossSamples(1, points, points, rng);

    MetricPlot plot;
    plot.resize(900, 500);
    plot.setMetrics({kLoss});
    plot.addRun(1, QStringLiteral("run 1"));
    plot.show();
    processPendingEvents();

    plot.setSmoothing(0.6);
    double start = now();
    plot.appendSamples(1, kLoss, samples);
    report.add(QStringLiteral("plots"), QStringLiteral("append %1 samples, smoothing on").arg(size), (now() - start) * 1000,
               QStringLiteral("ms"));
    if (plot.graphPointCount(1, kLoss) != points || plot.graphPointCount(1, kLoss, true) != points)
        qFatal("the plot does not hold every sample");

    const int repeats = options.quick ? 5 : 11;
    const double smoothed = medianReplotMs(plot, repeats);
    const QString target = QStringLiteral("<= %1").arg(targetMs);
    report.add(QStringLiteral("plots"), QStringLiteral("replot %1 points, smoothing on (median of %2)").arg(size).arg(repeats),
               smoothed, QStringLiteral("ms"), target, smoothed <= targetMs);

    // Live: 1,000 new steps before each replot (the axes move, tick labels change, summaries extend).
    QList<double> live;
    for (int i = 0; i < repeats; ++i) {
        plot.appendSamples(1, kLoss, noisyLossSamples(points + 1 + i * 1000, 1000, points, rng));
        const double at = now();
        plot.replotNow();
        processPendingEvents();
        live << now() - at;
    }
    const double liveMs = median(live) * 1000;
    report.add(QStringLiteral("plots"), QStringLiteral("replot %1 points after 1,000 more, smoothing on (median)").arg(size), liveMs,
               QStringLiteral("ms"), target, liveMs <= targetMs);

    start = now();
    plot.setSmoothing(0.0);
    plot.replotNow();
    processPendingEvents();
    report.add(QStringLiteral("plots"), QStringLiteral("switch smoothing off, %1 points (rebuild + replot)").arg(size),
               (now() - start) * 1000, QStringLiteral("ms"));
    const double raw = medianReplotMs(plot, repeats);
    report.add(QStringLiteral("plots"), QStringLiteral("replot %1 points, smoothing off (median of %2)").arg(size).arg(repeats), raw,
               QStringLiteral("ms"), target, raw <= targetMs);
}

} // namespace

void benchPlots(const GuiOptions &options, Report &report)
{
    std::fprintf(stderr, "plots\n");
    benchSeries(1000000, 10, options, report);
    benchSeries(10000000, 40, options, report);
}

} // namespace ty::bench
