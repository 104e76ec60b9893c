// The team's runs in the real main window (docs/team.md), on a real X display under xvfb-run: Training ▸ Team
// Store… refuses a connection string that holds a password (nothing stored), takes one without; the run browser's
// "This machine / Team" choice then shows the team's runs (a teammate's, marked with its machine) beside going back
// to this machine's; the Team view is read only; the Evaluate view shows a team run's evaluation; a teammate's new
// run appears while the Team view is open. Both: this machine's runs and the teammates' in one list, a run that is
// local and replicated once (as the local, editable run), a teammate's read only with its machine; the plots,
// Compare and the Evaluate view read a teammate's run there too.

#include "main_window.h"

#include "evaluation/evaluation_view.h"
#include "evaluation/probability_bars.h"
#include "plots/run_metrics_feed.h"
#include "required_data.h"
#include "run_database.h"
#include "runs/run_browser.h"
#include "runs/run_comparison_view.h"
#include "runs/runs_table_model.h"
#include "team_live_mirror.h"
#include "team_test_support.h"
#include "training/training_panel.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QLabel>
#include <QListWidget>
#include <QProcess>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QTableView>
#include <QTest>

using namespace tyteam;

namespace {

int sqlite(const QString &db, const QString &sql)
{
    return QProcess::execute(QStringLiteral("sqlite3"), {db, sql});
}

// Trains one small run into `db`, as if on the machine `host`, and pushes the database to `store`.
bool teammateRun(const QTemporaryDir &dir, const QString &db, const QString &store, const QString &name)
{
    const CliResult run = cli({QStringLiteral("run"), blobsPreset(dir, 1), QStringLiteral("--db"), db, QStringLiteral("--quiet"),
                               QStringLiteral("--name"), name});
    if (run.code != 0) {
        qWarning("run: %s", qPrintable(run.err));
        return false;
    }
    if (sqlite(db, QStringLiteral("UPDATE runs SET host = 'teammate-box'")) != 0)
        return false;
    const CliResult pushed = cli({QStringLiteral("team"), QStringLiteral("push"), QStringLiteral("--db"), db, QStringLiteral("--team"), store});
    if (pushed.code != 0)
        qWarning("push: %s", qPrintable(pushed.err));
    return pushed.code == 0;
}

// Shows `window` on Experiments with the run database `db` and the team store `store`.
bool showExperiments(ty::MainWindow &window, const QString &db, const QString &store)
{
    window.setInteractive(false);
    window.resize(1280, 720);
    window.show();
    if (!QTest::qWaitForWindowExposed(&window) || !window.openRunDatabase(db).ok() || !window.setTeamStore(store).ok())
        return false;
    window.setMode(ty::WindowMode::Experiments);
    return true;
}

} // namespace

class TestAppTeam : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void init()
    {
        QSettings().remove(QStringLiteral("team/store"));  // from an earlier test or run
        qunsetenv("TRAINYARD_TEAM");
    }

    void teamRunsShowBesideThisMachinesRuns()
    {
        const QString server = fixtureServer();
        if (server.isEmpty())
            TY_SKIP_WITHOUT_DATA("no PostgreSQL server (install postgresql-15; the team_server fixture starts one)");
        const QString store = createDatabase(server);
        const QString teammate = m_dir.filePath(QStringLiteral("teammate.sqlite"));
        QVERIFY(teammateRun(m_dir, teammate, store, QStringLiteral("teammate's blobs")));
        const QString mine = m_dir.filePath(QStringLiteral("mine.sqlite"));
        QCOMPARE(cli({"run", blobsPreset(m_dir, 1), "--db", mine, "--quiet", "--name", "my blobs"}).code, 0);

        ty::MainWindow window;
        window.setInteractive(false);
        window.resize(1280, 720);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.openRunDatabase(mine).ok());
        ty::RunBrowser *browser = window.training()->browser();
        QComboBox *source = browser->sourceChoice();
        QVERIFY(!source->isVisibleTo(browser));  // no store yet
        QCOMPARE(browser->model()->rowCount(), 1);

        // A password is refused, and nothing is remembered.
        const ty::Status refused = window.setTeamStore(store + QStringLiteral(" password=hunter2"));
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error().toString().contains(QStringLiteral("pgpass")), qPrintable(refused.error().toString()));
        QCOMPARE(window.teamStore(), QString());
        QVERIFY(!QSettings().value(QStringLiteral("team/store")).toString().contains(QStringLiteral("hunter2")));
        QVERIFY(window.setTeamStore(store).ok());
        QCOMPARE(QSettings().value(QStringLiteral("team/store")).toString(), store);
        QVERIFY(source->isVisibleTo(browser));
        QCOMPARE(qgetenv("TRAINYARD_TEAM"), store.toUtf8());  // the workers it starts replicate

        // Team: the teammate's run, marked with its machine; read only.
        window.setMode(ty::WindowMode::Experiments);
        source->setCurrentIndex(1);
        QVERIFY(window.showsTeamRuns());
        QTRY_COMPARE_WITH_TIMEOUT(browser->model()->rowCount(), 1, 20000);
        QTRY_VERIFY_WITH_TIMEOUT(window.teamStatusLabel()->text().contains(QStringLiteral("live")), 10000);
        const ty::RunSummaryRow &run = browser->model()->runAt(0);
        QCOMPARE(run.name, QStringLiteral("teammate's blobs"));
        QCOMPARE(browser->model()->index(0, ty::RunsTableModel::MachineColumn).data().toString(), QStringLiteral("teammate-box"));
        QVERIFY(!browser->view()->isColumnHidden(ty::RunsTableModel::MachineColumn));
        browser->selectRuns({run.id});
        QVERIFY(!(browser->model()->flags(browser->model()->index(0, ty::RunsTableModel::NameColumn)) & Qt::ItemIsEditable));
        for (QPushButton *button : browser->findChildren<QPushButton *>())
            if (button->text() == QStringLiteral("Rename") || button->text() == QStringLiteral("Delete…"))
                QVERIFY2(!button->isEnabled(), qPrintable(button->text()));

        // Evaluate on a team run: its test split's evaluation came with it, and its samples.
        window.showEvaluation(run.id);
        QCOMPARE(window.evaluation()->runId(), run.id);
        QVERIFY(window.evaluation()->report().count > 0);
        window.evaluation()->showCell(0, 0);
        QVERIFY(window.evaluation()->gallery()->count() > 0);

        // A teammate's new run appears while the Team view is open.
        QVERIFY(teammateRun(m_dir, teammate, store, QStringLiteral("teammate's second")));
        QTRY_COMPARE_WITH_TIMEOUT(browser->model()->rowCount(), 2, 10000);

        if (!qEnvironmentVariableIsEmpty("TRAINYARD_TEAM_SCREENSHOT")) {
            window.setMode(ty::WindowMode::Experiments);
            QTest::qWait(500);
            window.grab().save(qEnvironmentVariable("TRAINYARD_TEAM_SCREENSHOT"));
        }

        // Back to this machine: its own run, the Machine column hidden, edits allowed.
        source->setCurrentIndex(0);
        QVERIFY(!window.showsTeamRuns());
        QVERIFY(!window.teamMirror());
        QTRY_COMPARE(browser->model()->rowCount(), 1);
        QCOMPARE(browser->model()->runAt(0).name, QStringLiteral("my blobs"));
        QVERIFY(browser->view()->isColumnHidden(ty::RunsTableModel::MachineColumn));
        QCOMPARE(window.training()->databasePath(), QFileInfo(mine).absoluteFilePath());
    }

    void bothListsThisMachinesAndTheTeamsRuns()
    {
        const QString server = fixtureServer();
        if (server.isEmpty())
            TY_SKIP_WITHOUT_DATA("no PostgreSQL server (install postgresql-15; the team_server fixture starts one)");
        const QString store = createDatabase(server);
        const QString teammate = m_dir.filePath(QStringLiteral("both-teammate.sqlite"));
        QVERIFY(teammateRun(m_dir, teammate, store, QStringLiteral("teammate's blobs")));
        // This machine: a run that was pushed (on the store too) and one that never was.
        const QString mine = m_dir.filePath(QStringLiteral("both-mine.sqlite"));
        QCOMPARE(cli({"run", blobsPreset(m_dir, 1), "--db", mine, "--quiet", "--name", "my pushed blobs"}).code, 0);
        QCOMPARE(cli({"team", "push", "--db", mine, "--team", store}).code, 0);
        QCOMPARE(cli({"run", blobsPreset(m_dir, 1), "--db", mine, "--quiet", "--name", "my unpushed blobs"}).code, 0);

        ty::MainWindow window;
        QVERIFY(showExperiments(window, mine, store));
        ty::RunBrowser *browser = window.training()->browser();
        ty::RunsTableModel *model = browser->model();
        QCOMPARE(browser->sourceChoice()->itemText(2), QStringLiteral("Both"));
        browser->sourceChoice()->setCurrentIndex(2);
        QCOMPARE(window.runSource(), ty::RunBrowser::RunSource::Both);
        QVERIFY(!window.showsTeamRuns());
        QCOMPARE(window.training()->databasePath(), QFileInfo(mine).absoluteFilePath());  // runs are recorded here

        // Three runs: the pushed one once (local), the unpushed one, the teammate's.
        QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(), 3, 20000);
        QStringList names;
        qint64 teammateId = 0, pushedId = 0;
        for (int row = 0; row < model->rowCount(); ++row) {
            const ty::RunSummaryRow &run = model->runAt(row);
            names << run.name;
            const QString machine = model->index(row, ty::RunsTableModel::MachineColumn).data().toString();
            const bool editable = model->flags(model->index(row, ty::RunsTableModel::NameColumn)) & Qt::ItemIsEditable;
            if (run.name == QStringLiteral("teammate's blobs")) {
                teammateId = run.id;
                QVERIFY2(run.id < 0, qPrintable(QString::number(run.id)));
                QCOMPARE(machine, QStringLiteral("teammate-box"));
                QCOMPARE(model->index(row, ty::RunsTableModel::IdColumn).data().toString(),
                         QStringLiteral("T%1").arg(-run.id));
                QVERIFY(!editable);
            } else {
                QVERIFY2(run.id > 0, qPrintable(run.name));
                QVERIFY2(machine.contains(QStringLiteral("(this machine)")), qPrintable(machine));
                QVERIFY(editable);
                if (run.name == QStringLiteral("my pushed blobs"))
                    pushedId = run.id;
            }
        }
        names.sort();
        QCOMPARE(names, QStringList({"my pushed blobs", "my unpushed blobs", "teammate's blobs"}));
        QVERIFY(teammateId < 0 && pushedId > 0);
        QVERIFY(!browser->view()->isColumnHidden(ty::RunsTableModel::MachineColumn));

        // A teammate's run is read only; this machine's run is not, and its edits reach this machine's database.
        browser->selectRuns({teammateId});
        QVERIFY(browser->isReadOnlyRun(teammateId));
        for (QPushButton *button : browser->findChildren<QPushButton *>())
            if (button->text() == QStringLiteral("Rename") || button->text() == QStringLiteral("Delete…"))
                QVERIFY2(!button->isEnabled(), qPrintable(button->text()));
        QVERIFY(!browser->bundleAction()->isEnabled());
        browser->selectRuns({pushedId});
        QVERIFY(!browser->isReadOnlyRun(pushedId));
        QVERIFY(browser->renameRun(pushedId, QStringLiteral("my renamed blobs")).ok());
        QTRY_COMPARE(model->runAt(model->rowOfRun(pushedId)).name, QStringLiteral("my renamed blobs"));
        {
            auto local = ty::RunDatabase::open(mine);
            QVERIFY(local.ok());
            QCOMPARE(local.value()->run(pushedId).value().name, QStringLiteral("my renamed blobs"));
        }

        // The plots read the teammate's curves, and Compare sets it beside a local run.
        bool curveArrived = false;
        const QMetaObject::Connection watching = QObject::connect(
            window.training()->feed(), &ty::RunMetricsFeed::rowsArrived,
            [&](qint64 runId, const QList<ty::MetricPoint> &rows) { curveArrived = curveArrived || (runId == teammateId && !rows.isEmpty()); });
        browser->selectRuns({teammateId, pushedId});
        QTRY_VERIFY_WITH_TIMEOUT(curveArrived, 5000);
        QObject::disconnect(watching);
        const QString teammateLoss = browser->comparison()->cellText(QStringLiteral("train/loss"), QStringLiteral("last"), teammateId);
        QVERIFY2(!teammateLoss.isEmpty() && teammateLoss != QStringLiteral("–"), qPrintable(teammateLoss));
        QVERIFY(!browser->comparison()->cellText(QStringLiteral("train/loss"), QStringLiteral("last"), pushedId).isEmpty());

        // Evaluate: the teammate's test-split evaluation, with its samples (a confusion cell lists them, as many as
        // the teammate's own database has); Classify says why it cannot (the checkpoint files are on its machine).
        window.showEvaluation(teammateId, pushedId);
        ty::EvaluationView *evaluation = window.evaluation();
        QCOMPARE(evaluation->runId(), teammateId);
        QVERIFY(evaluation->report().count > 0);
        qsizetype inCell = 0;
        {
            auto theirs = ty::RunDatabase::open(teammate);
            QVERIFY(theirs.ok());
            const auto evaluations = theirs.value()->evaluations(1);
            QVERIFY(evaluations.ok() && !evaluations.value().isEmpty());
            inCell = theirs.value()->evaluationSamples(evaluations.value().first().id, 1, 1).value().size();
        }
        QVERIFY(inCell > 0);
        evaluation->showCell(1, 1);
        QCOMPARE(qsizetype(evaluation->gallery()->count()), std::min<qsizetype>(inCell, ty::EvaluationView::kMaxThumbnails));
        QVERIFY(QDir(teammate + QStringLiteral("-runs")).removeRecursively());  // as on another machine
        evaluation->classifyFile(blobsPreset(m_dir, 1));
        QVERIFY2(evaluation->prediction()->message().contains(QStringLiteral("on the machine that trained it (teammate-box)")),
                 qPrintable(evaluation->prediction()->message()));

        // A teammate's new run and a new local run both appear.
        QVERIFY(teammateRun(m_dir, teammate, store, QStringLiteral("teammate's second")));
        QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(), 4, 10000);
        QCOMPARE(cli({"run", blobsPreset(m_dir, 1), "--db", mine, "--quiet", "--name", "my third blobs"}).code, 0);
        QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(), 5, 10000);

        if (!qEnvironmentVariableIsEmpty("TRAINYARD_TEAM_SCREENSHOT")) {
            QTest::qWait(500);
            window.grab().save(qEnvironmentVariable("TRAINYARD_TEAM_SCREENSHOT"));
        }

        // This machine: its three runs only, the same database.
        browser->sourceChoice()->setCurrentIndex(0);
        QCOMPARE(window.runSource(), ty::RunBrowser::RunSource::ThisMachine);
        QTRY_COMPARE(model->rowCount(), 3);
        QVERIFY(!window.teamMirror());
        QCOMPARE(window.training()->databasePath(), QFileInfo(mine).absoluteFilePath());
        for (int row = 0; row < model->rowCount(); ++row)
            QVERIFY(model->runAt(row).id > 0);
    }

    // A teammate's fine-tune names its parent under the store's id, not its id in the teammate's database: in
    // `runs show --team`, the Team view and Both (where a parent replicated from here is this machine's run).
    void teammatesFineTunesNameTheirParentsHere()
    {
        const QString server = fixtureServer();
        if (server.isEmpty())
            TY_SKIP_WITHOUT_DATA("no PostgreSQL server (install postgresql-15; the team_server fixture starts one)");
        const QString store = createDatabase(server);
        // This machine: "my base" (run 1, store run 1).
        const QString mine = m_dir.filePath(QStringLiteral("lineage-mine.sqlite"));
        QCOMPARE(cli({"run", blobsPreset(m_dir, 1), "--db", mine, "--quiet", "--name", "my base"}).code, 0);
        QCOMPARE(cli({"team", "push", "--db", mine, "--team", store}).code, 0);
        // The teammate: runs 1 to 3 (3 fine-tunes 2); run 4 is "my base" from a bundle, and run 5 fine-tunes it.
        // Their ids here would name other runs on the store: 1 is "my base", 2 is "filler".
        const QString theirs = m_dir.filePath(QStringLiteral("lineage-teammate.sqlite"));
        const QString bundle = m_dir.filePath(QStringLiteral("my-base.tybundle"));
        QCOMPARE(cli({"runs", "export", "1", "--bundle", bundle, "--db", mine}).code, 0);
        QCOMPARE(cli({"run", blobsPreset(m_dir, 1), "--db", theirs, "--quiet", "--name", "filler"}).code, 0);
        QCOMPARE(cli({"run", blobsPreset(m_dir, 1), "--db", theirs, "--quiet", "--name", "their base"}).code, 0);
        QCOMPARE(cli({"run", blobsPreset(m_dir, 1), "--db", theirs, "--quiet", "--name", "their fine-tune", "--init-from", "2"}).code, 0);
        QCOMPARE(cli({"runs", "import", bundle, "--db", theirs}).code, 0);
        QCOMPARE(cli({"run", blobsPreset(m_dir, 1), "--db", theirs, "--quiet", "--name", "their fine-tune of mine", "--init-from", "4"}).code, 0);
        QCOMPARE(cli({"team", "push", "--db", theirs, "--team", store}).code, 0);

        // On the store, by name ("my base" once; looked up rather than assumed).
        QHash<QString, qint64> onStore;
        for (const QJsonValue &run : QJsonDocument::fromJson(cli({"runs", "list", "--team", store, "--json"}).out.toUtf8()).array())
            onStore.insert(run[QStringLiteral("name")].toString(), run[QStringLiteral("id")].toInteger());
        QCOMPARE(onStore.size(), 5);
        const qint64 myBase = onStore.value(QStringLiteral("my base")), theirBase = onStore.value(QStringLiteral("their base"));
        const qint64 theirFineTune = onStore.value(QStringLiteral("their fine-tune"));
        const qint64 ofMine = onStore.value(QStringLiteral("their fine-tune of mine"));
        QCOMPARE(myBase, 1);
        // The teammate's push of its imported copy left the record of "my base" as this machine pushed it.
        const QJsonObject myBaseOnStore = jsonOf(cli({"runs", "show", "1", "--team", store, "--json"}));
        QVERIFY2(myBaseOnStore.value(QStringLiteral("folder")).toString().startsWith(mine + QStringLiteral("-runs")),
                 qPrintable(myBaseOnStore.value(QStringLiteral("folder")).toString()));
        QVERIFY(theirBase != 2 && theirBase != 1);  // else the test could not tell the ids apart
        const auto parentOnStore = [&](qint64 id) {
            const CliResult shown = cli({"runs", "show", QString::number(id), "--team", store, "--json"});
            return jsonOf(shown).value(QStringLiteral("parent")).toObject();
        };
        QCOMPARE(parentOnStore(theirFineTune).value(QStringLiteral("run")).toInteger(), theirBase);
        QCOMPARE(parentOnStore(ofMine).value(QStringLiteral("run")).toInteger(), myBase);
        const CliResult text = cli({"runs", "show", QString::number(theirFineTune), "--team", store});
        QVERIFY2(text.out.contains(QStringLiteral("parent     run %1 (their base)").arg(theirBase)), qPrintable(text.out));

        ty::MainWindow window;
        QVERIFY(showExperiments(window, mine, store));
        ty::RunBrowser *browser = window.training()->browser();
        ty::RunsTableModel *model = browser->model();
        const auto rowNamed = [model](const QString &name) {
            for (int row = 0; row < model->rowCount(); ++row)
                if (model->runAt(row).name == name)
                    return row;
            return -1;
        };
        const auto fromText = [model](int row) { return model->index(row, ty::RunsTableModel::ParentColumn).data().toString(); };

        // Team: the store's ids.
        browser->sourceChoice()->setCurrentIndex(1);
        QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(), 5, 20000);
        QCOMPARE(model->runAt(rowNamed(QStringLiteral("their fine-tune"))).parentRunId(), theirBase);
        QCOMPARE(fromText(rowNamed(QStringLiteral("their fine-tune"))), QStringLiteral("#%1").arg(theirBase));
        QCOMPARE(model->runAt(rowNamed(QStringLiteral("their fine-tune of mine"))).parentRunId(), myBase);
        // As on the command line and in Both, T<id> and from:T<id> name the store's runs here.
        browser->filterField()->setText(QStringLiteral("from:T%1").arg(theirBase));
        QTRY_COMPARE(browser->view()->model()->rowCount(), 1);
        browser->filterField()->setText(QStringLiteral("T%1").arg(theirBase));
        QTRY_COMPARE(browser->view()->model()->rowCount(), 1);
        browser->filterField()->clear();

        // Both: the teammate's base is T<its store id>, "my base" is this machine's run 1.
        browser->sourceChoice()->setCurrentIndex(2);
        QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(), 5, 20000);
        const int fineTune = rowNamed(QStringLiteral("their fine-tune"));
        QCOMPARE(model->runAt(fineTune).parentRunId(), -theirBase);
        QCOMPARE(fromText(fineTune), QStringLiteral("#T%1").arg(theirBase));
        const int fineTuneOfMine = rowNamed(QStringLiteral("their fine-tune of mine"));
        QCOMPARE(model->runAt(fineTuneOfMine).parentRunId(), 1);
        QCOMPARE(fromText(fineTuneOfMine), QStringLiteral("#1"));
        // The lineage line of their base lists its fine-tune, the fine-tune's names its base; "from:T<id>" finds it.
        browser->selectRuns({-theirBase});
        QTRY_VERIFY2(browser->lineageLabel()->text().contains(QStringLiteral("Fine-tuned into <a href=\"run:%1\">#T%2</a>").arg(-theirFineTune).arg(theirFineTune)),
                     qPrintable(browser->lineageLabel()->text()));
        browser->selectRuns({-theirFineTune});
        QTRY_VERIFY2(browser->lineageLabel()->text().contains(QStringLiteral("run #T%1 “their base”").arg(theirBase)), qPrintable(browser->lineageLabel()->text()));
        browser->filterField()->setText(QStringLiteral("from:T%1").arg(theirBase));
        QTRY_COMPARE(browser->view()->model()->rowCount(), 1);
    }
};

QTEST_MAIN(TestAppTeam)
#include "test_app_team.moc"
