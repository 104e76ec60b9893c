// The main window at 1280x720 whatever its run database holds: with real runs, an evaluation and a sweep of
// several parameters recorded by the real trainyard-cli, no mode asks for more than the screen, the window does
// not grow when the user visits Evaluate and Sweeps, and Design's docks (palette, inspector) keep the widths
// they have with an empty database. On failure the test names the widgets that ask for the most width.

#include "training_ui_support.h"

#include "main_window.h"

#include "document/pipeline_document.h"
#include "evaluation_view.h"
#include "preset_format.h"
#include "sweeps/sweep_view.h"

#include <QApplication>
#include <QDockWidget>
#include <QFile>
#include <QJsonDocument>
#include <QProcess>
#include <QScreen>
#include <QTest>

#include <algorithm>
#include <memory>

using namespace ty;

namespace {

constexpr int kWidth = 1280;
constexpr int kHeight = 720;

// The visible widgets under `root` whose minimum width exceeds `limit`, widest first: what to fix.
QString widestWidgets(QWidget *root, int limit)
{
    QList<QPair<int, QString>> wide;
    for (QWidget *w : root->findChildren<QWidget *>()) {
        if (!w->isVisibleTo(root))
            continue;
        const int width = std::max(w->minimumSizeHint().width(), w->minimumWidth());
        if (width > limit)
            wide.append({width, QStringLiteral("%1 '%2' %3").arg(QString::fromLatin1(w->metaObject()->className()),
                                                                  w->objectName()).arg(width)});
    }
    std::sort(wide.begin(), wide.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
    QStringList lines;
    for (int i = 0; i < std::min<qsizetype>(12, wide.size()); ++i)
        lines << wide.at(i).second;
    return lines.join(QStringLiteral("; "));
}

struct DockWidths {
    int palette = 0;
    int inspector = 0;
};

} // namespace

class TestAppLayout : public QObject {
    Q_OBJECT
    tytest::RunsFixture runs;
    QTemporaryDir files;

    static int cli(const QStringList &arguments)
    {
        QProcess process;
        process.setProcessChannelMode(QProcess::MergedChannels);
        process.start(tytest::workerPath(), arguments);
        if (!process.waitForFinished(240000))
            return -2;
        if (process.exitCode() != 0)
            qWarning("%s", process.readAll().constData());
        return process.exitCode();
    }

    std::unique_ptr<MainWindow> openWindow(const QString &database)
    {
        auto window = std::make_unique<MainWindow>();
        window->setInteractive(false);
        window->resize(kWidth, kHeight);
        window->show();
        if (!QTest::qWaitForWindowExposed(window.get()))
            return nullptr;
        if (!window->openRunDatabase(database).ok())
            return nullptr;
        window->document()->setPreset(tytest::tinyPreset(1, 256));
        QApplication::processEvents();
        return window;
    }

    static DockWidths designDocks(MainWindow *window)
    {
        DockWidths widths;
        for (QDockWidget *dock : window->findChildren<QDockWidget *>()) {
            if (dock->objectName() == QLatin1String("paletteDock"))
                widths.palette = dock->width();
            if (dock->objectName() == QLatin1String("inspectorDock"))
                widths.inspector = dock->width();
        }
        return widths;
    }

    // Whether the window still fits 1280x720 and asks for no more; names the widest widgets otherwise.
    static void checkFits(MainWindow *window, const char *where)
    {
        QApplication::processEvents();
        QTest::qWait(50);
        const QSize minimum = window->minimumSizeHint().expandedTo(window->minimumSize());
        QVERIFY2(minimum.width() <= kWidth && minimum.height() <= kHeight,
                 qPrintable(QStringLiteral("%1: the window needs at least %2x%3; widest: %4")
                                .arg(QLatin1String(where)).arg(minimum.width()).arg(minimum.height())
                                .arg(widestWidgets(window, kWidth / 2))));
        QVERIFY2(window->width() <= kWidth && window->height() <= kHeight,
                 qPrintable(QStringLiteral("%1: the window grew to %2x%3").arg(QLatin1String(where))
                                .arg(window->width()).arg(window->height())));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(runs.open());
        QVERIFY(files.isValid());
        qputenv("TRAINYARD_CLI", tytest::workerPath().toUtf8());
        // A preset whose sweep varies three parameters with long values, recorded by the real CLI.
        const QString preset = files.filePath(QStringLiteral("tiny.trainyard.json"));
        QFile out(preset);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QJsonDocument(presetToJson(tytest::tinyPreset(1, 256))).toJson());
        out.close();
        QCOMPARE(cli({QStringLiteral("sweep"), preset, QStringLiteral("--grid"),
                      QStringLiteral("opt.lr=0.0123456789,0.0234567891"), QStringLiteral("--grid"),
                      QStringLiteral("fc1.out_features=16,24"), QStringLiteral("--set"),
                      QStringLiteral("training.batch_size=32"), QStringLiteral("--name"),
                      QStringLiteral("A sweep with a rather long name to see whether its title widens the window"),
                      QStringLiteral("--db"), runs.path}),
                 0);
        QCOMPARE(cli({QStringLiteral("evaluate"), QStringLiteral("1"), QStringLiteral("--db"), runs.path}), 0);
    }

    void everyModeFits1280x720WithASweep()
    {
        if (QGuiApplication::primaryScreen()->availableGeometry().width() < kWidth)
            QSKIP("the screen is smaller than 1280x720");
        auto window = openWindow(runs.path);
        QVERIFY(window);
        checkFits(window.get(), "Design");
        window->setMode(WindowMode::Experiments);
        checkFits(window.get(), "Experiments");
        window->showSweep(1);
        QCOMPARE(window->sweepView()->currentSweep(), qint64(1));
        checkFits(window.get(), "Experiments ▸ Sweeps");
        window->showQueue();
        checkFits(window.get(), "Experiments ▸ Queue");
        window->showSpeed();
        checkFits(window.get(), "Experiments ▸ Speed");
        window->showEvaluation(1);
        checkFits(window.get(), "Evaluate");
        window->setMode(WindowMode::Design);
        checkFits(window.get(), "Design, after the other modes");
    }

    void designDocksDoNotDependOnTheDatabase()
    {
        const QString empty = files.filePath(QStringLiteral("empty.sqlite"));
        DockWidths withEmpty;
        {
            auto window = openWindow(empty);
            QVERIFY(window);
            withEmpty = designDocks(window.get());
        }
        QVERIFY(withEmpty.palette > 0 && withEmpty.inspector > 0);
        auto window = openWindow(runs.path);
        QVERIFY(window);
        window->showSweep(1);
        window->showEvaluation(1);
        window->setMode(WindowMode::Design);
        QApplication::processEvents();
        const DockWidths withSweep = designDocks(window.get());
        QVERIFY2(withSweep.palette == withEmpty.palette && withSweep.inspector == withEmpty.inspector,
                 qPrintable(QStringLiteral("palette %1 and inspector %2 wide with a sweep, %3 and %4 without; "
                                           "widest widgets: %5")
                                .arg(withSweep.palette).arg(withSweep.inspector).arg(withEmpty.palette)
                                .arg(withEmpty.inspector).arg(widestWidgets(window.get(), 400))));
    }
};

QTEST_MAIN(TestAppLayout)
#include "test_app_layout.moc"
