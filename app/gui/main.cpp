// trainyard: the desktop app. `trainyard` shows the start page (New, Open, recent files, the bundled presets),
// `trainyard FILE` opens FILE; --db PATH chooses the run database and --train starts training at once; --mode and --evaluate RUN open a mode.
// --preview-data previews the selected dataset node's data (or a transform node's augmentation) in the inspector. --baseline RUN pins a baseline;
// --sweep-dialog KEY opens Training ▸ Sweep… on KEY ("default": the dialog's own first key), shown in a screenshot;
// --classify FILES classifies files in the Evaluate view as a drop would; --curves all|CLASS shows its Curves tab
// (every class, or the class of that index); --runs-menu opens the run browser's context menu on the runs --runs
// selects, drawn over the window in a screenshot; --import FILE imports a run bundle as a drop would (a screenshot
// waits for it); --import-onnx MODEL imports an ONNX model as File ▸ Import ONNX Model… does, writing the preset to
// [file] (default: MODEL.trainyard.json beside the model) and opening it.
// --screenshot PATH renders the window into a PNG and quits (for the documentation and for checks
// under Xvfb or QT_QPA_PLATFORM=offscreen).

#include "app_theme.h"
#include "main_window.h"
#include "team_live_mirror.h"
#include "termination_signals.h"

#include "canvas/canvas_view.h"
#include "canvas/composite_view.h"
#include "document/pipeline_document.h"
#include "classifier_curves_view.h"
#include "evaluation_view.h"
#include "icons/icon_library.h"
#include "inspector/augmentation_preview_view.h"
#include "inspector/dataset_preview.h"
#include "runs/run_browser.h"
#include "sweeps/sweep_dialog.h"
#include "sweeps/sweep_view.h"
#include "training/learning_rate_finder_dialog.h"
#include "training/training_panel.h"

#include <QAction>
#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QMenu>
#include <QPainter>
#include <QPointer>
#include <QScrollArea>
#include <QTableView>
#include <QTimer>

#include <cstdio>
#include <functional>

namespace {

// A run id of --runs or --evaluate: 7, or T7 for the team store's run 7 (run -7 in Both, 7 in the Team view);
// 0, with a message, for T7 without the team's runs shown (it would name this machine's run 7).
qint64 runIdArgument(const QString &text, ty::RunBrowser::RunSource source)
{
    if (!text.startsWith(QLatin1Char('T'), Qt::CaseInsensitive))
        return text.toLongLong();
    if (source == ty::RunBrowser::RunSource::ThisMachine) {
        std::fprintf(stderr, "trainyard: %s names a run of the team store: add --team URL (and --both to see this machine's runs too)\n",
                     qPrintable(text));
        return 0;
    }
    const qint64 storeId = text.mid(1).toLongLong();
    return source == ty::RunBrowser::RunSource::Both ? -storeId : storeId;
}

// Calls `then` once the team copy has had its first sync (or failed), so that a teammate's run given on the
// command line is there; at once without a team view; after 30 s in any case.
void whenTeamCopyReady(ty::MainWindow &window, const std::function<void()> &then)
{
    const auto ready = [&window] {
        const ty::TeamLiveMirror *mirror = window.teamMirror();
        if (!mirror)
            return true;
        const ty::TeamMirrorState state = mirror->state();
        return state.syncs > 0 || !state.problem.isEmpty();
    };
    if (ready()) {
        then();
        return;
    }
    auto *poll = new QTimer(&window);
    QElapsedTimer waited;
    waited.start();
    QObject::connect(poll, &QTimer::timeout, &window, [ready, then, poll, waited] {
        if (!ready() && waited.elapsed() < 30000)
            return;
        poll->stop();
        poll->deleteLater();
        then();
    });
    poll->start(100);
}

} // namespace

int main(int argc, char **argv)
{
    // --help and --version print and quit: they need no display (over ssh, in a terminal without X).
    for (int i = 1; i < argc; ++i) {
        const QByteArray arg(argv[i]);
        if ((arg == "--help" || arg == "-h" || arg == "--help-all" || arg == "--version" || arg == "-v")
            && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY")
            && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Trainyard"));
    QApplication::setApplicationName(QStringLiteral("trainyard"));
    QApplication::setApplicationDisplayName(QStringLiteral("Trainyard"));
    QApplication::setApplicationVersion(QStringLiteral(TRAINYARD_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("trainyard"));
    QApplication::setWindowIcon(ty::icons::appIcon());

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Trainyard: build and check deep-learning pipelines."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("file"), QStringLiteral("A preset (*.trainyard.json) to open."),
                                 QStringLiteral("[file]"));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                        QStringLiteral("Render the window into PATH (PNG) and quit."),
                                        QStringLiteral("path"));
    const QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Window size, e.g. 1600x1000."),
                                  QStringLiteral("WxH"));
    const QCommandLineOption select(QStringLiteral("select"), QStringLiteral("Select these nodes (comma-separated)."),
                                    QStringLiteral("ids"));
    const QCommandLineOption openBlock(QStringLiteral("open-block"),
                                       QStringLiteral("Open the inner graph of these composite nodes, outer first (comma-separated)."),
                                       QStringLiteral("ids"));
    const QCommandLineOption scheme(QStringLiteral("color-scheme"),
                                    QStringLiteral("Force a light or dark palette for this start (View ▸ Theme chooses one for good)."),
                                    QStringLiteral("light|dark"));
    const QCommandLineOption empty(QStringLiteral("new"), QStringLiteral("Start with an empty canvas."));
    const QCommandLineOption arrange(QStringLiteral("arrange"),
                                     QStringLiteral("Auto-arrange the graph after opening it (an undoable edit)."));
    const QCommandLineOption database(QStringLiteral("db"),
                                      QStringLiteral("The run database to record runs in and browse (default: the "
                                                     "last one opened, else ~/.local/share/trainyard/runs.sqlite)."),
                                      QStringLiteral("path"));
    const QCommandLineOption team(QStringLiteral("team"),
                                  QStringLiteral("Show the team store's runs in Experiments: a libpq connection string without a "
                                                 "password, remembered as Training ▸ Team Store… (docs/team.md)."),
                                  QStringLiteral("url"));
    const QCommandLineOption both(QStringLiteral("both"),
                                  QStringLiteral("With --team: show this machine's runs and the team's in one list (Both)."));
    const QCommandLineOption train(QStringLiteral("train"), QStringLiteral("Start training the preset at once."));
    const QCommandLineOption mode(QStringLiteral("mode"), QStringLiteral("Open in this mode."),
                                  QStringLiteral("design|experiments|evaluate"));
    const QCommandLineOption evaluate(QStringLiteral("evaluate"),
                                      QStringLiteral("Open the Evaluate mode on this run (RUN or RUN,OTHER to compare)."),
                                      QStringLiteral("run"));
    const QCommandLineOption runs(QStringLiteral("runs"),
                                  QStringLiteral("Select these runs in the run browser (comma-separated ids, T7 for the team store's "
                                                 "run 7): their curves are plotted and compared."),
                                  QStringLiteral("ids"));
    const QCommandLineOption previewData(QStringLiteral("preview-data"),
                                         QStringLiteral("Preview the data of the selected dataset node in the inspector (as its button does)."));
    const QCommandLineOption sweep(QStringLiteral("sweep"), QStringLiteral("Open Experiments ▸ Sweeps on this sweep."),
                                   QStringLiteral("id"));
    const QCommandLineOption queue(QStringLiteral("queue"), QStringLiteral("Open Experiments ▸ Queue."));
    const QCommandLineOption speed(QStringLiteral("speed"), QStringLiteral("Open Experiments ▸ Speed (on the runs --runs selects)."));
    const QCommandLineOption baseline(QStringLiteral("baseline"), QStringLiteral("Pin this run as the baseline."),
                                      QStringLiteral("id"));
    const QCommandLineOption sweepDialog(QStringLiteral("sweep-dialog"),
                                         QStringLiteral("Open Training ▸ Sweep… on this key (default: the dialog's first)."),
                                         QStringLiteral("key|default"));
    const QCommandLineOption classify(QStringLiteral("classify"),
                                      QStringLiteral("With --evaluate: classify these files (comma-separated) as if dropped on the view."),
                                      QStringLiteral("files"));
    const QCommandLineOption curves(QStringLiteral("curves"),
                                    QStringLiteral("With --evaluate: show the ROC and precision-recall curves of every class, or of the "
                                                   "class of this index."),
                                    QStringLiteral("all|class"));
    const QCommandLineOption runsMenu(QStringLiteral("runs-menu"),
                                      QStringLiteral("With --runs: open the run browser's context menu on them (shown in a screenshot)."));
    const QCommandLineOption importBundle(QStringLiteral("import"),
                                          QStringLiteral("Import this run bundle into the run database, as dropping it on the window does."),
                                          QStringLiteral("file"));
    const QCommandLineOption importOnnx(QStringLiteral("import-onnx"),
                                        QStringLiteral("Import this ONNX model, writing the preset to [file] (default: MODEL.trainyard.json "
                                                       "beside it) and its weights beside that, and open it."),
                                        QStringLiteral("model"));
    const QCommandLineOption findLr(QStringLiteral("find-lr"),
                                    QStringLiteral("Run this optimizer node's Find learning rate… (a screenshot waits for its curve)."),
                                    QStringLiteral("node"));
    const QCommandLineOption delay(QStringLiteral("screenshot-delay"),
                                   QStringLiteral("Wait this long before the screenshot (e.g. for --train)."), QStringLiteral("ms"));
    parser.addOptions({screenshot, size, select, openBlock, scheme, empty, arrange, database, train, mode, evaluate, runs, previewData,
                       sweep, queue, speed, baseline, sweepDialog, classify, curves, runsMenu, importBundle, importOnnx, findLr,
                       delay, team, both});
    parser.process(app);

    // View ▸ Theme's choice, unless --color-scheme forces one for this start.
    if (parser.isSet(scheme))
        ty::applyTheme(parser.value(scheme) == QStringLiteral("dark") ? ty::AppTheme::Dark : ty::AppTheme::Light);
    else
        ty::applyTheme(ty::savedTheme());

    ty::MainWindow window;
    const bool shooting = parser.isSet(screenshot);
    window.setInteractive(!shooting);
    if (parser.isSet(size)) {
        const QStringList wh = parser.value(size).split(QLatin1Char('x'));
        if (wh.size() == 2)
            window.resize(wh.at(0).toInt(), wh.at(1).toInt());
    }
    window.show();

    // With no file the start page offers the presets (packaging/bootstrap.sh run names the default preset).
    const QString file = parser.positionalArguments().value(0);
    bool showsDocument = !file.isEmpty();
    if (parser.isSet(importOnnx)) {
        showsDocument = window.importOnnxModel(parser.value(importOnnx), file);
        if (!showsDocument) {
            std::fprintf(stderr, "trainyard: --import-onnx: %s\n", qPrintable(window.lastRefusal()));
            if (shooting)
                return 2;
        }
    } else if (!file.isEmpty() && !window.openFile(file) && shooting) {
        return 1;
    }
    if (!showsDocument && !parser.isSet(empty))
        window.showStartPage();
    const QString dbPath = parser.isSet(database) ? parser.value(database) : ty::MainWindow::preferredRunDatabase();
    if (const ty::Status opened = window.openRunDatabase(dbPath); !opened.ok())
        std::fprintf(stderr, "trainyard: %s\n", qPrintable(opened.error().toString()));
    if (parser.isSet(team)) {
        if (const ty::Status set = window.setTeamStore(parser.value(team)); !set.ok()) {
            std::fprintf(stderr, "trainyard: --team: %s\n", qPrintable(set.error().toString()));
            return 2;
        }
        if (const ty::Status shown = window.showRunSource(parser.isSet(both) ? ty::RunBrowser::RunSource::Both : ty::RunBrowser::RunSource::Team);
            !shown.ok())
            std::fprintf(stderr, "trainyard: %s\n", qPrintable(shown.error().toString()));
        window.setMode(ty::WindowMode::Experiments);
    }
    if (parser.isSet(baseline))
        window.training()->browser()->setBaseline(parser.value(baseline).toLongLong());
    // A teammate's run comes with the team copy's first sync: --runs and --evaluate wait for it, a screenshot for them.
    int waitingForTeam = 0;
    if (parser.isSet(runs)) {
        QList<qint64> ids;
        for (const QString &text : parser.value(runs).split(QLatin1Char(','), Qt::SkipEmptyParts))
            if (const qint64 id = runIdArgument(text, window.runSource()); id != 0)
                ids << id;
        ++waitingForTeam;
        whenTeamCopyReady(window, [&window, ids, &waitingForTeam] {
            window.training()->browser()->selectRunsWhenListed(ids);  // listed once the watcher has read the copy
            --waitingForTeam;
        });
    }
    ty::quitGracefullyOnTermination([&window] { window.stopTraining(); });
    if (parser.isSet(train))
        QTimer::singleShot(0, &window, [&window] { window.trainDocument(); });
    if (parser.isSet(arrange))
        window.action(QStringLiteral("arrange"))->trigger();
    for (const QString &id : parser.value(openBlock).split(QLatin1Char(','), Qt::SkipEmptyParts))
        if (!window.composites()->open(id)) {
            std::fprintf(stderr, "trainyard: --open-block: %s is not a composite node here\n", qPrintable(id));
            return 2;
        }
    if (parser.isSet(select))
        window.composites()->currentDocument()->setSelectedNodes(parser.value(select).split(QLatin1Char(','), Qt::SkipEmptyParts));
    if (parser.isSet(mode)) {
        const QStringList modes{QStringLiteral("design"), QStringLiteral("experiments"), QStringLiteral("evaluate")};
        if (!modes.contains(parser.value(mode))) {
            std::fprintf(stderr, "trainyard: --mode must be design, experiments or evaluate\n");
            return 2;
        }
        window.setMode(ty::WindowMode(modes.indexOf(parser.value(mode))));
    } else if (parser.isSet(runsMenu)) {
        window.setMode(ty::WindowMode::Experiments);  // where the run browser the menu belongs to is
    }
    if (parser.isSet(evaluate)) {
        const QStringList runs = parser.value(evaluate).split(QLatin1Char(','));
        const qint64 run = runIdArgument(runs.value(0), window.runSource()), other = runIdArgument(runs.value(1), window.runSource());
        ++waitingForTeam;
        whenTeamCopyReady(window, [&window, run, other, &waitingForTeam] {
            window.showEvaluation(run, other);
            --waitingForTeam;
        });
    }
    if (parser.isSet(curves)) {
        window.evaluation()->showCurves();
        bool isIndex = false;
        const int index = parser.value(curves).toInt(&isIndex);
        window.evaluation()->curves()->showClass(isIndex ? index : -1);
    }
    // A screenshot waits for the classification's answer.
    const bool classifying = parser.isSet(classify);
    if (classifying) {
        QObject::connect(window.evaluation(), &ty::EvaluationView::predictionFinished, &window,
                         [&window] { window.setProperty("classified", true); });
        window.evaluation()->classifyFiles(parser.value(classify).split(QLatin1Char(','), Qt::SkipEmptyParts));
    }
    // A screenshot waits for the import's report too.
    const bool importing = parser.isSet(importBundle);
    if (importing) {
        QObject::connect(window.training()->browser(), &ty::RunBrowser::bundleImported, &window,
                         [&window] { window.setProperty("imported", true); });
        if (!window.importRunBundle(parser.value(importBundle)))
            window.setProperty("imported", true);
    }
    if (parser.isSet(sweep))
        window.showSweep(parser.value(sweep).toLongLong());
    if (parser.isSet(queue))
        window.showQueue();
    if (parser.isSet(speed))
        window.showSpeed();
    // Not modal, so that a screenshot can wait for it and draw it over the window.
    QPointer<ty::SweepDialog> sweepBox;
    if (parser.isSet(sweepDialog)) {
        const QString key = parser.value(sweepDialog) == QLatin1String("default") ? QString() : parser.value(sweepDialog);
        sweepBox = new ty::SweepDialog(window.document()->preset(), key, &window);
        sweepBox->setAttribute(Qt::WA_DeleteOnClose);
        sweepBox->show();
    }

    // An optimizer's learning-rate test, in a worker: a screenshot waits for the curve.
    QPointer<ty::LearningRateFinderDialog> finder;
    const bool findingLr = parser.isSet(findLr);
    bool findStarted = false;
    if (findingLr)
        QTimer::singleShot(300, &window, [&] {
            findStarted = true;
            finder = window.findLearningRate(parser.value(findLr));
            if (finder)
                finder->resize(860, 560);
        });

    // The data preview reads the data set on a worker thread, once the window has settled (the inspector may
    // rebuild its page meanwhile): a screenshot waits for it, scrolled into view.
    const bool previewing = parser.isSet(previewData);
    if (previewing) {
        QTimer::singleShot(500, &window, [&window] {
            // A data set node's Preview data, or a transform node's Preview augmentation.
            QWidget *preview = window.findChild<ty::DatasetPreview *>();
            if (!preview)
                preview = window.findChild<ty::AugmentationPreviewView *>();
            if (!preview) {
                std::fprintf(stderr, "trainyard: --preview-data needs one selected dataset or transform node (--select)\n");
                window.setProperty("previewDone", true);
                return;
            }
            // Done when it finishes (scrolled into view), or when the inspector drops it: never waits for ever.
            QPointer<QWidget> guarded(preview);
            const auto finished = [&window, guarded] {
                QTimer::singleShot(100, &window, [&window, guarded] {
                    if (guarded)
                        for (QWidget *w = guarded->parentWidget(); w; w = w->parentWidget())
                            if (auto *scroll = qobject_cast<QScrollArea *>(w)) {
                                scroll->ensureWidgetVisible(guarded, 0, 0);
                                break;
                            }
                    window.setProperty("previewDone", true);
                });
            };
            QObject::connect(preview, &QObject::destroyed, &window, [&window] { window.setProperty("previewDone", true); });
            QTimer::singleShot(60000, &window, [&window] { window.setProperty("previewDone", true); });
            if (auto *data = qobject_cast<ty::DatasetPreview *>(preview)) {
                QObject::connect(data, &ty::DatasetPreview::finished, &window, finished);
                data->load();
            } else if (auto *augmentation = qobject_cast<ty::AugmentationPreviewView *>(preview)) {
                QObject::connect(augmentation, &ty::AugmentationPreviewView::finished, &window, finished);
                augmentation->preview();
            }
        });
    }

    // Where a right click on the first selected run would open it, once the window has laid out.
    QPointer<QMenu> runsContextMenu;
    const auto openRunsMenu = [&window, &runsContextMenu] {
        ty::RunBrowser *browser = window.training()->browser();
        QTableView *table = browser->view();
        const QModelIndexList rows = table->selectionModel()->selectedRows();
        const QRect cell = rows.isEmpty() ? QRect() : table->visualRect(rows.first());
        runsContextMenu = browser->createContextMenu(&window);
        runsContextMenu->setAttribute(Qt::WA_DeleteOnClose);
        runsContextMenu->popup(table->viewport()->mapToGlobal(cell.isValid() ? cell.center() : QPoint(40, 20)));
    };
    if (parser.isSet(runsMenu) && !shooting)
        QTimer::singleShot(600, &window, openRunsMenu);

    QElapsedTimer shotClock;  // from the screenshot's first look: it waits at most 20 s for --runs' teammates' runs
    if (shooting) {
        // Let the window lay out, validate and paint (and the data preview load), then render it.
        const int wait = parser.isSet(delay) ? parser.value(delay).toInt() : parser.isSet(evaluate) ? 2500 : 600;
        QTimer::singleShot(wait, &window, [&] {
            shotClock.start();
            if (parser.isSet(select) && !window.document()->selectedNodes().isEmpty())
                window.view()->ensureNodeVisible(window.document()->selectedNodes().first());
            auto *poll = new QTimer(&window);
            QObject::connect(poll, &QTimer::timeout, &window, [&, poll] {
                if (waitingForTeam > 0 || (window.training()->browser()->hasPendingSelection() && shotClock.elapsed() < 20000)
                    || (previewing && !window.property("previewDone").toBool()) || (classifying && !window.property("classified").toBool())
                    || (importing && !window.property("imported").toBool()) || (findingLr && (!findStarted || (finder && finder->running()))))
                    return;
                poll->stop();
                if (window.training()->browser()->hasPendingSelection())
                    std::fprintf(stderr, "trainyard: --runs: not every run was listed within 20 s (no such run here?); the screenshot "
                                         "shows those that were\n");
                if (parser.isSet(runsMenu))
                    openRunsMenu();
                QTimer::singleShot(200, &window, [&] {
                    QPixmap shot = window.grab();
                    QPainter painter(&shot);
                    for (QWidget *over : {static_cast<QWidget *>(sweepBox.data()), static_cast<QWidget *>(runsContextMenu.data()),
                                          static_cast<QWidget *>(finder.data())})
                        if (over)  // where it is on the screen, over the window
                            painter.drawPixmap(over->geometry().topLeft() - window.geometry().topLeft(), over->grab());
                    painter.end();
                    const bool ok = shot.save(parser.value(screenshot));
                    std::fprintf(ok ? stdout : stderr, "%s %s\n", ok ? "wrote" : "cannot write",
                                 qPrintable(parser.value(screenshot)));
                    QApplication::exit(ok ? 0 : 1);
                });
            });
            poll->start(100);
        });
    }
    return app.exec();
}
