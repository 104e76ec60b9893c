// Event-loop stall: a shown MetricPlot that already holds a long run (1,000,000 steps, smoothing on) receives
// new rows as the run feed delivers them (every RunDatabaseWatcher::kDefaultPollMs, 4,000 steps a second) and
// replots at its own timer; meanwhile a 5 ms timer measures the longest gap between its ticks.

#include "bench_gui_sections.h"
#include "bench_loss_curve.h"

#include "plots/metric_plot.h"
#include "runs/run_database_watcher.h"

#include <QEventLoop>
#include <QTimer>

namespace ty::bench {

void benchEventLoopStall(const GuiOptions &options, Report &report)
{
    std::fprintf(stderr, "event loop stall\n");
    constexpr qint64 kHistory = 1000000;
    constexpr int kStepsPerSecond = 4000;
    const QString loss = QStringLiteral("train/loss");
    const qint64 totalSteps = 4 * kHistory;
    std::mt19937_64 rng(3);

    MetricPlot plot;
    plot.resize(900, 500);
    plot.setMetrics({loss});
    plot.show();
    plot.appendSamples(1, loss, noisyLossSamples(1, kHistory, totalSteps, rng));
    plot.replotNow();
    processPendingEvents();

    qint64 nextStep = kHistory + 1;
    const int rowsPerPoll = kStepsPerSecond * RunDatabaseWatcher::kDefaultPollMs / 1000;
    QTimer feed;
    feed.setInterval(RunDatabaseWatcher::kDefaultPollMs);
    QObject::connect(&feed, &QTimer::timeout, [&] {
        plot.appendSamples(1, loss, noisyLossSamples(nextStep, rowsPerPoll, totalSteps, rng));
        nextStep += rowsPerPoll;
    });

    double lastTick = now(), maxGap = 0;
    QTimer ticker;
    ticker.setTimerType(Qt::PreciseTimer);
    ticker.setInterval(5);
    QObject::connect(&ticker, &QTimer::timeout, [&] {
        const double t = now();
        maxGap = std::max(maxGap, t - lastTick);
        lastTick = t;
    });

    const int replotsBefore = plot.replotCount();
    const int seconds = options.quick ? 2 : 6;
    QEventLoop loop;
    QTimer::singleShot(seconds * 1000, &loop, &QEventLoop::quit);
    feed.start();
    ticker.start();
    lastTick = now();
    loop.exec();
    ticker.stop();
    feed.stop();

    const double ms = maxGap * 1000;
    report.add(QStringLiteral("stall"), QStringLiteral("longest event-loop gap, live 1M-point plot, %1 s").arg(seconds), ms,
               QStringLiteral("ms"), QStringLiteral("<= 50"), ms <= 50);
    report.add(QStringLiteral("stall"), QStringLiteral("replots during it"), plot.replotCount() - replotsBefore,
               QStringLiteral("replots"));
}

} // namespace ty::bench
