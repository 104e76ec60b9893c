// RunBrowser on a database fixture: selection and baseline, the comparison of metrics side by side, the preset
// diff of two runs, notes and tags, rename, delete with confirmation, open preset and resume requests, and
// runs appearing through the poll.

#include "test_suite.h"
#include "preset_format.h"
#include "runs/preset_diff_view.h"
#include "runs/run_browser.h"
#include "runs/run_comparison_view.h"
#include "runs/run_database_watcher.h"
#include "runs/runs_filter_proxy_model.h"
#include "runs/runs_table_model.h"
#include "training_ui_support.h"

#include <QLabel>
#include <QProcess>
#include <QLineEdit>
#include <QRandomGenerator>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QSignalSpy>
#include <QTableView>
#include <QtTest>

#include <algorithm>

using namespace ty;
using tytest::RunsFixture;

class TestRunBrowser : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void showsRunsAndFilters();
    void selectionAndComparison();
    void baselineSurvivesARestart();
    void diffOfTwoRuns();
    void notesTagsAndRename();
    void deleteAsksFirst();
    void openPresetAndResume();
    void pollShowsNewRuns();
    void selectionWaitsForRunsNotListedYet();
    void idColumnWidensForLongerIds();
    void badDatabaseIsReported();
    void damagedDatabaseShowsABanner();

private:
    std::unique_ptr<RunsFixture> m_f;
    std::unique_ptr<RunBrowser> m_browser;
    qint64 m_small = 0, m_large = 0, m_broken = 0;
};

void TestRunBrowser::init()
{
    m_f = std::make_unique<RunsFixture>();
    QVERIFY(m_f->open());
    m_small = m_f->addRun(QStringLiteral("small"), RunStatus::Finished, 20);
    m_large = m_f->addRun(QStringLiteral("large"), RunStatus::Finished, 40, {QStringLiteral("good")});
    m_broken = m_f->addRun(QStringLiteral("broken"), RunStatus::Interrupted, 10);
    m_browser = std::make_unique<RunBrowser>();
    m_browser->setConfirmation([](const QString &) { return true; });
    QVERIFY(m_browser->openDatabase(m_f->path).ok());
    m_browser->resize(900, 700);
}

void TestRunBrowser::cleanup()
{
    m_browser.reset();
    m_f.reset();
}

void TestRunBrowser::showsRunsAndFilters()
{
    QCOMPARE(m_browser->view()->model()->rowCount(), 3);
    m_browser->filterField()->setText(QStringLiteral("good"));
    QCOMPARE(m_browser->proxy()->rowCount(), 1);
    QCOMPARE(m_browser->proxy()->runIdAt(0), m_large);
    m_browser->filterField()->clear();
    QCOMPARE(m_browser->proxy()->rowCount(), 3);
}

void TestRunBrowser::selectionAndComparison()
{
    QSignalSpy selection(m_browser.get(), &RunBrowser::selectionChanged);
    QSignalSpy baseline(m_browser.get(), &RunBrowser::baselineChanged);
    m_browser->selectRuns({m_small, m_large});
    QCOMPARE(m_browser->selectedRunIds().size(), 2);
    QVERIFY(selection.size() >= 1);
    QCOMPARE(selection.last().at(0).value<QList<qint64>>().size(), 2);
    RunComparisonView *comparison = m_browser->comparison();
    QCOMPARE(comparison->shownRuns().size(), 2);
    // train/loss is 1/step: best = 1/20 and 1/40; val/accuracy best = 0.02 and 0.04; count 20 and 40.
    QCOMPARE(comparison->cellText(QStringLiteral("train/loss"), QStringLiteral("best"), m_small), QStringLiteral("0.05"));
    QCOMPARE(comparison->cellText(QStringLiteral("train/loss"), QStringLiteral("max"), m_large), QStringLiteral("1"));
    QCOMPARE(comparison->cellText(QStringLiteral("val/accuracy"), QStringLiteral("last"), m_large), QStringLiteral("0.04"));
    QCOMPARE(comparison->cellText(QStringLiteral("train/loss"), QStringLiteral("count"), m_large), QStringLiteral("40"));
    // Pin the small run as the baseline: it comes first, the other shows its difference.
    m_browser->setBaseline(m_small);
    QCOMPARE(baseline.size(), 1);
    QCOMPARE(baseline.at(0).at(0).toLongLong(), m_small);
    QCOMPARE(comparison->shownRuns().first(), m_small);
    QCOMPARE(comparison->cellText(QStringLiteral("val/accuracy"), QStringLiteral("best"), m_large), QStringLiteral("0.04 (+0.02)"));
    m_browser->setBaseline(0);
    QCOMPARE(baseline.size(), 2);
}

// The pinned baseline is remembered per database: a browser opened later on the same file has it again, unless
// its run was deleted meanwhile.
void TestRunBrowser::baselineSurvivesARestart()
{
    m_browser->setBaseline(m_large);
    m_browser.reset();
    RunBrowser again;
    QVERIFY(again.openDatabase(m_f->path).ok());
    QCOMPARE(again.baselineRunId(), m_large);
    QCOMPARE(again.comparison()->shownRuns().value(0), m_large);
    QVERIFY(m_f->db->deleteRun(m_large).ok());
    RunBrowser third;
    QVERIFY(third.openDatabase(m_f->path).ok());
    QCOMPARE(third.baselineRunId(), qint64(0));
}

void TestRunBrowser::diffOfTwoRuns()
{
    // The fixture's presets differ in name only; a stored preset with changes makes a real diff.
    Preset changed = tytest::tinyPreset(7);
    changed.name = QStringLiteral("changed");
    changed.graph.node(QStringLiteral("fc1"))->params.insert(QStringLiteral("out_features"), 64);
    NewRun run;
    run.name = QStringLiteral("changed");
    run.preset = presetToJson(changed);
    const qint64 id = m_browser->database()->createRun(run).value();
    m_browser->refresh();
    m_browser->selectRuns({m_small, id});
    const QList<PresetDifference> d = m_browser->diffView()->differences();
    QStringList texts;
    for (const PresetDifference &x : d)
        texts << x.text;
    QCOMPARE(texts, (QStringList{QStringLiteral("name: \"small\" -> \"changed\""), QStringLiteral("fc1.out_features: 16 -> 64"),
                                 QStringLiteral("training.epochs: 2 -> 7")}));
    // With a baseline and one other run selected, the diff is baseline -> selected.
    m_browser->setBaseline(id);
    m_browser->selectRuns({m_small});
    QCOMPARE(m_browser->diffView()->differences().first().text, QStringLiteral("name: \"changed\" -> \"small\""));
    m_browser->setBaseline(0);
    m_browser->selectRuns({m_small});
    QVERIFY(m_browser->diffView()->differences().isEmpty());
}

void TestRunBrowser::notesTagsAndRename()
{
    QVERIFY(m_browser->saveNotesAndTags(m_small, QStringLiteral("first try"), QStringLiteral("a, b ,,")).ok());
    const RunInfo info = m_browser->database()->run(m_small).value();
    QCOMPARE(info.notes, QStringLiteral("first try"));
    QCOMPARE(info.tags, (QStringList{QStringLiteral("a"), QStringLiteral("b")}));
    QVERIFY(m_browser->renameRun(m_small, QStringLiteral("tiny")).ok());
    QCOMPARE(m_browser->database()->run(m_small).value().name, QStringLiteral("tiny"));
    const int row = m_browser->model()->rowOfRun(m_small);
    QCOMPARE(m_browser->model()->runAt(row).name, QStringLiteral("tiny"));
    QCOMPARE(m_browser->model()->allTags(), (QStringList{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("good")}));
}

void TestRunBrowser::deleteAsksFirst()
{
    QStringList questions;
    bool answer = false;
    m_browser->setConfirmation([&](const QString &question) {
        questions << question;
        return answer;
    });
    QSignalSpy deleted(m_browser.get(), &RunBrowser::runsDeleted);
    QCOMPARE(m_browser->deleteRuns({m_small}), 0);  // declined
    QCOMPARE(questions.size(), 1);
    QVERIFY(questions.first().contains(QStringLiteral("#%1").arg(m_small)));
    QVERIFY(m_browser->database()->run(m_small).ok());
    answer = true;
    const QString folder = m_browser->database()->runFolder(m_small);
    QVERIFY(QFileInfo(folder).isDir());
    QCOMPARE(m_browser->deleteRuns({m_small, m_large}), 2);
    QCOMPARE(m_browser->statusText(), QStringLiteral("2 runs deleted."));  // English plurals, not "run(s)"
    QVERIFY(!m_browser->database()->run(m_small).ok());
    QVERIFY(!QFileInfo::exists(folder));
    QCOMPARE(deleted.size(), 1);
    QCOMPARE(m_browser->model()->rowCount(), 1);
}

void TestRunBrowser::openPresetAndResume()
{
    QSignalSpy open(m_browser.get(), &RunBrowser::openPresetRequested);
    QSignalSpy resume(m_browser.get(), &RunBrowser::resumeRequested);
    m_browser->requestOpenPreset(m_large);
    QCOMPARE(open.size(), 1);
    const Preset preset = open.at(0).at(0).value<Preset>();
    QCOMPARE(preset.name, QStringLiteral("large"));
    QVERIFY(preset.graph.node(QStringLiteral("fc1")));
    m_browser->requestResume(m_large);  // finished: not resumable
    QCOMPARE(resume.size(), 0);
    QVERIFY(m_browser->statusText().contains(QStringLiteral("only interrupted")));
    m_browser->requestResume(m_broken);
    QCOMPARE(resume.size(), 1);
    QCOMPARE(resume.at(0).at(0).toLongLong(), m_broken);
}

void TestRunBrowser::pollShowsNewRuns()
{
    m_browser->watcher()->setPollInterval(20);
    const qint64 id = m_f->addRun(QStringLiteral("from a terminal"), RunStatus::Running, 5);
    QTRY_VERIFY_WITH_TIMEOUT(m_browser->model()->rowOfRun(id) >= 0, 10000);
    QCOMPARE(m_browser->model()->rowCount(), 4);
}

// `trainyard --team URL --both --runs T3` before the team copy has the run: selected once it is listed.
void TestRunBrowser::selectionWaitsForRunsNotListedYet()
{
    m_browser->watcher()->setPollInterval(20);
    const qint64 next = m_broken + 1;  // the next run's id
    m_browser->selectRunsWhenListed({m_small, next});
    QCOMPARE(m_browser->selectedRunIds(), QList<qint64>{m_small});
    QVERIFY(m_browser->hasPendingSelection());
    QCOMPARE(m_f->addRun(QStringLiteral("arrives later"), RunStatus::Finished, 5), next);
    QTRY_VERIFY_WITH_TIMEOUT(m_browser->model()->rowOfRun(next) >= 0, 10000);
    QList<qint64> selected = m_browser->selectedRunIds();
    std::sort(selected.begin(), selected.end());
    QCOMPARE(selected, (QList<qint64>{m_small, next}));
    QVERIFY(!m_browser->hasPendingSelection());
    // Chosen otherwise meanwhile: the pending selection is dropped.
    m_browser->selectRunsWhenListed({next + 1});
    m_browser->selectRuns({m_large});
    QVERIFY(!m_browser->hasPendingSelection());
}

// Fitted to runs 1 to 3, the ID column widens when a run with a longer id arrives (a teammate's T113 in Both).
void TestRunBrowser::idColumnWidensForLongerIds()
{
    m_browser->watcher()->setPollInterval(20);
    const qint64 id = m_f->createRun(QStringLiteral("long id"));
    QCOMPARE(QProcess::execute(QStringLiteral("sqlite3"), {m_f->path, QStringLiteral("UPDATE runs SET id = 123456789012 WHERE id = %1").arg(id)}), 0);
    QTRY_VERIFY_WITH_TIMEOUT(m_browser->model()->rowOfRun(123456789012) >= 0, 10000);
    QTableView *view = m_browser->view();
    QVERIFY2(view->columnWidth(RunsTableModel::IdColumn) > view->fontMetrics().horizontalAdvance(QStringLiteral("123456789012")),
             qPrintable(QString::number(view->columnWidth(RunsTableModel::IdColumn))));
}

void TestRunBrowser::badDatabaseIsReported()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("not-a-db.sqlite"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QByteArray("not a database at all\n").repeated(100));
    file.close();
    RunBrowser browser;
    QVERIFY(!browser.openDatabase(path).ok());
    QVERIFY(browser.statusText().contains(path));
    QCOMPARE(browser.model()->rowCount(), 0);
}

namespace {

// The root page of `table` in the SQLite file at `path`, and the file's page size.
std::pair<qint64, qint64> tableRootPage(const QString &path, const QString &table)
{
    const QString connection = QStringLiteral("root-page-probe");
    qint64 root = 0, pageSize = 0;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), connection);
        db.setDatabaseName(path);
        if (db.open()) {
            QSqlQuery query(db);
            if (query.exec(QStringLiteral("SELECT rootpage FROM sqlite_master WHERE name = '%1'").arg(table)) && query.next())
                root = query.value(0).toLongLong();
            if (query.exec(QStringLiteral("PRAGMA page_size")) && query.next())
                pageSize = query.value(0).toLongLong();
        }
    }
    QSqlDatabase::removeDatabase(connection);
    return {root, pageSize};
}

} // namespace

void TestRunBrowser::damagedDatabaseShowsABanner()
{
    m_browser.reset();
    m_f->db.reset();  // closed: the WAL is folded back into the file
    const auto [root, pageSize] = tableRootPage(m_f->path, QStringLiteral("runs"));
    QVERIFY(root > 0 && pageSize > 0);
    {
        QFile file(m_f->path);
        QVERIFY(file.open(QIODevice::ReadWrite));
        QByteArray garbage(int(pageSize), '\0');
        QRandomGenerator random(11);
        for (char &c : garbage)
            c = char(random.bounded(256));
        QVERIFY(file.seek((root - 1) * pageSize));
        QCOMPARE(file.write(garbage), pageSize);
    }

    RunBrowser browser;
    browser.resize(900, 700);
    browser.show();
    QVERIFY(browser.openDatabase(m_f->path).ok());  // the file opens; its list of runs does not read
    QCOMPARE(browser.model()->rowCount(), 0);
    QTRY_VERIFY(browser.loadProblemBanner()->isVisible());
    const QString text = browser.loadProblemBanner()->text();
    QVERIFY2(text.contains(QStringLiteral("the run database is damaged")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("docs/reliability.md")), qPrintable(text));
    QVERIFY2(text.contains(m_f->path), qPrintable(text));

    // A readable database hides it again.
    RunsFixture healthy;
    QVERIFY(healthy.open());
    healthy.addRun(QStringLiteral("fine"), RunStatus::Finished, 5);
    QVERIFY(browser.openDatabase(healthy.path).ok());
    QCOMPARE(browser.model()->rowCount(), 1);
    QVERIFY(!browser.loadProblemBanner()->isVisible());
}

TY_TEST_CLASS(TestRunBrowser)

#include "test_run_browser.moc"
