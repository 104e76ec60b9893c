// Training from the desktop app, end to end: the real main window trains the graph on its canvas with the
// real trainyard-cli worker, keeps the canvas editable meanwhile, plots the run and finds it in the run
// database; a graph with errors is not trained; a run started in a terminal is stopped from the browser; a killed
// worker leaves the app running; an optimizer's learning-rate test sets only the rate clicked and the run interrupted; closing the window with a run training stops it with a checkpoint. Runs under Xvfb when
// xvfb-run is installed (CTest test "app_training"), offscreen otherwise.

#include "training_ui_support.h"

#include "main_window.h"

#include "canvas/canvas_view.h"
#include "canvas/node_item.h"
#include "canvas/pipeline_scene.h"
#include "class_scores_model.h"
#include "confusion_matrix_view.h"
#include "evaluation_view.h"
#include "probability_bars.h"
#include "document/pipeline_document.h"
#include "plots/metric_plot.h"
#include "runs/run_browser.h"
#include "runs/runs_table_model.h"
#include "training/device_probe.h"
#include "inspector/inspector_panel.h"
#include "training/learning_rate_finder_dialog.h"
#include "training/training_panel.h"

#include "preset_format.h"
#include "safetensors_file.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QComboBox>
#include <QLabel>
#include <QListWidget>
#include <QTableView>
#include <QProcess>
#include <QPushButton>
#include <QStatusBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <algorithm>
#include <csignal>
#include <memory>

#include <sys/types.h>

using namespace ty;

class TestAppTraining : public QObject {
    Q_OBJECT

    tytest::RunsFixture runs;
    std::unique_ptr<MainWindow> window;

    RunInfo runInfo(qint64 id) const
    {
        Result<RunInfo> info = runs.db->run(id);
        return info.ok() ? info.value() : RunInfo{};
    }

    // Trains the document from the Train action; returns the run id once the worker has started it.
    qint64 trainAndWaitForStart()
    {
        QSignalSpy started(window->training(), &TrainingPanel::runStarted);
        window->action(QStringLiteral("train"))->trigger();
        if (!started.wait(60000))
            return 0;
        return started.first().first().toLongLong();
    }

    static QPushButton *buttonLabelled(QWidget *parent, const QString &text)
    {
        for (QPushButton *button : parent->findChildren<QPushButton *>())
            if (button->text() == text && button->isVisible())
                return button;
        return nullptr;
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
    }

    void cleanup() { window.reset(); }

    // The app asks a worker what the training engine can use and never loads LibTorch itself: the answer equals
    // what `trainyard-cli devices --json` says, a preset asking for CUDA is warned about when there is none, and
    // no LibTorch library is mapped into this process.
    void devicesAreAskedOfAWorkerNotLibTorch()
    {
        QTRY_VERIFY_WITH_TIMEOUT(window->deviceProbe()->cudaAvailable().has_value(), 30000);
        QProcess devices;
        devices.start(tytest::workerPath(), {QStringLiteral("devices"), QStringLiteral("--json")});
        QVERIFY(devices.waitForFinished(60000));
        const QJsonObject answer = QJsonDocument::fromJson(devices.readAllStandardOutput()).object();
        QVERIFY(answer.value(QStringLiteral("cuda")).isBool());
        QCOMPARE(*window->deviceProbe()->cudaAvailable(), answer.value(QStringLiteral("cuda")).toBool());
        QCOMPARE(window->document()->cudaAvailable(), window->deviceProbe()->cudaAvailable());

        Preset preset = tytest::tinyPreset();
        preset.training.insert(QStringLiteral("device"), QStringLiteral("cuda"));
        window->document()->setPreset(preset);
        window->document()->validateNow();
        bool warned = false;
        for (const Issue &issue : window->document()->report().issues)
            warned = warned || issue.message.contains(QStringLiteral("CUDA"), Qt::CaseInsensitive);
        QCOMPARE(warned, !*window->deviceProbe()->cudaAvailable());

        QFile maps(QStringLiteral("/proc/self/maps"));
        QVERIFY(maps.open(QIODevice::ReadOnly));
        QVERIFY2(!maps.readAll().contains("libtorch"), "the app process loaded LibTorch");
    }

    void trainsTheCanvasAndFindsTheRunInTheDatabase()
    {
        window->document()->setPreset(tytest::tinyPreset(4, 2048));
        QVERIFY(!window->action(QStringLiteral("stop-all"))->isEnabled());
        QSignalSpy finished(window->training(), &TrainingPanel::runFinished);
        const qint64 id = trainAndWaitForStart();
        QVERIFY(id > 0);
        QCOMPARE(int(window->mode()), int(WindowMode::Experiments));
        // The canvas stays editable; the run trains the snapshot taken when Train was pressed.
        QVERIFY(window->document()->setParam(QStringLiteral("fc1"), QStringLiteral("out_features"), 32).isEmpty());
        QVERIFY(finished.wait(120000));
        QCOMPARE(finished.first().at(0).toLongLong(), id);
        QCOMPARE(finished.first().at(1).toString(), QStringLiteral("finished"));

        const RunInfo info = runInfo(id);
        QCOMPARE(info.status, RunStatus::Finished);
        const Result<Preset> trained = presetFromJson(info.preset, QStringLiteral("run preset"));
        QVERIFY(trained.ok());
        QCOMPARE(trained.value().graph.node(QStringLiteral("fc1"))->params.value(QStringLiteral("out_features")).toInt(), 16);
        const Result<QList<MetricPoint>> losses = runs.db->metrics(id, QStringLiteral("train/loss"));
        QVERIFY(losses.ok());
        QVERIFY(losses.value().size() >= 10);
        // Learning happened: the last logged loss is well below the first.
        QVERIFY2(losses.value().last().value < 0.7 * losses.value().first().value,
                 qPrintable(QStringLiteral("%1 -> %2").arg(losses.value().first().value).arg(losses.value().last().value)));

        // The browser lists it and the live plot holds every logged loss of it.
        QTRY_VERIFY(window->training()->browser()->model()->rowOfRun(id) >= 0);
        QVERIFY(window->training()->plottedRuns().contains(id));
        QTRY_COMPARE(window->training()->lossPlot()->sampleCount(id, QStringLiteral("train/loss")),
                     qint64(losses.value().size()));
        QVERIFY(!window->action(QStringLiteral("stop-all"))->isEnabled());
    }

    // A preset edited since it was saved trains under a name saying what changed, so variants trained side by
    // side are told apart in the browser.
    void anEditedPresetTrainsUnderANameSayingWhatChanged()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("variant.trainyard.json"));
        Preset preset = tytest::tinyPreset(2, 512);
        preset.name = QStringLiteral("tiny");
        QVERIFY(savePreset(preset, file).ok());
        QVERIFY(window->openFile(file));
        QVERIFY(window->document()->setParam(QStringLiteral("fc1"), QStringLiteral("out_features"), 32).isEmpty());
        QSignalSpy finished(window->training(), &TrainingPanel::runFinished);
        const qint64 id = trainAndWaitForStart();
        QVERIFY(id > 0);
        QCOMPARE(runInfo(id).name, QStringLiteral("tiny · fc1.out_features=32"));
        QVERIFY(finished.wait(60000));
        QVERIFY(window->save());  // saved, the same graph trains under the preset's own name
        QSignalSpy again(window->training(), &TrainingPanel::runFinished);
        const qint64 second = trainAndWaitForStart();
        QCOMPARE(runInfo(second).name, QStringLiteral("tiny"));
        QVERIFY(again.wait(60000));
    }

    // Fine-tuning from the run browser, end to end: a trained run's "Fine-tune…" opens a new unsaved staged preset
    // in Design (the head stage shown, its frozen layer locked on the canvas); Train runs both stages from the
    // parent's weights; the child names its parent in the browser and its curves mark where the second stage began.
    void fineTuneFromARunAndTrainItsStages()
    {
        window->document()->setPreset(tytest::tinyPreset(2, 1024));
        QSignalSpy finished(window->training(), &TrainingPanel::runFinished);
        const qint64 parent = trainAndWaitForStart();
        QVERIFY(parent > 0);
        QVERIFY(finished.wait(120000));
        QCOMPARE(finished.first().at(1).toString(), QStringLiteral("finished"));
        RunBrowser *browser = window->training()->browser();
        QTRY_VERIFY(browser->model()->rowOfRun(parent) >= 0);
        browser->selectRuns({parent});
        QVERIFY(browser->fineTuneButton()->isEnabled());
        browser->fineTuneButton()->click();

        QCOMPARE(int(window->mode()), int(WindowMode::Design));
        PipelineDocument *doc = window->document();
        QVERIFY(doc->fileName().isEmpty());
        QVERIFY(doc->isModified());
        QVERIFY(window->isWindowModified());
        const QJsonObject init = doc->preset().training.value(QStringLiteral("init_from")).toObject();
        QCOMPARE(init.value(QStringLiteral("run")).toInteger(), parent);
        const QList<CheckpointRecord> checkpoints = runs.db->checkpoints(parent).value();
        const bool hasBest = std::any_of(checkpoints.begin(), checkpoints.end(), [](const CheckpointRecord &c) { return c.best; });
        QCOMPARE(init.value(QStringLiteral("checkpoint")).toString(), hasBest ? QStringLiteral("best") : QStringLiteral("last"));
        QCOMPARE(doc->shownStage(), 0);
        QCOMPARE(doc->shownStageFrozenNodes(), QStringList{QStringLiteral("fc1")});
        QCOMPARE(window->scene()->nodeItem(QStringLiteral("fc1"))->frozenInStage(), QStringLiteral("head"));
        QVERIFY(window->scene()->nodeItem(QStringLiteral("fc2"))->frozenInStage().isEmpty());
        QVERIFY(doc->report().ok());

        QSignalSpy again(window->training(), &TrainingPanel::runFinished);
        const qint64 child = trainAndWaitForStart();
        QVERIFY(child > 0);
        QVERIFY(again.wait(120000));
        QCOMPARE(again.first().at(1).toString(), QStringLiteral("finished"));
        const QList<StageRecord> stages = runs.db->stages(child).value();
        QCOMPARE(stages.size(), 2);
        QCOMPARE(stages[0].frozen, QStringList{QStringLiteral("fc1")});
        QCOMPARE(runInfo(child).provenance.value(QStringLiteral("init_from")).toObject().value(QStringLiteral("run")).toInteger(), parent);
        QTRY_COMPARE(browser->model()->index(browser->model()->rowOfRun(child), RunsTableModel::ParentColumn).data().toString(),
                     QStringLiteral("#%1").arg(parent));
        // The curves mark the second stage where it began.
        QVERIFY(window->training()->plottedRuns().contains(child));
        MetricPlot *plot = window->training()->lossPlot();
        QTRY_COMPARE(plot->stageMarks(child).size(), 1);
        QCOMPARE(plot->stageMarks(child).first().name, QStringLiteral("all"));
        QCOMPARE(plot->stageMarks(child).first().step, stages[1].startStep);
    }

    // The optimizer node's "Find learning rate…" runs the test in a worker, recorded as a run of kind lrfind; the
    // node's lr changes only when a suggestion is clicked, as one undo step.
    void findLearningRateSetsOnlyTheClickedRate()
    {
        window->document()->setPreset(tytest::tinyPreset(1, 512));
        window->document()->setSelectedNodes({QStringLiteral("opt")});
        auto *find = window->inspector()->findChild<QPushButton *>(QStringLiteral("findLearningRate"));
        QVERIFY(find);
        QTest::mouseClick(find, Qt::LeftButton);
        auto *dialog = window->findChild<LearningRateFinderDialog *>();
        QVERIFY(dialog);
        QTRY_VERIFY_WITH_TIMEOUT(!dialog->running(), 120000);
        QVERIFY2(dialog->valleyButton()->isEnabled(), qPrintable(dialog->statusLabel()->text()));
        const auto lr = [this] { return window->document()->graph().node(QStringLiteral("opt"))->params.value(QStringLiteral("lr")).toDouble(); };
        QCOMPARE(lr(), 0.1);  // nothing applied without the click
        const QList<RunInfo> recorded = runs.db->listRuns().value();
        QVERIFY(!recorded.isEmpty());
        QCOMPARE(recorded.first().kind, QString::fromLatin1(kRunKindLrFind));
        QSignalSpy chosen(dialog, &LearningRateFinderDialog::rateChosen);
        QTest::mouseClick(dialog->valleyButton(), Qt::LeftButton);
        QCOMPARE(chosen.count(), 1);
        const double valley = chosen.first().at(1).toDouble();
        QVERIFY(valley >= 1e-7 && valley <= 10);
        QCOMPARE(lr(), valley);
        window->document()->undoStack()->undo();
        QCOMPARE(lr(), 0.1);
    }

    void aGraphWithErrorsIsNotTrained()
    {
        window->document()->setPreset(tytest::brokenPreset());
        const qint64 before = window->training()->browser()->model()->rowCount();
        QSignalSpy started(window->training(), &TrainingPanel::runStarted);
        auto *issuesDock = window->findChild<QDockWidget *>(QStringLiteral("issuesDock"));
        issuesDock->hide();
        window->setMode(WindowMode::Experiments);
        QVERIFY(!window->trainDocument());
        // F5 with errors goes back to Design and raises the Issues list.
        QCOMPARE(int(window->mode()), int(WindowMode::Design));
        QVERIFY(issuesDock->isVisible());
        // The node of the first error is selected (the mismatch shows where the 3 classes meet the 4 labels).
        const Issues issues = window->document()->report().issues;
        const auto error = std::find_if(issues.begin(), issues.end(), [](const Issue &i) { return i.severity == Severity::Error; });
        QVERIFY(error != issues.end());
        QVERIFY(!error->node.isEmpty());
        QCOMPARE(window->document()->selectedNodes(), QStringList{error->node});
        QVERIFY(!started.wait(1500));
        QCOMPARE(window->training()->controllers().size(), 0);
        QCOMPARE(window->training()->browser()->model()->rowCount(), before);
    }

    // The editor runs the checks `run` makes before training: a warm start from a run that is not in the app's
    // database, or from a file that is no safetensors file, is an error in the Issues list, not a refused start.
    // A start the worker refuses anyway (the editor bypassed) is shown in full, in Design, its node selected.
    void theEditorRefusesWhatTheRunRefuses()
    {
        auto errorsAt = [this](const QString &param) {
            window->document()->validateNow();
            QStringList messages;
            for (const Issue &issue : window->document()->report().issues)
                if (issue.severity == Severity::Error && issue.param == param)
                    messages << issue.message;
            return messages.join(QLatin1Char('\n'));
        };
        Preset preset = tytest::tinyPreset();
        preset.training.insert(QStringLiteral("init_from"), QJsonObject{{QStringLiteral("run"), 9999}});
        window->document()->setPreset(preset);
        const QString noRun = errorsAt(QStringLiteral("training.init_from.run"));
        QVERIFY2(noRun.contains(QStringLiteral("9999")), qPrintable(noRun));
        QTemporaryDir dir;
        const QString notWeights = dir.filePath(QStringLiteral("notes.safetensors"));
        QFile file(notWeights);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("these are notes, not tensors\n");
        file.close();
        preset.training.insert(QStringLiteral("init_from"), QJsonObject{{QStringLiteral("file"), notWeights}});
        window->document()->setPreset(preset);
        const QString badFile = errorsAt(QStringLiteral("training.init_from.file"));
        QVERIFY2(badFile.contains(notWeights), qPrintable(badFile));
        // The validation that follows an edit runs on the validation thread and reaches the same verdict.
        window->document()->setTrainingValue(QStringLiteral("epochs"), 3);
        QVERIFY(window->document()->validationPending());
        QTRY_VERIFY(!window->document()->validationPending());
        bool flagged = false;
        for (const Issue &issue : window->document()->report().issues)
            flagged = flagged || issue.param == QStringLiteral("training.init_from.file");
        QVERIFY(flagged);

        window->setMode(WindowMode::Experiments);
        QSignalSpy finished(window->training(), &TrainingPanel::runFinished);
        QVERIFY(window->training()->startTraining(tytest::brokenPreset(), QString(), TrainingOptions()).ok());
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.first().at(1).toString(), QStringLiteral("rejected"));
        QCOMPARE(int(window->mode()), int(WindowMode::Design));
        // The classifier's 3 outputs meet 4 classes at the loss: the whole sentence, and the node selected.
        QVERIFY2(window->lastRefusal().startsWith(QStringLiteral("node “loss”, input: expects [4] logits per sample (4 classes), got [3]")),
                 qPrintable(window->lastRefusal()));
        QCOMPARE(window->document()->selectedNodes(), QStringList{QStringLiteral("loss")});
    }

    void openingARunsPresetPutsItOnTheCanvas()
    {
        Preset preset = tytest::tinyPreset();
        preset.name = QStringLiteral("from a run");
        Q_EMIT window->training()->openPresetRequested(preset);
        QCOMPARE(window->document()->preset().name, QStringLiteral("from a run"));
        QVERIFY(window->document()->fileName().isEmpty());  // saving asks where
        QCOMPARE(window->document()->graph().nodes.size(), preset.graph.nodes.size());
    }

    // The three modes each take the whole window: Design's docks hide elsewhere and come back; Ctrl+1/2/3 and the
    // tabs switch. A finished run is evaluated by itself; Evaluate in the browser shows its confusion matrix,
    // a clicked cell lists exactly that cell's samples, the per-class table sorts, a second run compares, and a
    // dropped file is classified by a worker.
    void modesAndTheEvaluateView()
    {
        QCOMPARE(int(window->mode()), int(WindowMode::Design));
        window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(window.get()));
        auto *palette = window->findChild<QDockWidget *>(QStringLiteral("paletteDock"));
        QVERIFY(palette && palette->isVisible());
        QTest::keyClick(window.get(), Qt::Key_2, Qt::ControlModifier);
        QCOMPARE(int(window->mode()), int(WindowMode::Experiments));
        QVERIFY(window->training()->isVisible());
        QVERIFY(!palette->isVisible());
        QVERIFY(!window->view()->isVisible());
        QTest::keyClick(window.get(), Qt::Key_1, Qt::ControlModifier);
        QVERIFY(palette->isVisible());
        QVERIFY(window->view()->isVisible());
        window->modeBar()->setCurrentIndex(2);
        QCOMPARE(int(window->mode()), int(WindowMode::Evaluate));
        QVERIFY(window->evaluation()->isVisible());
        window->setMode(WindowMode::Design);

        // Two finished runs of different widths.
        QList<qint64> ids;
        for (int width : {16, 2}) {
            Preset preset = tytest::tinyPreset(3, 1024);
            preset.graph.node(QStringLiteral("fc1"))->params.insert(QStringLiteral("out_features"), width);
            window->document()->setPreset(preset);
            QSignalSpy finished(window->training(), &TrainingPanel::runFinished);
            ids << trainAndWaitForStart();
            QVERIFY(finished.wait(120000));
            QCOMPARE(finished.first().at(1).toString(), QStringLiteral("finished"));
        }
        window->training()->browser()->selectRuns({ids[0], ids[1]});
        const QList<qint64> selected = window->training()->browser()->selectedRunIds();  // in table order
        QCOMPARE(selected.size(), 2);
        QPushButton *evaluate = buttonLabelled(window->training(), QStringLiteral("Evaluate"));
        QVERIFY(evaluate && evaluate->isEnabled());
        QTest::mouseClick(evaluate, Qt::LeftButton);
        QCOMPARE(int(window->mode()), int(WindowMode::Evaluate));
        EvaluationView *view = window->evaluation();
        QCOMPARE(view->runId(), selected[0]);
        QCOMPARE(view->report().count, qint64(128));
        QCOMPARE(view->report().accuracy, runs.db->lastMetricValues(selected[0]).value().value(QStringLiteral("test/accuracy")));
        QCOMPARE(view->compareChooser()->currentData().toLongLong(), selected[1]);
        ConfusionMatrixView *matrix = view->confusion();
        QCOMPARE(matrix->classCount(), 4);
        qint64 total = 0;
        for (int t = 0; t < 4; ++t)
            for (int p = 0; p < 4; ++p)
                total += matrix->count(t, p);
        QCOMPARE(total, qint64(128));

        // A cell with samples: click it, its samples are listed (as rows: blobs are not images).
        QTRY_VERIFY_WITH_TIMEOUT(view->samplesLoaded(), 20000);
        int cellTrue = -1, cellPredicted = -1;
        for (int t = 0; t < 4 && cellTrue < 0; ++t)
            for (int p = 0; p < 4 && cellTrue < 0; ++p)
                if (t != p && matrix->count(t, p) > 0) {
                    cellTrue = t;
                    cellPredicted = p;
                }
        if (cellTrue < 0)
            cellTrue = cellPredicted = 0;
        QTest::mouseClick(matrix, Qt::LeftButton, {}, matrix->cellRect(cellTrue, cellPredicted).center());
        QCOMPARE(matrix->selectedCell(), QPoint(cellPredicted, cellTrue));
        QCOMPARE(qint64(view->gallery()->count()), matrix->count(cellTrue, cellPredicted));
        QVERIFY2(view->gallery()->item(0)->text().contains(QStringLiteral("x0 ")), qPrintable(view->gallery()->item(0)->text()));

        // Per class, compared with the second run, sorted by F1 with the averages kept last.
        QCOMPARE(view->scores()->rowCount(), 6);
        QVERIFY(view->scores()->comparing());
        QCOMPARE(view->scores()->columnCount(), 7);
        view->scoresView()->sortByColumn(ClassScoresModel::F1Column, Qt::DescendingOrder);
        const QAbstractItemModel *sorted = view->scoresView()->model();
        for (int row = 1; row < 4; ++row)
            QVERIFY(sorted->index(row - 1, ClassScoresModel::F1Column).data(Qt::UserRole).toDouble()
                    >= sorted->index(row, ClassScoresModel::F1Column).data(Qt::UserRole).toDouble());
        QCOMPARE(sorted->index(4, 0).data().toString(), QStringLiteral("macro avg"));

        // A file of two samples (an IDX of floats, [2, 8]) classified by the worker: bars of the 4 classes.
        QTemporaryDir dir;
        const QString idx = dir.filePath(QStringLiteral("two.idx"));
        {
            QFile file(idx);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(QByteArray::fromHex("00000d02" "00000002" "00000008"));
            for (int i = 0; i < 16; ++i)
                file.write(QByteArray::fromHex("3f800000"));  // 1.0f, big-endian
        }
        const QString one = dir.filePath(QStringLiteral("one.idx"));  // and a second file, of one sample
        {
            QFile file(one);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(QByteArray::fromHex("00000d02" "00000001" "00000008"));
            for (int i = 0; i < 8; ++i)
                file.write(QByteArray::fromHex("00000000"));
        }
        // Both files at once, as a drop of several files: every sample of every file gets its bars.
        QSignalSpy predicted(view, &EvaluationView::predictionFinished);
        view->classifyFiles({idx, one});
        QVERIFY(predicted.wait(60000));
        const QList<ClassifiedInput> inputs = view->prediction()->inputs();
        QCOMPARE(inputs.size(), 3);
        const QStringList titles{QStringLiteral("two.idx[0]"), QStringLiteral("two.idx[1]"), QStringLiteral("one.idx[0]")};
        for (int i = 0; i < 3; ++i) {
            QVERIFY2(inputs[i].title.contains(titles[i]), qPrintable(inputs[i].title));
            QCOMPARE(inputs[i].bars.size(), 4);  // every class of four (the top 5 asked for)
            double sum = 0;
            for (const auto &bar : inputs[i].bars)
                sum += bar.second;
            QVERIFY(std::abs(sum - 1.0) < 1e-3);
        }
        // A file it cannot read: said so, no bars.
        view->classifyFile(dir.filePath(QStringLiteral("nothing.png")));
        QVERIFY(predicted.wait(60000));
        QVERIFY(view->prediction()->inputs().isEmpty());
        QVERIFY2(view->prediction()->message().contains(QStringLiteral("nothing.png")), qPrintable(view->prediction()->message()));

        // Export from the browser, by a worker: an ONNX model and the safetensors weights of the selected run.
        window->setMode(WindowMode::Experiments);
        RunBrowser *browser = window->training()->browser();
        browser->selectRuns({selected[0]});
        QPushButton *exportButton = buttonLabelled(window->training(), QStringLiteral("Export…"));
        QVERIFY(exportButton && exportButton->isEnabled());
        QSignalSpy exported(browser, &RunBrowser::exportFinished);
        const QString onnx = dir.filePath(QStringLiteral("model.onnx")), weights = dir.filePath(QStringLiteral("model.safetensors"));
        QVERIFY(browser->exportRun(selected[0], QStringLiteral("onnx"), onnx));
        QVERIFY(exported.wait(60000));
        QVERIFY2(exported.last().at(1).toBool(), qPrintable(exported.last().at(2).toString()));
        QVERIFY(QFileInfo(onnx).size() > 500);
        QVERIFY(browser->exportRun(selected[0], QStringLiteral("safetensors"), weights));
        QVERIFY(exported.wait(60000));
        QVERIFY(exported.last().at(1).toBool());
        const Result<TensorFile> read = readSafetensors(weights);
        QVERIFY(read.ok());
        QVERIFY(read.value().find(QStringLiteral("fc1.weight")) != nullptr);
        // A run without a checkpoint file cannot be exported, and says why.
        QVERIFY(browser->exportRun(999999, QStringLiteral("onnx"), dir.filePath(QStringLiteral("none.onnx"))));
        QVERIFY(exported.wait(60000));
        QVERIFY(!exported.last().at(1).toBool());
        QVERIFY2(exported.last().at(2).toString().contains(QStringLiteral("999999")), qPrintable(exported.last().at(2).toString()));

        // Back to Design: the docks that were open come back.
        QTest::keyClick(window.get(), Qt::Key_1, Qt::ControlModifier);
        QVERIFY(palette->isVisible());
    }

    // The app and several trainyard-cli run processes on one database: the app trains one run while
    // a terminal trains the same deterministic preset into the same database, and the app's browser edits
    // notes and tags meanwhile. No writer fails, both runs record every row, and the terminal's run shows up in
    // the app's browser while it trains and plots like the app's own.
    void aTerminalRunOnTheSameDatabaseShowsUpAndNoRowIsLost()
    {
        // Long enough (a few seconds) that the terminal's run still trains when the app's has started and the
        // browser shows both, even on a loaded machine: the notes below must be written while it runs.
        Preset preset = tytest::tinyPreset(80, 4096);
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("terminal.trainyard.json"));
        QVERIFY(savePreset(preset, file).ok());
        window->document()->setPreset(preset);
        const int before = window->training()->browser()->model()->rowCount();

        QProcess terminal;
        terminal.setProcessChannelMode(QProcess::MergedChannels);
        terminal.start(tytest::workerPath(), {QStringLiteral("run"), file, QStringLiteral("--db"), runs.path,
                                              QStringLiteral("--name"), QStringLiteral("from a terminal"),
                                              QStringLiteral("--quiet")});
        QVERIFY(terminal.waitForStarted());
        QSignalSpy finished(window->training(), &TrainingPanel::runFinished);
        const qint64 appRun = trainAndWaitForStart();
        QVERIFY(appRun > 0);

        // The terminal's run appears in the browser while it trains; selected, it is plotted (beside the app's run,
        // which stays plotted after it ends only while it is selected too).
        qint64 terminalRun = 0;
        QTRY_VERIFY_WITH_TIMEOUT(window->training()->browser()->model()->rowCount() == before + 2, 20000);
        for (int row = 0; row < window->training()->browser()->model()->rowCount(); ++row)
            if (window->training()->browser()->model()->runAt(row).name == QStringLiteral("from a terminal"))
                terminalRun = window->training()->browser()->model()->runAt(row).id;
        QVERIFY(terminalRun > 0);
        window->training()->browser()->selectRuns({terminalRun, appRun});
        QTRY_VERIFY(window->training()->plottedRuns().contains(terminalRun));
        QVERIFY2(terminal.state() == QProcess::Running,
                 qPrintable(QStringLiteral("the terminal's run ended before the app could write beside it (exit %1): %2")
                                .arg(terminal.exitCode()).arg(QString::fromLocal8Bit(terminal.readAll()))));
        for (int i = 0; i < 20 && terminal.state() == QProcess::Running; ++i) {  // the app writes meanwhile
            QVERIFY(window->training()->browser()->saveNotesAndTags(terminalRun, QStringLiteral("note %1").arg(i),
                                                                    QStringLiteral("concurrent, app")).ok());
            QTest::qWait(50);
        }

        QVERIFY(terminal.state() == QProcess::NotRunning || terminal.waitForFinished(120000));
        const QByteArray output = terminal.readAll();
        QVERIFY2(terminal.exitCode() == 0, output.constData());
        QVERIFY2(!output.contains("locked"), output.constData());
        QVERIFY(!finished.isEmpty() || finished.wait(120000));  // no waiting when it has already finished
        QCOMPARE(finished.first().at(1).toString(), QStringLiteral("finished"));
        QCOMPARE(runInfo(terminalRun).status, RunStatus::Finished);
        QCOMPARE(runInfo(terminalRun).tags, (QStringList{QStringLiteral("app"), QStringLiteral("concurrent")}));

        // The same deterministic preset and seed: row for row the same metrics, none lost on either side (but for
        // the speed report's timings).
        const auto withoutSpeed = [](QList<MetricPoint> points) {
            points.removeIf([](const MetricPoint &p) { return p.name.startsWith(QStringLiteral("speed/")); });
            return points;
        };
        const QList<MetricPoint> a = withoutSpeed(runs.db->metrics(appRun).value());
        const QList<MetricPoint> b = withoutSpeed(runs.db->metrics(terminalRun).value());
        QVERIFY(a.size() > 100);
        QCOMPARE(a.size(), b.size());
        for (qsizetype i = 0; i < a.size(); ++i) {
            QCOMPARE(a.at(i).name, b.at(i).name);
            QCOMPARE(a.at(i).step, b.at(i).step);
            QCOMPARE(a.at(i).value, b.at(i).value);
        }
        QTRY_COMPARE(window->training()->lossPlot()->sampleCount(terminalRun, QStringLiteral("train/loss")),
                     window->training()->lossPlot()->sampleCount(appRun, QStringLiteral("train/loss")));
    }

    // A run started in a terminal is stopped from the browser: its Resume button reads Stop while the run
    // trains; the terminal's trainyard-cli gets SIGINT as from Ctrl-C, writes a checkpoint and exits 130.
    void aTerminalRunIsStoppedFromTheBrowser()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("long.trainyard.json"));
        QVERIFY(savePreset(tytest::tinyPreset(100000, 4096), file).ok());
        QProcess terminal;
        terminal.setProcessChannelMode(QProcess::MergedChannels);
        terminal.start(tytest::workerPath(), {QStringLiteral("run"), file, QStringLiteral("--db"), runs.path,
                                              QStringLiteral("--name"), QStringLiteral("stopped from the app"),
                                              QStringLiteral("--quiet")});
        QVERIFY(terminal.waitForStarted());
        RunBrowser *browser = window->training()->browser();
        const auto terminalRun = [browser]() -> qint64 {
            for (int row = 0; row < browser->model()->rowCount(); ++row)
                if (browser->model()->runAt(row).name == QStringLiteral("stopped from the app")
                    && browser->model()->runAt(row).status == RunStatus::Running)
                    return browser->model()->runAt(row).id;
            return 0;
        };
        QTRY_VERIFY_WITH_TIMEOUT(terminalRun() > 0, 30000);
        const qint64 id = terminalRun();
        QTRY_VERIFY_WITH_TIMEOUT(!runs.db->metrics(id, QStringLiteral("train/loss")).value().isEmpty(), 30000);
        window->setMode(WindowMode::Experiments);  // the browser's page
        browser->selectRuns({id});
        QPushButton *stop = nullptr;
        QTRY_VERIFY((stop = buttonLabelled(browser, QStringLiteral("Stop"))) != nullptr && stop->isEnabled());
        QVERIFY(buttonLabelled(browser, QStringLiteral("Resume")) == nullptr);
        stop->click();
        QVERIFY2(terminal.waitForFinished(30000), qPrintable(QStringLiteral("the terminal run did not stop: %1 / %2")
                                                                 .arg(browser->statusText(), window->statusBar()->currentMessage())));
        QCOMPARE(terminal.exitCode(), 130);
        QCOMPARE(runInfo(id).status, RunStatus::Stopped);
        QVERIFY(!runs.db->checkpoints(id).value().isEmpty());
        browser->refresh();
        QTRY_VERIFY(buttonLabelled(browser, QStringLiteral("Resume")) != nullptr);
    }

    void killingTheWorkerLeavesTheAppRunningAndTheRunInterrupted()
    {
        window->document()->setPreset(tytest::tinyPreset(100000, 4096));
        QSignalSpy finished(window->training(), &TrainingPanel::runFinished);
        const qint64 id = trainAndWaitForStart();
        QVERIFY(id > 0);
        QTRY_VERIFY(window->action(QStringLiteral("stop-all"))->isEnabled());
        const qint64 pid = window->training()->controllers().first()->processId();
        QVERIFY(pid > 0);
        QCOMPARE(::kill(pid_t(pid), SIGKILL), 0);  // as the OOM killer or a user's kill -9 would
        QVERIFY(finished.wait(30000));
        QCOMPARE(finished.first().at(1).toString(), QStringLiteral("interrupted"));
        QCOMPARE(runInfo(id).status, RunStatus::Interrupted);
        QVERIFY(window->isVisible());
        QVERIFY(!window->action(QStringLiteral("stop-all"))->isEnabled());
        // The app goes on: the same graph trains again.
        window->document()->setPreset(tytest::tinyPreset(2, 512));
        QSignalSpy again(window->training(), &TrainingPanel::runFinished);
        QVERIFY(trainAndWaitForStart() > id);
        QVERIFY(again.wait(60000));
        QCOMPARE(again.first().at(1).toString(), QStringLiteral("finished"));
    }

    // Stopping and resuming from the app: Stop All, then the browser's Resume continues the same run record from its
    // checkpoint; the rows after the checkpoint are replaced, never duplicated.
    void aStoppedRunResumesFromTheBrowser()
    {
        Preset preset = tytest::tinyPreset(80, 4096);
        window->document()->setPreset(preset);
        QSignalSpy finished(window->training(), &TrainingPanel::runFinished);
        const qint64 id = trainAndWaitForStart();
        QVERIFY(id > 0);
        QTRY_VERIFY(runs.db->metrics(id, QStringLiteral("train/loss")).value().size() > 20);
        window->action(QStringLiteral("stop-all"))->trigger();
        QVERIFY(finished.wait(30000));
        QCOMPARE(finished.last().at(1).toString(), QStringLiteral("stopped"));
        QCOMPARE(runInfo(id).status, RunStatus::Stopped);

        QSignalSpy started(window->training(), &TrainingPanel::runStarted);
        window->training()->browser()->requestResume(id);
        QVERIFY(started.wait(30000));
        QCOMPARE(started.first().first().toLongLong(), id);
        QVERIFY(finished.wait(120000));
        QCOMPARE(finished.last().at(1).toString(), QStringLiteral("finished"));
        QCOMPARE(runInfo(id).status, RunStatus::Finished);
        const QList<MetricPoint> rows = runs.db->metrics(id, QStringLiteral("train/loss")).value();
        for (qsizetype i = 1; i < rows.size(); ++i)
            QVERIFY2(rows.at(i).step > rows.at(i - 1).step, qPrintable(QStringLiteral("step %1 repeats").arg(rows.at(i).step)));
        QTRY_COMPARE(window->training()->lossPlot()->sampleCount(id, QStringLiteral("train/loss")), qint64(rows.size()));
    }

    // `kill PID` (SIGTERM) of the app, as a session ending would: its worker stops with a checkpoint, the run ends
    // stopped (resumable), not interrupted.
    void terminatingTheAppStopsItsRunsWithACheckpoint()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("long.trainyard.json"));
        Preset preset = tytest::tinyPreset(100000, 4096);
        preset.name = QStringLiteral("terminated with the app");
        QVERIFY(savePreset(preset, file).ok());
        QProcess app;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), dir.filePath(QStringLiteral("config")));
        app.setProcessEnvironment(env);
        app.setProcessChannelMode(QProcess::MergedChannels);
        app.start(QStringLiteral(TRAINYARD_GUI_PATH), {file, QStringLiteral("--db"), runs.path, QStringLiteral("--train")});
        QVERIFY(app.waitForStarted());
        const auto runOfApp = [this]() -> RunInfo {
            for (const RunInfo &info : runs.db->listRuns().value())
                if (info.name == QStringLiteral("terminated with the app"))
                    return info;
            return {};
        };
        QTRY_VERIFY_WITH_TIMEOUT(runOfApp().status == RunStatus::Running, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!runs.db->metrics(runOfApp().id, QStringLiteral("train/loss")).value().isEmpty(), 30000);
        app.terminate();  // SIGTERM
        QVERIFY2(app.waitForFinished(30000), app.readAll().constData());
        QCOMPARE(app.exitStatus(), QProcess::NormalExit);
        QCOMPARE(runOfApp().status, RunStatus::Stopped);
    }

    void closingTheWindowStopsItsRunsWithACheckpoint()
    {
        window->document()->setPreset(tytest::tinyPreset(100000, 4096));
        const qint64 id = trainAndWaitForStart();
        QVERIFY(id > 0);
        QVERIFY(window->close());  // not interactive: no question, the runs are stopped
        window.reset();            // the panel waits for its workers
        QCOMPARE(runInfo(id).status, RunStatus::Stopped);
    }
};

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("TrainyardTests"));
    QApplication::setApplicationName(QStringLiteral("test_app_training"));
    TestAppTraining test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_app_training.moc"
