// Sweeps from the app, end to end through the real main window and the real trainyard-cli: the Sweep dialog
// (its trial count, a wrong key refused before anything starts, opened from a parameter's context menu), a sweep
// started from the canvas and shown in Experiments ▸ Sweeps (trials table with the best highlighted, the three
// charts, which parameters mattered), Stop and Resume from the view, and Open Best as Preset. And Experiments ▸ Queue: the limit on runs at
// once, runs of the app waiting under it, reordered, cancelled and started now. And the window's one read
// connection: every view reads through the run database watcher of the Runs tab.

#include "training_ui_support.h"
#include "synthetic_sweep.h"

#include "main_window.h"

#include "document/pipeline_document.h"
#include "evaluation_view.h"
#include "inspector/inspector_panel.h"
#include "inspector/param_form.h"
#include "plots/run_metrics_feed.h"
#include "runs/run_browser.h"
#include "runs/run_database_watcher.h"
#include "runs/run_queue_view.h"
#include "training/run_speed_view.h"
#include "training/training_panel.h"
#include "plots/qcustomplot_include.h"
#include "sweeps/sweep_dialog.h"
#include "sweeps/sweep_launcher.h"
#include "sweeps/sweep_plots.h"
#include "sweeps/sweep_view.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>
#include <QTimer>

#include <memory>

using namespace ty;

class TestAppSweeps : public QObject {
    Q_OBJECT
    tytest::RunsFixture runs;
    std::unique_ptr<MainWindow> window;

    static QPushButton *button(QWidget *parent, const QString &text)
    {
        for (QPushButton *b : parent->findChildren<QPushButton *>())
            if (b->text() == text)
                return b;
        return nullptr;
    }

    // Starts `spec` on the canvas and waits for the driver to end; returns its exit code (-2: it never ended).
    int sweepAndWait(const SweepSpec &spec)
    {
        QSignalSpy ended(window->sweepLauncher(), &SweepLauncher::sweepEnded);
        if (!window->startSweep(spec))
            return -3;
        if (!ended.wait(180000))
            return -2;
        return ended.first().at(1).toInt();
    }

    // How many descriptors of the file at `path` this process holds: one per SQLite connection to it (Linux).
    static int openDescriptors(const QString &path)
    {
        const QString file = QFileInfo(path).canonicalFilePath();
        int count = 0;
        for (const QFileInfo &fd : QDir(QStringLiteral("/proc/self/fd")).entryInfoList(QDir::System | QDir::Files))
            count += !file.isEmpty() && fd.symLinkTarget() == file ? 1 : 0;
        return count;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(runs.open());
        qputenv("TRAINYARD_CLI", tytest::workerPath().toUtf8());
    }

    void init()
    {
        window = std::make_unique<MainWindow>();
        window->setInteractive(false);
        window->resize(1400, 900);
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        QVERIFY(window->openRunDatabase(runs.path).ok());
        window->document()->setPreset(tytest::tinyPreset(3, 512));
    }

    void cleanup() { window.reset(); }

    // The Runs tab's browser and plots, Sweeps, Queue, Speed and Evaluate read through one connection, the run
    // database watcher's: one descriptor of the file, however many views, and all of them move with the database.
    void oneConnectionServesEveryView()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("one.sqlite"));
        QVERIFY(window->openRunDatabase(path).ok());
        QApplication::processEvents();
        RunDatabaseWatcher *watcher = window->training()->watcher();
        RunDatabase *db = watcher->database();
        QVERIFY(db);
        QCOMPARE(QFileInfo(db->path()).canonicalFilePath(), QFileInfo(path).canonicalFilePath());
        QCOMPARE(window->training()->browser()->database(), db);
        QCOMPARE(window->training()->feed()->database(), db);
        QCOMPARE(window->evaluation()->database(), db);
        QCOMPARE(window->sweepView()->watcher(), watcher);
        QCOMPARE(window->queueView()->watcher(), watcher);
        QCOMPARE(window->speedView()->watcher(), watcher);
        for (int mode : {int(WindowMode::Experiments), int(WindowMode::Evaluate), int(WindowMode::Design)}) {
            window->setMode(WindowMode(mode));
            QTest::qWait(300);
            QCOMPARE(openDescriptors(path), 1);
        }
        QVERIFY(window->openRunDatabase(runs.path).ok());
        QCOMPARE(openDescriptors(path), 0);
        QCOMPARE(window->evaluation()->database(), watcher->database());
        QCOMPARE(window->training()->feed()->database(), watcher->database());
    }

    void dialogCountsTrialsAndRefusesWrongKeys()
    {
        SweepDialog dialog(window->document()->preset(), QStringLiteral("opt.lr"));
        QCOMPARE(dialog.dimensions()->rowCount(), 1);
        // Around the current value 0.1, a decade each way.
        QCOMPARE(static_cast<QLineEdit *>(dialog.dimensions()->cellWidget(0, 2))->text(), QStringLiteral("0.01, 0.1, 1"));
        QVERIFY2(dialog.isValid(), qPrintable(dialog.problem()));
        QCOMPARE(dialog.trialCount(), 3);
        dialog.addDimension(QStringLiteral("fc1.out_features"), QStringLiteral("int"), QStringLiteral("8, 32"));
        dialog.setTrials(2);
        QCOMPARE(dialog.trialCount(), 6);
        QCOMPARE(dialog.spec().random.first().text, QStringLiteral("int(8, 32)"));
        dialog.addDimension(QStringLiteral("nosuch.width"), QStringLiteral("grid"), QStringLiteral("1, 2"));
        QVERIFY(!dialog.isValid());
        QVERIFY2(dialog.problem().contains(QStringLiteral("nosuch")), qPrintable(dialog.problem()));
        QVERIFY(!dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->isEnabled());
        static_cast<QLineEdit *>(dialog.dimensions()->cellWidget(2, 2))->setText(QString());
        dialog.dimensions()->removeRow(2);
        static_cast<QLineEdit *>(dialog.dimensions()->cellWidget(1, 2))->setText(QStringLiteral("32, 8"));
        QVERIFY2(dialog.problem().contains(QStringLiteral("the lowest value (32) must be below the highest (8)")), qPrintable(dialog.problem()));
    }

    // A parameter's context menu in the inspector opens the dialog on that key.
    void sweepThisParameterOpensTheDialog()
    {
        window->document()->setSelectedNodes({QStringLiteral("opt")});
        QTRY_VERIFY(window->inspector()->nodeForm() != nullptr);
        QString shownKey;
        // Closes the dialog once it shows (polling: exec() must not wait for ever if it shows late).
        QTimer poll;
        poll.setInterval(50);
        connect(&poll, &QTimer::timeout, this, [&shownKey, &poll] {
            auto *dialog = qobject_cast<SweepDialog *>(QApplication::activeModalWidget());
            if (!dialog)
                return;
            poll.stop();
            shownKey = dialog->searchedKeys().value(0);
            dialog->reject();
        });
        poll.start();
        Q_EMIT window->inspector()->nodeForm()->sweepRequested(QStringLiteral("lr"));
        QCOMPARE(shownKey, QStringLiteral("opt.lr"));
    }

    void aSweepFromTheCanvasIsShownRankedAndItsBestOpens()
    {
        SweepDialog dialog(window->document()->preset(), QStringLiteral("opt.lr"));
        static_cast<QLineEdit *>(dialog.dimensions()->cellWidget(0, 2))->setText(QStringLiteral("0.001, 0.05, 0.2"));
        dialog.setMetric(QStringLiteral("val/accuracy"));
        dialog.setParallel(2);
        QCOMPARE(sweepAndWait(dialog.spec()), 0);
        SweepView *view = window->sweepView();
        QCOMPARE(int(window->mode()), int(WindowMode::Experiments));
        QVERIFY(view->isVisible());
        view->refresh();
        QTableWidget *table = view->trialsTable();
        QCOMPARE(table->rowCount(), 3);
        QCOMPARE(table->horizontalHeaderItem(3)->text(), QStringLiteral("val/accuracy"));
        QCOMPARE(table->horizontalHeaderItem(4)->text(), QStringLiteral("opt.lr"));
        // Best first, highlighted; the tiny learning rate cannot be best.
        QVERIFY(table->item(0, 0)->font().bold());
        QVERIFY(!table->item(1, 0)->font().bold());
        QVERIFY(table->item(0, 4)->text() != QStringLiteral("0.001"));
        QVERIFY(table->item(0, 3)->data(Qt::DisplayRole).toDouble() >= table->item(2, 3)->data(Qt::DisplayRole).toDouble());
        QVERIFY2(view->summary()->text().contains(QStringLiteral("3 of 3 trials ended")), qPrintable(view->summary()->text()));
        // A line per trial in the parallel coordinates, a point per trial against opt.lr, a curve per trial.
        QCOMPARE(view->parallelPlot()->plottableCount(), 3);
        QCOMPARE(view->scatterPlot()->graph(0)->dataCount() + view->scatterPlot()->graph(1)->dataCount(), 3);
        QCOMPARE(view->curvesPlot()->graphCount(), 3);
        QCOMPARE(view->curvesPlot()->graph(0)->dataCount(), 3);  // three epochs

        const QString bestLr = table->item(0, 4)->text();
        QPushButton *openBest = button(view, QStringLiteral("Open Best as Preset"));
        QVERIFY(openBest && openBest->isEnabled());
        openBest->click();
        QCOMPARE(int(window->mode()), int(WindowMode::Design));
        QCOMPARE(flattenParams(window->document()->preset()).value(QStringLiteral("opt.lr")), bestLr);
        QVERIFY(window->document()->preset().name.contains(QStringLiteral("best of sweep")));
    }

    // 24 finished trials whose loss depends on opt.lr alone: the importance chart has a bar per key, opt.lr at the
    // top with its spread and correlation; with 12 the chart says why it has none.
    void theSweepViewShowsWhichParametersMattered()
    {
        const qint64 enough = tytest::recordSyntheticSweep(*runs.db, 24, 2);
        const qint64 tooFew = tytest::recordSyntheticSweep(*runs.db, 12);
        QVERIFY(enough > 0 && tooFew > 0);
        window->showSweep(enough);
        SweepView *view = window->sweepView();
        QTRY_COMPARE(view->currentSweep(), enough);
        QCOMPARE(view->importance().finishedTrials, 24);
        QCOMPARE(view->importance().parameters.size(), 2);
        const ParameterImportance lr = view->importance().parameters.first();
        QCOMPARE(lr.name, QStringLiteral("opt.lr"));
        QCustomPlot *plot = view->importancePlot();
        auto *bars = qobject_cast<QCPBars *>(plot->plottable(0));
        QVERIFY(bars);
        QCOMPARE(bars->data()->size(), 2);
        // The top bar (key 1) is opt.lr's, its length the importance; its label carries the correlation.
        QCOMPARE(bars->data()->findBegin(1, false)->value, lr.importance);
        auto *ticker = dynamic_cast<QCPAxisTickerText *>(plot->yAxis->ticker().data());
        QVERIFY(ticker);
        QCOMPARE(ticker->ticks().value(1), importanceLabel(lr));
        QVERIFY2(ticker->ticks().value(1).contains(QString::number(*lr.spearman, 'f', 2)), qPrintable(ticker->ticks().value(1)));
        auto *spread = qobject_cast<QCPErrorBars *>(plot->plottable(1));
        QVERIFY(spread && spread->dataCount() == 2);
        QCOMPARE(spread->data()->at(1).errorPlus, lr.spread);

        window->showSweep(tooFew);
        QTRY_COMPARE(view->currentSweep(), tooFew);
        QVERIFY(view->importance().parameters.isEmpty());
        QCOMPARE(plot->plottableCount(), 0);
        auto *note = qobject_cast<QCPItemText *>(plot->item(0));
        QVERIFY(note);
        QCOMPARE(note->text(), QStringLiteral("importance needs at least 20 finished trials;\nthis sweep has 12"));
    }

    void stopAndResumeFromTheView()
    {
        window->document()->setPreset(tytest::tinyPreset(60, 2048));
        QSignalSpy started(window->sweepLauncher(), &SweepLauncher::sweepStarted);
        QSignalSpy ended(window->sweepLauncher(), &SweepLauncher::sweepEnded);
        SweepDialog dialog(window->document()->preset(), QStringLiteral("opt.lr"));
        dialog.setParallel(1);
        QVERIFY(window->startSweep(dialog.spec()));
        QVERIFY(started.wait(60000));
        const qint64 id = started.first().first().toLongLong();
        SweepView *view = window->sweepView();
        QCOMPARE(view->currentSweep(), id);
        QPushButton *stop = button(view, QStringLiteral("Stop"));
        QTRY_VERIFY_WITH_TIMEOUT(stop->isEnabled(), 10000);
        // Let the first trial record a run, then stop.
        QTRY_VERIFY_WITH_TIMEOUT(runs.db->sweepRuns(id).value().size() == 1, 60000);
        stop->click();
        QVERIFY(ended.wait(60000));
        QCOMPARE(ended.first().at(1).toInt(), 130);
        view->refresh();
        QCOMPARE(runs.db->sweep(id).value().status, QStringLiteral("stopped"));
        QPushButton *resume = button(view, QStringLiteral("Resume"));
        QVERIFY(resume->isEnabled());
        ended.clear();
        resume->click();
        QVERIFY(ended.wait(240000));
        QCOMPARE(ended.first().at(1).toInt(), 0);
        QCOMPARE(runs.db->sweep(id).value().status, QStringLiteral("finished"));
        QCOMPARE(runs.db->sweepRuns(id).value().size(), 3);
    }

    void theQueueTabShowsWaitingRunsAndActsOnThem()
    {
        RunQueueView *queue = window->queueView();
        queue->limitBox()->setValue(1);
        Q_EMIT queue->limitBox()->editingFinished();
        QCOMPARE(runs.db->maxRunning().value(), 1);
        const int before = int(runs.db->listRuns().value().size());
        // One long run takes the slot; two more from Train wait.
        window->document()->setPreset(tytest::tinyPreset(2000, 2048));
        QVERIFY(window->trainDocument());
        QTRY_VERIFY_WITH_TIMEOUT(runs.db->listRuns().value().size() == before + 1, 60000);
        QVERIFY(window->trainDocument());
        QTRY_VERIFY_WITH_TIMEOUT((queue->refresh(), queue->entries().size() == 1), 60000);
        QVERIFY(window->trainDocument());
        // The tab counts them without being shown (the window is in Design here).
        auto *tabs = window->findChild<QTabWidget *>(QStringLiteral("experimentsTabs"));
        window->setMode(WindowMode::Design);
        QTRY_COMPARE_WITH_TIMEOUT(tabs->tabText(tabs->indexOf(queue)), QStringLiteral("Queue (2)"), 60000);
        QCOMPARE(queue->entries().size(), 2);
        // The waiting workers say so in the app: a "queued" note.
        QTRY_VERIFY_WITH_TIMEOUT(std::any_of(window->training()->controllers().cbegin(), window->training()->controllers().cend(),
                                             [](const TrainingRunController *c) {
                                                 return !c->notes().isEmpty() && c->notes().last().kind == QLatin1String("queued");
                                             }),
                                 10000);

        const qint64 first = queue->entries().at(0).id, second = queue->entries().at(1).id;
        queue->selectEntry(second);
        QVERIFY(queue->moveSelected(-1));
        QCOMPARE(queue->entries().at(0).id, second);
        QVERIFY(queue->cancelSelected());  // `second`: its worker ends, recording nothing
        QTRY_VERIFY_WITH_TIMEOUT((queue->refresh(), queue->entries().size() == 1), 30000);
        queue->selectEntry(first);
        QVERIFY(queue->startSelectedNow());
        // Started at once, beside the long run: two runs recorded, both training.
        QTRY_VERIFY_WITH_TIMEOUT(runs.db->listRuns().value().size() == before + 2, 60000);
        QTRY_COMPARE_WITH_TIMEOUT(tabs->tabText(tabs->indexOf(queue)), QStringLiteral("Queue"), 30000);
        QVERIFY(queue->entries().isEmpty());
        window->stopTraining();
        QVERIFY(runs.db->setMaxRunning(0).ok());
    }
};

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("TrainyardTests"));
    QApplication::setApplicationName(QStringLiteral("test_app_sweeps"));
    TestAppSweeps test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_app_sweeps.moc"
