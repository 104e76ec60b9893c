// The team's runs in the real main window (docs/team.md), on a real X display under xvfb-run: Training ▸ Team
// Store… refuses a connection string that holds a password (nothing stored), takes one without; the run browser's
// "This machine / Team" choice then shows the team's runs (a teammate's, marked with its machine) beside going back
// to this machine's; the Team view is read only; the Evaluate view shows a team run's evaluation; a teammate's new
// run appears while the Team view is open.

#include "main_window.h"

#include "evaluation/evaluation_view.h"
#include "required_data.h"
#include "runs/run_browser.h"
#include "runs/runs_table_model.h"
#include "team_live_mirror.h"
#include "team_test_support.h"
#include "training/training_panel.h"

#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QProcess>
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

} // namespace

class TestAppTeam : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void teamRunsShowBesideThisMachinesRuns()
    {
        const QString server = fixtureServer();
        if (server.isEmpty())
            TY_SKIP_WITHOUT_DATA("no PostgreSQL server (install postgresql-15; the team_server fixture starts one)");
        QSettings().remove(QStringLiteral("team/store"));  // from an earlier run of this test
        qunsetenv("TRAINYARD_TEAM");
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

        // Evaluate on a team run: its test split's evaluation came with it.
        window.showEvaluation(run.id);
        QCOMPARE(window.evaluation()->runId(), run.id);
        QVERIFY(window.evaluation()->report().count > 0);

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
};

QTEST_MAIN(TestAppTeam)
#include "test_app_team.moc"
