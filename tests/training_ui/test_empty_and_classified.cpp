// What the Evaluate view and the charts show (issue 43): files dropped on the Evaluate view are classified together,
// each with its top classes as bars, whole class names and a thumbnail; the confusion matrix deepens from the
// palette's base colour (dark in a dark scheme); a chart without curves says why; a sweep's trials of one epoch are
// drawn as points, their axis saying why there is no curve. The worker here is a shell script that answers as `trainyard-cli predict --json`.

#include "test_suite.h"
#include "training_ui_support.h"

#include "confusion_matrix_view.h"
#include "evaluation_view.h"
#include "probability_bars.h"
#include "plots/metric_plot.h"
#include "plots/qcustomplot_include.h"
#include "sweeps/sweep_plots.h"

#include "evaluation_report.h"
#include "sweep_trial_rows.h"

#include <QDropEvent>
#include <QFile>
#include <QImage>
#include <QMimeData>
#include <QScrollArea>
#include <QSignalSpy>
#include <QUrl>
#include <QtTest>

using namespace ty;

namespace {

const QStringList kFashionClasses{QStringLiteral("T-shirt/top"), QStringLiteral("Trouser"), QStringLiteral("Pullover"),
                                  QStringLiteral("Dress"), QStringLiteral("Coat"), QStringLiteral("Sandal"),
                                  QStringLiteral("Shirt"), QStringLiteral("Sneaker"), QStringLiteral("Bag"),
                                  QStringLiteral("Ankle boot")};

// An evaluation of run `runId` with the ten Fashion-MNIST classes, recorded as the worker records one.
qint64 addEvaluation(RunDatabase &db, qint64 runId)
{
    EvaluationReport report;
    report.split = QStringLiteral("test");
    report.checkpointStep = 10;
    report.classes = kFashionClasses;
    report.confusion.assign(100, 0);
    for (int c = 0; c < 10; ++c)
        report.confusion[size_t(c * 10 + c)] = 9;
    report.confusion[size_t(9 * 10 + 5)] = 1;
    report.count = 91;
    report.accuracy = 90.0 / 91.0;
    return tytest::addClassificationEvaluation(db, runId, report);
}

// A stand-in for trainyard-cli: writes its arguments to args.txt and prints one prediction per image named on its
// command line, Ankle boot first.
QString writeFakeWorker(const QString &folder)
{
    const QString path = folder + QStringLiteral("/fake-cli.sh");
    QFile script(path);
    if (!script.open(QIODevice::WriteOnly))
        return QString();
    script.write("#!/bin/sh\n"
                 "printf '%s\\n' \"$@\" > \"$(dirname \"$0\")/args.txt\"\n"
                 "for a in \"$@\"; do case \"$a\" in *.png) n=$(basename \"$a\");"
                 " echo \"{\\\"input\\\":\\\"$n\\\",\\\"predicted\\\":\\\"Ankle boot\\\",\\\"probability\\\":0.61,\\\"top\\\":["
                 "{\\\"class\\\":\\\"Ankle boot\\\",\\\"index\\\":9,\\\"probability\\\":0.61},"
                 "{\\\"class\\\":\\\"Sandal\\\",\\\"index\\\":5,\\\"probability\\\":0.2},"
                 "{\\\"class\\\":\\\"Sneaker\\\",\\\"index\\\":7,\\\"probability\\\":0.1},"
                 "{\\\"class\\\":\\\"Bag\\\",\\\"index\\\":8,\\\"probability\\\":0.05},"
                 "{\\\"class\\\":\\\"T-shirt/top\\\",\\\"index\\\":0,\\\"probability\\\":0.04}]}\";; esac; done\n");
    script.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    return path;
}

QPalette schemePalette(bool dark)
{
    QPalette p;
    p.setColor(QPalette::Base, dark ? QColor(0x1f, 0x21, 0x24) : QColor(Qt::white));
    p.setColor(QPalette::Window, dark ? QColor(0x2b, 0x2d, 0x31) : QColor(0xef, 0xef, 0xef));
    p.setColor(QPalette::Text, dark ? QColor(0xe6, 0xe6, 0xe6) : QColor(Qt::black));
    return p;
}

} // namespace

class TestEmptyAndClassified : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // Three images dropped at once: one worker classifies all three, and each shows its five bars, class names
    // whole, its thumbnail, and the first input fits the room the view gives the bars.
    void everyDroppedFileGetsItsTopClasses()
    {
        tytest::RunsFixture runs;
        QVERIFY(runs.open());
        const qint64 run = runs.createRun(QStringLiteral("mlp"));
        addEvaluation(*runs.db, run);
        const QString worker = writeFakeWorker(runs.dir.path());
        QVERIFY(!worker.isEmpty());
        QList<QUrl> urls;
        for (const char *name : {"shoe.png", "boot.png", "bag.png"}) {
            const QString path = runs.dir.filePath(QString::fromLatin1(name));
            QImage image(28, 28, QImage::Format_Grayscale8);
            image.fill(120);
            QVERIFY(image.save(path));
            urls << QUrl::fromLocalFile(path);
        }

        EvaluationView view;
        view.resize(1280, 720);
        view.setDatabase(runs.db.get());
        view.setWorkerPath(worker);
        QVERIFY(view.showRun(run).ok());
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy finished(&view, &EvaluationView::predictionFinished);
        QMimeData mime;
        mime.setUrls(urls);
        QDragEnterEvent enter(QPoint(300, 300), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&view, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(300, 300), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&view, &drop);
        QVERIFY2(finished.count() > 0 || finished.wait(20000), qPrintable(view.prediction()->message()));

        QFile args(runs.dir.filePath(QStringLiteral("args.txt")));
        QVERIFY(args.open(QIODevice::ReadOnly));
        const QStringList arguments = QString::fromUtf8(args.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        for (const QUrl &url : urls)
            QVERIFY2(arguments.contains(url.toLocalFile()), qPrintable(arguments.join(QLatin1Char(' '))));
        QCOMPARE(arguments.mid(0, 2), (QStringList{QStringLiteral("predict"), QString::number(run)}));

        ProbabilityBars *bars = view.prediction();
        QCOMPARE(bars->inputs().size(), 3);
        QCoreApplication::processEvents();
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(bars->inputs()[i].title, urls[i].fileName());
            QVERIFY(!bars->inputs()[i].thumbnail.isNull());
            QCOMPARE(bars->inputs()[i].bars.size(), EvaluationView::kTopClasses);
            for (int row = 0; row < EvaluationView::kTopClasses; ++row) {
                QCOMPARE(bars->shownLabel(i, row), bars->inputs()[i].bars[row].first);  // "Ankle boot", not "Ankle b…"
                QVERIFY(bars->rect().contains(bars->barRect(i, row)));
            }
        }
        QCOMPARE(bars->barRect(0, 0).width() > bars->barRect(0, 1).width(), true);  // 61 % against 20 %
        // The view made room for the first input's five bars.
        const QRect first = bars->inputRect(0);
        QVERIFY2(first.bottom() <= view.predictionArea()->viewport()->height(),
                 qPrintable(QStringLiteral("%1 > %2").arg(first.bottom()).arg(view.predictionArea()->viewport()->height())));

        // A narrow column elides, a wide one lays the inputs side by side.
        ProbabilityBars narrow;
        narrow.setInputs(bars->inputs());
        narrow.resize(150, 600);
        QVERIFY(narrow.shownLabel(0, 0) != QStringLiteral("Ankle boot"));
        QCOMPARE(narrow.columnCount(), 1);
        narrow.resize(3 * ProbabilityBars::kMinimumColumnWidth + 60, 600);
        QCOMPARE(narrow.columnCount(), 3);
        QCOMPARE(narrow.inputRect(2).top(), narrow.inputRect(0).top());
        QCOMPARE(narrow.shownLabel(2, 0), QStringLiteral("Ankle boot"));
    }

    void theWorkersJsonLinesBecomeInputs()
    {
        const QByteArray out = "{\"input\":\"two.idx[0]\",\"top\":[{\"class\":\"a\",\"probability\":0.75},{\"class\":\"b\",\"probability\":0.25}]}\n"
                               "\n"
                               "{\"input\":\"two.idx[1]\",\"top\":[{\"class\":\"b\",\"probability\":1}]}\n"
                               "{\"input\":\"rows.csv line 2\",\"values\":[1.5,-2]}\n";
        const QList<ClassifiedInput> inputs = classifiedInputsFromJsonLines(out);
        QCOMPARE(inputs.size(), 3);
        QCOMPARE(inputs[0].title, QStringLiteral("two.idx[0]"));
        QCOMPARE(inputs[0].bars.size(), 2);
        QCOMPARE(inputs[0].bars[1].first, QStringLiteral("b"));
        QCOMPARE(inputs[0].bars[1].second, 0.25);
        QCOMPARE(inputs[1].bars.size(), 1);
        QCOMPARE(inputs[2].bars.size(), 0);
        QCOMPARE(inputs[2].title, QStringLiteral("rows.csv line 2: predicted 1.5, -2"));
    }

    // An empty cell is the background: white in a light scheme, near black in a dark one (it was always white).
    void theConfusionMatrixFollowsThePalette()
    {
        ConfusionMatrixView matrix;
        matrix.setMatrix({QStringLiteral("a"), QStringLiteral("b")}, {5, 0, 1, 4});
        matrix.resize(300, 300);
        for (const bool dark : {true, false}) {
            matrix.setPalette(schemePalette(dark));
            const QColor empty = matrix.cellColor(0, 1);
            QCOMPARE(empty, matrix.palette().color(QPalette::Base));
            const QImage shot = matrix.grab().toImage();
            const QColor painted = shot.pixelColor(matrix.cellRect(0, 1).center());
            QVERIFY2(dark ? painted.lightnessF() < 0.25 : painted.lightnessF() > 0.95, qPrintable(painted.name()));
            // The diagonal and the mistakes still show their hues.
            QVERIFY(matrix.cellColor(0, 0).green() > matrix.cellColor(0, 0).red());
            QVERIFY(matrix.cellColor(1, 0).red() > matrix.cellColor(1, 0).green());
        }
    }

    void anEmptyChartSaysWhy()
    {
        MetricPlot plot;
        plot.setMetrics({QStringLiteral("train/accuracy"), QStringLiteral("val/accuracy")});
        plot.replotNow();
        QVERIFY2(plot.emptyText().contains(QStringLiteral("No run")), qPrintable(plot.emptyText()));
        plot.addRun(1, QStringLiteral("mlp"));
        plot.replotNow();
        QVERIFY2(plot.emptyText().contains(QStringLiteral("Waiting")), qPrintable(plot.emptyText()));
        // Only the loss: the run's graph has no metric node.
        plot.appendPoints(1, {{QStringLiteral("train/loss"), 1, 1, 0.1, 2.0}, {QStringLiteral("val/loss"), 1, 1, 0.2, 1.9}});
        plot.replotNow();
        QVERIFY2(plot.emptyText().contains(QStringLiteral("no metric node")), qPrintable(plot.emptyText()));
        QVERIFY(plot.emptyText().contains(QStringLiteral("train/accuracy or val/accuracy")));
        // A metric node of another name: the chart names it.
        plot.appendPoints(1, {{QStringLiteral("train/acc"), 1, 1, 0.1, 0.5}});
        plot.replotNow();
        QVERIFY2(plot.emptyText().contains(QStringLiteral("train/acc (choose")), qPrintable(plot.emptyText()));
        // Curves: no note.
        plot.appendPoints(1, {{QStringLiteral("val/accuracy"), 1, 1, 0.2, 0.6}});
        plot.replotNow();
        QCOMPARE(plot.emptyText(), QString());
        plot.removeRun(1);
        plot.replotNow();
        QVERIFY(plot.emptyText().contains(QStringLiteral("No run")));
    }

    // Trials of one epoch have one point each: drawn as dots (a line alone draws nothing), with a note saying so.
    void sweepTrialsOfOneEpochAreDrawnAsPoints()
    {
        tytest::RunsFixture runs;
        QVERIFY(runs.open());
        SweepRecord sweep;
        sweep.id = 1;
        sweep.metric = QStringLiteral("val/accuracy");
        QList<SweepTrialRow> rows;
        for (int trial = 1; trial <= 3; ++trial)
            rows.append({trial, {}, runs.addRun(QStringLiteral("t%1").arg(trial), RunStatus::Finished, 10), QStringLiteral("finished"), 0.01});
        QCustomPlot plot;
        drawTrialCurves(&plot, *runs.db, sweep, rows);
        QCOMPARE(plot.graphCount(), 3);
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(plot.graph(i)->dataCount(), 1);
            QVERIFY(plot.graph(i)->scatterStyle().shape() != QCPScatterStyle::ssNone);
        }
        auto noteText = [&plot] {
            for (int i = 0; i < plot.itemCount(); ++i)
                if (auto *text = qobject_cast<QCPItemText *>(plot.item(i)); text && text->objectName() == QLatin1String("note"))
                    return text->text();
            return QString();
        };
        QCOMPARE(noteText(), QString());  // the points are the chart: the axis says why there is no curve
        QVERIFY2(plot.xAxis->label().contains(QStringLiteral("a point each")), qPrintable(plot.xAxis->label()));
        // Two epochs: curves, a plain axis. No values yet: the chart says so.
        rows.append({4, {}, runs.addRun(QStringLiteral("t4"), RunStatus::Finished, 20), QStringLiteral("finished"), 0.02});
        drawTrialCurves(&plot, *runs.db, sweep, rows);
        QCOMPARE(plot.xAxis->label(), QStringLiteral("epoch"));
        QCOMPARE(noteText(), QString());
        drawTrialCurves(&plot, *runs.db, sweep, {SweepTrialRow{1, {}, 0, QStringLiteral("queued"), std::nullopt}});
        QVERIFY2(noteText().contains(QStringLiteral("No trial")), qPrintable(noteText()));
        drawParallelCoordinates(&plot, sweep, {});
        QVERIFY2(noteText().contains(QStringLiteral("No trial has a value")), qPrintable(noteText()));
    }
};

TY_TEST_CLASS(TestEmptyAndClassified)

#include "test_empty_and_classified.moc"
