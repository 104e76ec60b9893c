// RunsTableModel and RunsFilterProxyModel on a run database made with RunDatabase and RunWriter: counts and
// lazy pages, columns, sorting (missing values last), filters by text, status and tag, the poll picking up new
// and changed runs, edits and deletion with the run's folder.

#include "test_suite.h"
#include "runs/runs_filter_proxy_model.h"
#include "runs/runs_table_model.h"
#include "run_writer.h"
#include "training_ui_support.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QtTest>

using namespace ty;
using tytest::RunsFixture;

namespace {

QList<qint64> proxyIds(const RunsFilterProxyModel &proxy)
{
    QList<qint64> ids;
    for (int row = 0; row < proxy.rowCount(); ++row)
        ids << proxy.runIdAt(row);
    return ids;
}

QString cell(const QAbstractItemModel &model, int row, int column)
{
    return model.data(model.index(row, column)).toString();
}

int columnOf(const QAbstractItemModel &model, const QString &header)
{
    for (int c = 0; c < model.columnCount(); ++c)
        if (model.headerData(c, Qt::Horizontal).toString() == header)
            return c;
    return -1;
}

} // namespace

class TestRunsTableModel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void columnsAndValues();
    void lazyPages();
    void sortByAnyColumn();
    void filters();
    void filterLoadsEverything();
    void refreshAddsAndUpdates();
    void refreshAfterOutsideDeletion();
    void editsAndDelete();
    void learningRateTestsAreMarked();

private:
    RunsFixture m_fixture;
    qint64 m_alpha = 0, m_beta = 0, m_gamma = 0, m_delta = 0;
};

void TestRunsTableModel::initTestCase()
{
    QVERIFY(m_fixture.open());
    m_alpha = m_fixture.addRun(QStringLiteral("alpha"), RunStatus::Finished, 30, {QStringLiteral("baseline")});
    m_beta = m_fixture.addRun(QStringLiteral("beta"), RunStatus::Failed, 5, {QStringLiteral("wide"), QStringLiteral("lr")});
    m_gamma = m_fixture.addRun(QStringLiteral("gamma"), RunStatus::Interrupted, 50, {}, QStringLiteral("special preset"));
    m_delta = m_fixture.addRun(QStringLiteral("delta"), RunStatus::Running, 20, {QStringLiteral("wide")});
    QVERIFY(m_alpha > 0 && m_beta > 0 && m_gamma > 0 && m_delta > 0);
}

void TestRunsTableModel::columnsAndValues()
{
    RunsTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setDatabase(m_fixture.db.get());
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.columnCount(), RunsTableModel::FirstMetricColumn + 8);
    // Newest first.
    QCOMPARE(model.data(model.index(0, RunsTableModel::IdColumn)).toLongLong(), m_delta);
    const int alpha = model.rowOfRun(m_alpha);
    QCOMPARE(cell(model, alpha, RunsTableModel::NameColumn), QStringLiteral("alpha"));
    QCOMPARE(cell(model, alpha, RunsTableModel::StatusColumn), QStringLiteral("finished"));
    QCOMPARE(cell(model, alpha, RunsTableModel::PresetColumn), QStringLiteral("alpha"));
    QCOMPARE(cell(model, alpha, RunsTableModel::TagsColumn), QStringLiteral("baseline"));
    QVERIFY(!cell(model, alpha, RunsTableModel::CreatedColumn).isEmpty());
    QVERIFY(!cell(model, alpha, RunsTableModel::DurationColumn).isEmpty());
    QCOMPARE(cell(model, model.rowOfRun(m_gamma), RunsTableModel::PresetColumn), QStringLiteral("special preset"));
    // Best and last of the key metrics: train/loss is 1/step (best = last = 1/30), val/accuracy step/1000.
    const int bestLoss = columnOf(model, QStringLiteral("train/loss best"));
    const int lastAccuracy = columnOf(model, QStringLiteral("val/accuracy last"));
    const int bestAccuracy = columnOf(model, QStringLiteral("val/accuracy best"));
    QVERIFY(bestLoss > 0 && lastAccuracy > 0 && bestAccuracy > 0);
    QCOMPARE(cell(model, alpha, bestLoss), RunsTableModel::formatMetric(1.0 / 30));
    QCOMPARE(cell(model, alpha, lastAccuracy), QStringLiteral("0.03"));
    QCOMPARE(model.data(model.index(alpha, bestAccuracy), RunsTableModel::SortRole).toDouble(), 0.03);
    // No test/accuracy recorded: empty, and no sort value.
    const int testBest = columnOf(model, QStringLiteral("test/accuracy best"));
    QVERIFY(cell(model, alpha, testBest).isEmpty());
    QVERIFY(!model.data(model.index(alpha, testBest), RunsTableModel::SortRole).isValid());
    // The failed run's message and node in the tooltip, statuses coloured.
    const int beta = model.rowOfRun(m_beta);
    QCOMPARE(model.data(model.index(beta, RunsTableModel::StatusColumn), Qt::ToolTipRole).toString(),
             QStringLiteral("it broke (node fc1)"));
    QVERIFY(model.data(model.index(beta, RunsTableModel::StatusColumn), Qt::ForegroundRole).isValid());
    QCOMPARE(model.data(model.index(beta, 0), RunsTableModel::StatusRole).toInt(), int(RunStatus::Failed));
    QCOMPARE(model.allTags(), (QStringList{QStringLiteral("baseline"), QStringLiteral("lr"), QStringLiteral("wide")}));
    QCOMPARE(RunsTableModel::formatDuration(3723), QStringLiteral("1:02:03"));
    QCOMPARE(RunsTableModel::formatDuration(42), QStringLiteral("0:42"));
}

void TestRunsTableModel::lazyPages()
{
    RunsTableModel model;  // no QAbstractItemModelTester here: it fetches more pages itself
    model.setPageSize(3);
    model.setDatabase(m_fixture.db.get());
    QCOMPARE(model.rowCount(), 3);
    QVERIFY(model.canFetchMore());
    QCOMPARE(model.data(model.index(2, 0)).toLongLong(), m_beta);
    model.fetchMore();
    QCOMPARE(model.rowCount(), 4);
    QVERIFY(!model.canFetchMore());
    QCOMPARE(model.data(model.index(3, 0)).toLongLong(), m_alpha);
    model.setPageSize(1);
    model.reload();  // keeps as many rows as were loaded
    QCOMPARE(model.rowCount(), 4);
}

void TestRunsTableModel::sortByAnyColumn()
{
    RunsTableModel model;
    model.setPageSize(2);  // sorting must load everything first
    model.setDatabase(m_fixture.db.get());
    RunsFilterProxyModel proxy;
    proxy.setRunsModel(&model);
    // After the source is set: the tester fetches more from inside the proxy's reset, which no view does.
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    proxy.sort(RunsTableModel::NameColumn, Qt::AscendingOrder);
    QCOMPARE(proxyIds(proxy), (QList<qint64>{m_alpha, m_beta, m_delta, m_gamma}));
    proxy.sort(RunsTableModel::NameColumn, Qt::DescendingOrder);
    QCOMPARE(proxyIds(proxy), (QList<qint64>{m_gamma, m_delta, m_beta, m_alpha}));
    proxy.sort(RunsTableModel::IdColumn, Qt::AscendingOrder);
    QCOMPARE(proxyIds(proxy), (QList<qint64>{m_alpha, m_beta, m_gamma, m_delta}));
    // train/loss best = 1/steps: the longest run is best (lowest). Ascending: gamma (50), alpha, delta, beta.
    const int bestLoss = columnOf(model, QStringLiteral("train/loss best"));
    proxy.sort(bestLoss, Qt::AscendingOrder);
    QCOMPARE(proxyIds(proxy), (QList<qint64>{m_gamma, m_alpha, m_delta, m_beta}));
    // val/accuracy: beta has none (5 steps): last in both directions.
    const int bestAccuracy = columnOf(model, QStringLiteral("val/accuracy best"));
    proxy.sort(bestAccuracy, Qt::DescendingOrder);
    QCOMPARE(proxyIds(proxy), (QList<qint64>{m_gamma, m_alpha, m_delta, m_beta}));
    proxy.sort(bestAccuracy, Qt::AscendingOrder);
    QCOMPARE(proxyIds(proxy), (QList<qint64>{m_delta, m_alpha, m_gamma, m_beta}));
    proxy.sort(RunsTableModel::StatusColumn, Qt::AscendingOrder);  // failed, finished, interrupted, running
    QCOMPARE(proxyIds(proxy), (QList<qint64>{m_beta, m_alpha, m_gamma, m_delta}));
}

void TestRunsTableModel::filters()
{
    RunsTableModel model;
    model.setDatabase(m_fixture.db.get());
    RunsFilterProxyModel proxy;
    proxy.setRunsModel(&model);
    proxy.sort(RunsTableModel::IdColumn, Qt::AscendingOrder);
    QCOMPARE(proxy.rowCount(), 4);
    proxy.setTextFilter(QStringLiteral("ALPHA"));
    QCOMPARE(proxyIds(proxy), QList<qint64>{m_alpha});
    proxy.setTextFilter(QStringLiteral("special"));  // the preset's name
    QCOMPARE(proxyIds(proxy), QList<qint64>{m_gamma});
    proxy.setTextFilter(QStringLiteral("wide"));     // a tag
    QCOMPARE(proxyIds(proxy), (QList<qint64>{m_beta, m_delta}));
    proxy.setTextFilter(QStringLiteral("wide running"));  // every word must match
    QCOMPARE(proxyIds(proxy), QList<qint64>{m_delta});
    proxy.setTextFilter(QStringLiteral("#%1").arg(m_gamma));
    QCOMPARE(proxyIds(proxy), QList<qint64>{m_gamma});
    proxy.setTextFilter(QStringLiteral("T%1").arg(m_gamma));  // a teammate's id: not one of this database's
    QCOMPARE(proxyIds(proxy), QList<qint64>{});
    proxy.setTeamIds(true);  // the Team view: its ids are the store's, T12 names 12
    QCOMPARE(proxyIds(proxy), QList<qint64>{m_gamma});
    proxy.setTextFilter(QStringLiteral("#t%1").arg(m_gamma));
    QCOMPARE(proxyIds(proxy), QList<qint64>{m_gamma});
    proxy.setTextFilter(QStringLiteral("Tanh"));  // a word that starts with T is still a word
    QCOMPARE(proxyIds(proxy), QList<qint64>{});
    proxy.setTeamIds(false);
    proxy.setTextFilter(QStringLiteral("broke"));    // the status message
    QCOMPARE(proxyIds(proxy), QList<qint64>{m_beta});
    proxy.setTextFilter(QString());
    proxy.setStatusFilter({RunStatus::Interrupted, RunStatus::Failed, RunStatus::Stopped});
    QCOMPARE(proxyIds(proxy), (QList<qint64>{m_beta, m_gamma}));
    proxy.setTagFilter(QStringLiteral("LR"));
    QCOMPARE(proxyIds(proxy), QList<qint64>{m_beta});
    proxy.setStatusFilter({});
    proxy.setTagFilter(QStringLiteral("wide"));
    QCOMPARE(proxyIds(proxy), (QList<qint64>{m_beta, m_delta}));
    proxy.setTagFilter(QString());
    QVERIFY(!proxy.isFiltering());
    QCOMPARE(proxy.rowCount(), 4);
}

void TestRunsTableModel::filterLoadsEverything()
{
    RunsTableModel model;
    model.setPageSize(1);
    model.setDatabase(m_fixture.db.get());
    RunsFilterProxyModel proxy;
    proxy.setRunsModel(&model);
    QCOMPARE(model.rowCount(), 1);
    proxy.setTextFilter(QStringLiteral("alpha"));  // the oldest run: not on the first page
    QCOMPARE(proxyIds(proxy), QList<qint64>{m_alpha});
    QCOMPARE(model.rowCount(), 4);
}

void TestRunsTableModel::refreshAddsAndUpdates()
{
    RunsFixture f;
    QVERIFY(f.open());
    const qint64 old = f.addRun(QStringLiteral("old"), RunStatus::Finished, 10);
    RunsTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setDatabase(f.db.get());
    QCOMPARE(model.rowCount(), 1);
    QVERIFY(!model.refresh());  // nothing changed: no work

    // A run another process creates and trains (through its own connection and writer).
    auto other = RunDatabase::open(f.path);
    QVERIFY(other.ok());
    NewRun fresh;
    fresh.name = QStringLiteral("from a terminal");
    fresh.preset = QJsonObject{{QStringLiteral("name"), QStringLiteral("p")}};
    const qint64 id = other.value()->createRun(fresh).value();
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QVERIFY(model.refresh());
    QCOMPARE(inserted.size(), 1);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.data(model.index(0, 0)).toLongLong(), id);
    QCOMPARE(cell(model, 0, RunsTableModel::StatusColumn), QStringLiteral("queued"));

    RunWriter writer(f.path, id, 3600 * 1000);
    QVERIFY(writer.start().ok());
    writer.appendMetric({QStringLiteral("train/loss"), 1, 1, 0.1, 0.5});
    QVERIFY(writer.flush().ok());
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QVERIFY(model.refresh());
    QVERIFY(changed.size() >= 1);
    QCOMPARE(cell(model, 0, RunsTableModel::StatusColumn), QStringLiteral("running"));
    QCOMPARE(cell(model, 0, columnOf(model, QStringLiteral("train/loss last"))), QStringLiteral("0.5"));
    QVERIFY(writer.finish(RunStatus::Finished).ok());
    QVERIFY(model.refresh());
    QCOMPARE(cell(model, 0, RunsTableModel::StatusColumn), QStringLiteral("finished"));
    QCOMPARE(model.rowOfRun(old), 1);
    QCOMPARE(model.rowCount(), 2);
}

void TestRunsTableModel::refreshAfterOutsideDeletion()
{
    RunsFixture f;
    QVERIFY(f.open());
    const qint64 a = f.addRun(QStringLiteral("a"), RunStatus::Finished, 3);
    const qint64 b = f.addRun(QStringLiteral("b"), RunStatus::Finished, 3);
    RunsTableModel model;
    model.setDatabase(f.db.get());
    QCOMPARE(model.rowCount(), 2);
    auto other = RunDatabase::open(f.path);
    QVERIFY(other.value()->deleteRun(a).ok());
    QVERIFY(model.refresh());
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.rowOfRun(b), 0);
    QCOMPARE(model.rowOfRun(a), -1);
}

void TestRunsTableModel::editsAndDelete()
{
    RunsFixture f;
    QVERIFY(f.open());
    const qint64 id = f.addRun(QStringLiteral("to edit"), RunStatus::Stopped, 3);
    const qint64 running = f.addRun(QStringLiteral("busy"), RunStatus::Running, 3);
    RunsTableModel model;
    model.setDatabase(f.db.get());
    QVERIFY(model.setNotes(id, QStringLiteral("lr too high")).ok());
    QVERIFY(model.setTags(id, {QStringLiteral(" x "), QStringLiteral("y"), QStringLiteral("x")}).ok());
    QVERIFY(model.renameRun(id, QStringLiteral("renamed")).ok());
    const int row = model.rowOfRun(id);
    QCOMPARE(cell(model, row, RunsTableModel::NameColumn), QStringLiteral("renamed"));
    QCOMPARE(cell(model, row, RunsTableModel::TagsColumn), QStringLiteral("x, y"));
    QCOMPARE(model.runAt(row).notes, QStringLiteral("lr too high"));
    QCOMPARE(f.db->run(id).value().name, QStringLiteral("renamed"));

    // Delete: the record and the run's folder (with a file in it) go; a running run is refused.
    const QString folder = f.db->runFolder(id);
    QVERIFY(QDir(folder).mkpath(QStringLiteral("checkpoints")));
    QFile checkpoint(folder + QStringLiteral("/checkpoints/step-1.pt"));
    QVERIFY(checkpoint.open(QIODevice::WriteOnly));
    checkpoint.write("weights");
    checkpoint.close();
    QVERIFY(!model.deleteRun(running).ok());
    QVERIFY(model.rowOfRun(running) >= 0);
    QVERIFY(model.deleteRun(id).ok());
    QCOMPARE(model.rowOfRun(id), -1);
    QVERIFY(!QFileInfo::exists(folder));
    QVERIFY(!f.db->run(id).ok());
    QVERIFY(!model.refresh() || model.rowCount() == 1);  // our own deletion needs no reload
    QCOMPARE(model.rowCount(), 1);
    QVERIFY(!model.renameRun(9999, QStringLiteral("x")).ok());
}

// A run of kind lrfind says so in its name (which stays its own for editing) and its tooltip; a training run does not.
void TestRunsTableModel::learningRateTestsAreMarked()
{
    RunsFixture f;
    QVERIFY(f.open());
    const qint64 trained = f.addRun(QStringLiteral("trained"), RunStatus::Finished, 5);
    NewRun test;
    test.name = QStringLiteral("lr sweep");
    test.kind = QLatin1String(kRunKindLrFind);
    test.preset = QJsonObject{{QStringLiteral("name"), QStringLiteral("p")}};
    const Result<qint64> id = f.db->createRun(test);
    QVERIFY(id.ok());
    RunsTableModel model;
    model.setDatabase(f.db.get());
    const int row = model.rowOfRun(id.value());
    QCOMPARE(cell(model, row, RunsTableModel::NameColumn), QStringLiteral("lr sweep (LR range test)"));
    QCOMPARE(model.data(model.index(row, RunsTableModel::NameColumn), Qt::EditRole).toString(), QStringLiteral("lr sweep"));
    QVERIFY(model.data(model.index(row, RunsTableModel::NameColumn), Qt::ToolTipRole).toString().contains(QStringLiteral("learning-rate range test")));
    const int other = model.rowOfRun(trained);
    QCOMPARE(cell(model, other, RunsTableModel::NameColumn), QStringLiteral("trained"));
    QVERIFY(model.data(model.index(other, RunsTableModel::NameColumn), Qt::ToolTipRole).isNull());
}

TY_TEST_CLASS(TestRunsTableModel)

#include "test_runs_table_model.moc"

