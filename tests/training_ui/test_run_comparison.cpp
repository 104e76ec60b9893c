// The comparison of runs (issue 43, point 5): the task's metrics come first (val/*, test/*, train/*), the speed/*
// metrics that every run records are folded into one group row at the end, unfolded and folded again by a click
// on it, and that choice survives the refreshes that come while a run trains.

#include "test_suite.h"
#include "training_ui_support.h"

#include "runs/run_comparison_view.h"
#include "run_writer.h"

#include <QHeaderView>
#include <QtTest>

using namespace ty;
using tytest::RunsFixture;

namespace {

const QStringList kRecorded{QStringLiteral("speed/step_ms"), QStringLiteral("speed/samples_per_s"), QStringLiteral("speed/data_ms"),
                            QStringLiteral("test/accuracy"), QStringLiteral("test/loss"), QStringLiteral("train/loss"),
                            QStringLiteral("train/accuracy"), QStringLiteral("val/loss"), QStringLiteral("val/accuracy")};

// A finished run with two epochs of every metric above, as a worker writes them.
qint64 addRunWithSpeed(RunsFixture &f, const QString &name)
{
    const qint64 id = f.createRun(name);
    RunWriter writer(f.path, id, 3600 * 1000);
    if (!writer.start().ok())
        return 0;
    QList<MetricPoint> rows;
    for (int epoch = 1; epoch <= 2; ++epoch)
        for (const QString &metric : kRecorded)
            rows.append({metric, epoch * 10, epoch, epoch * 1.0, 0.5 / epoch});
    writer.appendMetrics(rows);
    writer.finish(RunStatus::Finished);
    return id;
}

// Scrolls `row` into view and clicks its name (in the row header) or its first cell, through the window as the
// platform would.
void clickRow(RunComparisonView &view, int row, bool onName)
{
    QCoreApplication::processEvents();  // laid out
    view.scrollTo(view.model()->index(row, 0), QAbstractItemView::PositionAtTop);
    QCoreApplication::processEvents();
    QHeaderView *names = view.verticalHeader();
    const QPoint at = onName ? names->viewport()->mapTo(&view, QPoint(names->width() / 2, names->sectionViewportPosition(row)
                                                                                              + names->sectionSize(row) / 2))
                             : view.viewport()->mapTo(&view, view.visualItemRect(view.item(row, 0)).center());
    QTest::mouseClick(view.windowHandle(), Qt::LeftButton, {}, at);
}

} // namespace

class TestRunComparison : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void taskMetricsFirstAndSpeedFolded()
    {
        RunsFixture f;
        QVERIFY(f.open());
        const qint64 a = addRunWithSpeed(f, QStringLiteral("a")), b = addRunWithSpeed(f, QStringLiteral("b"));
        RunComparisonView view;
        view.resize(420, 10 * view.verticalHeader()->defaultSectionSize() + view.horizontalHeader()->height());
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(view.setRuns(f.db.get(), {a, b}, a));
        QCOMPARE(view.shownMetrics(), (QStringList{QStringLiteral("val/accuracy"), QStringLiteral("val/loss"), QStringLiteral("test/accuracy"),
                                                   QStringLiteral("test/loss"), QStringLiteral("train/accuracy"), QStringLiteral("train/loss"),
                                                   QStringLiteral("speed/data_ms"), QStringLiteral("speed/samples_per_s"),
                                                   QStringLiteral("speed/step_ms")}));
        // The first rows of the box are the task's: val/accuracy's best, then its statistics, then val/loss.
        QCOMPARE(view.verticalHeaderItem(0)->text(), QStringLiteral("val/accuracy"));
        QCOMPARE(view.rowOf(QStringLiteral("val/loss"), QStringLiteral("best")), 5);
        QCOMPARE(view.rowOf(QStringLiteral("test/accuracy"), QStringLiteral("best")), 10);
        QCOMPARE(view.rowAt(0), 0);
        // Speed: one group row after the task's 6 metrics, its 3 metrics' 15 rows hidden under it.
        const int group = view.speedGroupRow();
        QCOMPARE(group, 6 * 5);
        QCOMPARE(view.rowCount(), 9 * 5 + 1);
        QVERIFY(!view.speedUnfolded());
        QVERIFY(view.verticalHeaderItem(group)->text().startsWith(QStringLiteral("▸ speed")));
        QCOMPARE(view.item(group, 0)->text(), QStringLiteral("3 metrics: click to show"));
        for (int r = group + 1; r < view.rowCount(); ++r)
            QVERIFY2(view.isRowHidden(r), qPrintable(QString::number(r)));
        for (int r = 0; r <= group; ++r)
            QVERIFY(!view.isRowHidden(r));
        QCOMPARE(view.cellText(QStringLiteral("speed/step_ms"), QStringLiteral("best"), b), QStringLiteral("0.25 (+0)"));  // there, folded

        // A click on the group's name unfolds it; a refresh (setRuns again, as the browser polls) keeps it so.
        clickRow(view, group, true);
        QVERIFY(view.speedUnfolded());
        QVERIFY(view.verticalHeaderItem(group)->text().startsWith(QStringLiteral("▾ speed")));
        QVERIFY(!view.isRowHidden(view.rowOf(QStringLiteral("speed/step_ms"), QStringLiteral("count"))));
        QVERIFY(view.setRuns(f.db.get(), {a, b}, a));
        QVERIFY(view.speedUnfolded());
        QVERIFY(!view.isRowHidden(view.rowOf(QStringLiteral("speed/step_ms"), QStringLiteral("best"))));
        // A click on its row folds it again.
        clickRow(view, view.speedGroupRow(), false);
        QVERIFY(!view.speedUnfolded());
        QVERIFY(view.isRowHidden(view.rowOf(QStringLiteral("speed/step_ms"), QStringLiteral("best"))));
    }

    void noSpeedGroupWithoutSpeedMetrics()
    {
        RunsFixture f;
        QVERIFY(f.open());
        const qint64 a = f.addRun(QStringLiteral("a"), RunStatus::Finished, 20);
        RunComparisonView view;
        QVERIFY(view.setRuns(f.db.get(), {a}));
        QCOMPARE(view.speedGroupRow(), -1);
        QCOMPARE(view.shownMetrics(), (QStringList{QStringLiteral("val/accuracy"), QStringLiteral("train/loss")}));
        QCOMPARE(view.rowCount(), 2 * 5);
    }
};

TY_TEST_CLASS(TestRunComparison)

#include "test_run_comparison.moc"
