// Run browser: a database of 10,000 runs opened in RunBrowser: the first page shown, every run loaded (in the
// background, with the longest event-loop turn meanwhile), and the text and status filters (each change until
// the table has repainted).

#include "bench_gui_sections.h"
#include "bench_run_fixture.h"

#include "runs/run_browser.h"
#include "runs/runs_table_model.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QLineEdit>
#include <QTemporaryDir>
#include <QTimer>

namespace ty::bench {

namespace {

constexpr int kRuns = 10000;
const QString kSection = QStringLiteral("runs");

// Milliseconds of `change` plus the repaint it causes.
template <typename F>
double timedChange(F change)
{
    const double start = now();
    change();
    processPendingEvents();
    return (now() - start) * 1000;
}

void open(RunBrowser &browser, const QString &path)
{
    if (!browser.openDatabase(path).ok())
        qFatal("cannot open the fixture: %s", qPrintable(browser.statusText()));
    if (browser.model()->rowCount() == 0)
        qFatal("the run browser shows no runs");
}

// Runs the event loop until the model has every run; returns the longest gap between the ticks of a 5 ms
// timer meanwhile, in milliseconds.
double loadEveryRun(RunBrowser &browser)
{
    double lastTick = now(), longest = 0;
    QTimer ticker;
    ticker.setTimerType(Qt::PreciseTimer);
    QObject::connect(&ticker, &QTimer::timeout, [&] {
        longest = std::max(longest, now() - lastTick);
        lastTick = now();
    });
    ticker.start(5);
    QElapsedTimer limit;
    limit.start();
    while (browser.model()->canFetchMore() && limit.elapsed() < 60000)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    longest = std::max(longest, now() - lastTick);
    if (browser.model()->rowCount() != kRuns)
        qFatal("the run browser loaded %d of %d runs", browser.model()->rowCount(), kRuns);
    return longest * 1000;
}

} // namespace

void benchRunBrowser(const GuiOptions &options, Report &report)
{
    std::fprintf(stderr, "run browser\n");
    QTemporaryDir folder;
    double start = now();
    const QString path = writeRunDatabase(folder.path(), kRuns);
    std::fprintf(stderr, "  fixture: %d runs written in %.1f s\n", kRuns, now() - start);

    RunBrowser browser;
    browser.resize(1280, 800);
    browser.show();
    processPendingEvents();

    start = now();
    open(browser, path);
    const int firstRows = browser.model()->rowCount();
    QCoreApplication::sendPostedEvents();  // the paint, not yet the timer that loads the next page
    report.add(kSection, QStringLiteral("open %1 runs: first page shown (%2 rows)").arg(kRuns).arg(firstRows), (now() - start) * 1000,
               QStringLiteral("ms"));
    const double stallMs = loadEveryRun(browser);
    const double loadedMs = (now() - start) * 1000;
    report.add(kSection, QStringLiteral("open %1 runs: every run in the table").arg(kRuns), loadedMs, QStringLiteral("ms"),
               QStringLiteral("<= 2000"), loadedMs <= 2000);
    report.add(kSection, QStringLiteral("longest event-loop turn while the runs load"), stallMs, QStringLiteral("ms"),
               QStringLiteral("<= 50"), stallMs <= 50);

    auto *statusChoice = browser.findChild<QComboBox *>();
    QLineEdit *filter = browser.filterField();
    const QStringList words{QStringLiteral("mlp"), QStringLiteral("tabular 0.00"), QStringLiteral("sweep"), QStringLiteral("cnn lr")};
    const int repeats = options.quick ? 4 : 12;
    QList<double> text, status;
    for (int i = 0; i < repeats; ++i) {
        text << timedChange([&] { filter->setText(words.at(i % words.size())); });
        text << timedChange([&] { filter->clear(); });
    }
    for (int i = 0; i < repeats; ++i) {
        status << timedChange([&] { statusChoice->setCurrentIndex(2 + i % 6); });  // "Resumable", then single statuses
        status << timedChange([&] { statusChoice->setCurrentIndex(0); });
    }
    const double textMs = median(text), statusMs = median(status);
    report.add(kSection, QStringLiteral("text filter, set or cleared (median of %1)").arg(text.size()), textMs, QStringLiteral("ms"),
               QStringLiteral("<= 100"), textMs <= 100);
    report.add(kSection, QStringLiteral("status filter, set or cleared (median of %1)").arg(status.size()), statusMs,
               QStringLiteral("ms"), QStringLiteral("<= 100"), statusMs <= 100);
    const double worst = std::max(*std::max_element(text.begin(), text.end()), *std::max_element(status.begin(), status.end()));
    report.add(kSection, QStringLiteral("slowest filter change"), worst, QStringLiteral("ms"));

    // A filter typed before the background loading is through loads the remaining runs first.
    RunBrowser early;
    early.resize(1280, 800);
    early.show();
    open(early, path);
    processPendingEvents();
    const double earlyMs = timedChange([&] { early.filterField()->setText(QStringLiteral("cnn")); });
    report.add(kSection, QStringLiteral("filter typed right after opening (loads every run first)"), earlyMs, QStringLiteral("ms"));
}

} // namespace ty::bench
