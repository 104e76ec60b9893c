// The Sweep dialog on its own (issue 43, point 4): it offers the preset's numeric parameters by node with their
// current values and allowed ranges (no text, choice or switch parameters, no bookkeeping settings), starts on
// the optimizer's learning rate, adds a row for a parameter double-clicked in the list (once), keeps the cursor
// where the user types, and says what is wrong in its own words, never with a command-line flag.

#include "test_suite.h"
#include "training_ui_support.h"

#include "sweeps/sweep_dialog.h"
#include "sweeps/sweep_parameter_list.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QPushButton>
#include <QLineEdit>
#include <QTableWidget>
#include <QtTest>

using namespace ty;

namespace {

// The top-level rows of the list: one per node with numeric parameters, then "training".
QStringList groups(const SweepParameterList *list)
{
    QStringList out;
    for (int i = 0; i < list->topLevelItemCount(); ++i)
        out << list->topLevelItem(i)->text(SweepParameterList::NameColumn);
    return out;
}

// The row of `key` in the list as shown: name, current value, allowed range.
QStringList row(const SweepParameterList *list, const QString &key)
{
    const QTreeWidgetItem *item = list->itemOf(key);
    if (!item)
        return {};
    return {item->text(SweepParameterList::NameColumn), item->text(SweepParameterList::CurrentColumn),
            item->text(SweepParameterList::RangeColumn)};
}

} // namespace

class TestSweepDialog : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void offersNumericParametersByNodeWithRanges()
    {
        SweepDialog dialog(tytest::tinyPreset(3, 512));
        const SweepParameterList *list = dialog.parameterList();
        // In the graph's order, each node under its id and block; the ReLU has no numeric parameter.
        const QStringList shown = groups(list);
        QVERIFY2(shown.indexOf(QStringLiteral("fc1 · Linear")) >= 0, qPrintable(shown.join(QLatin1Char('|'))));
        QVERIFY(shown.indexOf(QStringLiteral("fc1 · Linear")) < shown.indexOf(QStringLiteral("fc2 · Linear")));
        QVERIFY(shown.indexOf(QStringLiteral("fc2 · Linear")) < shown.indexOf(QStringLiteral("opt · SGD")));
        QCOMPARE(shown.last(), QStringLiteral("training"));
        QVERIFY(!shown.join(QLatin1Char('|')).contains(QStringLiteral("act ·")));
        QCOMPARE(row(list, QStringLiteral("fc1.out_features")), (QStringList{QStringLiteral("out_features"), QStringLiteral("16"), QStringLiteral("1 – 1e7")}));
        QCOMPARE(row(list, QStringLiteral("opt.lr")), (QStringList{QStringLiteral("lr"), QStringLiteral("0.1"), QStringLiteral("0 – 10")}));
        QCOMPARE(row(list, QStringLiteral("training.batch_size")), (QStringList{QStringLiteral("batch_size"), QStringLiteral("32"), QStringLiteral("1 – 1e6")}));
        QCOMPARE(row(list, QStringLiteral("training.seed")), (QStringList{QStringLiteral("seed"), QStringLiteral("1"), QStringLiteral("≥ 0")}));
        // Under their node, not as a path.
        QCOMPARE(list->itemOf(QStringLiteral("opt.lr"))->parent()->text(0), QStringLiteral("opt · SGD"));
        // Numbers only: no switch (fc1.bias), no text or path (data.*'s), no bookkeeping (training.log_every).
        for (const QString &key : {QStringLiteral("fc1.bias"), QStringLiteral("training.log_every"), QStringLiteral("training.threads"),
                                   QStringLiteral("training.device")})
            QVERIFY2(!list->itemOf(key), qPrintable(key));
        for (const SweepableParam &p : list->params())
            QVERIFY2(p.spec.type == ParamType::Int || p.spec.type == ParamType::Float, qPrintable(p.key()));
    }

    void startsOnTheLearningRate()
    {
        SweepDialog dialog(tytest::tinyPreset(3, 512));
        QCOMPARE(dialog.searchedKeys(), QStringList{QStringLiteral("opt.lr")});
        QCOMPARE(dialog.valuesEdit(0)->text(), QStringLiteral("0.01, 0.1, 1"));  // a decade each way
        QVERIFY2(dialog.isValid(), qPrintable(dialog.problem()));
        QCOMPARE(dialog.trialCount(), 3);
        QCOMPARE(dialog.parameterList()->currentKey(), QStringLiteral("opt.lr"));
        // Without an optimizer's learning rate: the first layer's parameter, never a dataset's.
        Preset noOptimizer = tytest::tinyPreset(3, 512);
        noOptimizer.graph.nodes.removeIf([](const Node &n) { return n.id == QLatin1String("opt"); });
        QCOMPARE(SweepDialog(noOptimizer).searchedKeys(), QStringList{QStringLiteral("fc1.out_features")});
    }

    void aParameterChosenInTheListIsSearchedOnce()
    {
        SweepDialog dialog(tytest::tinyPreset(3, 512));
        dialog.resize(900, 600);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        SweepParameterList *list = dialog.parameterList();
        QTreeWidgetItem *item = list->itemOf(QStringLiteral("fc2.out_features"));
        QVERIFY(item);
        list->scrollToItem(item);
        QCoreApplication::processEvents();  // laid out
        // Through the window, as the platform delivers clicks: Qt then makes the second one a double click.
        const QPoint at = list->viewport()->mapTo(&dialog, list->visualItemRect(item).center());
        QTest::mouseDClick(dialog.windowHandle(), Qt::LeftButton, {}, at);
        QCOMPARE(dialog.searchedKeys(), (QStringList{QStringLiteral("opt.lr"), QStringLiteral("fc2.out_features")}));
        QCOMPARE(dialog.valuesEdit(1)->text(), QStringLiteral("2, 4, 8"));
        QCOMPARE(dialog.trialCount(), 9);
        QVERIFY(list->itemOf(QStringLiteral("fc2.out_features"))->font(0).bold());  // marked as searched
        QTest::mouseDClick(dialog.windowHandle(), Qt::LeftButton, {}, at);  // again: its row is selected, not doubled
        QCOMPARE(dialog.searchedKeys().size(), 2);
        QCOMPARE(dialog.dimensions()->currentRow(), 1);
    }

    void typingStaysWhereTheCursorIs()
    {
        SweepDialog dialog(tytest::tinyPreset(3, 512));
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QLineEdit *values = dialog.valuesEdit(0);
        values->setFocus();
        values->setCursorPosition(values->text().size());
        QTest::keyClicks(values, QStringLiteral(", 5"));
        QCOMPARE(values->text(), QStringLiteral("0.01, 0.1, 1, 5"));
        QCOMPARE(dialog.trialCount(), 4);
        values->setCursorPosition(0);
        QTest::keyClicks(values, QStringLiteral("0.5, "));
        QCOMPARE(values->text(), QStringLiteral("0.5, 0.01, 0.1, 1, 5"));
        QCOMPARE(values->cursorPosition(), 5);
        // The metric's box completes what is typed without moving the cursor into it.
        QComboBox *metric = nullptr;
        for (QComboBox *box : dialog.findChildren<QComboBox *>())
            if (box->isEditable())
                metric = box;
        QVERIFY(metric);
        metric->lineEdit()->selectAll();
        QTest::keyClicks(metric->lineEdit(), QStringLiteral("val/f1_macro"));
        QCOMPARE(metric->currentText(), QStringLiteral("val/f1_macro"));
        QVERIFY2(dialog.isValid(), qPrintable(dialog.problem()));
        // A list turned into a range keeps its lowest and highest value.
        dialog.kindBox(0)->setCurrentText(QStringLiteral("loguniform"));
        QCOMPARE(values->text(), QStringLiteral("0.01, 5"));
        QVERIFY2(dialog.isValid(), qPrintable(dialog.problem()));
    }

    void problemsInTheDialogsOwnWords_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("values");
        QTest::addColumn<QString>("expected");
        QTest::newRow("nothing typed") << "opt.lr" << "grid" << "" << "opt.lr: type the values to try, separated by commas";
        QTest::newRow("listed twice") << "opt.lr" << "grid" << "0.1, 0.1" << "opt.lr: 0.1 is listed twice";
        QTest::newRow("empty item") << "opt.lr" << "grid" << "0.1,,1" << "a value is missing between two commas";
        QTest::newRow("out of range") << "opt.lr" << "grid" << "0.1, 50" << "must be at most 10 (got 50) (allowed: 0 – 10)";
        QTest::newRow("not a number") << "opt.lr" << "grid" << "fast" << "opt.lr: expected a number";
        QTest::newRow("one bound") << "opt.lr" << "uniform" << "0.1" << "uniform draws between two values, the lowest and the highest";
        QTest::newRow("reversed range") << "opt.lr" << "uniform" << "1, 0.1" << "the lowest value (1) must be below the highest (0.1)";
        QTest::newRow("log from zero") << "opt.lr" << "loguniform" << "0, 1" << "a log-uniform range must start above 0";
        QTest::newRow("word as bound") << "opt.lr" << "uniform" << "low, 1" << "“low” is not one";
        QTest::newRow("fraction for a count") << "fc1.out_features" << "uniform" << "8, 64" << "fc1.out_features takes whole numbers";
        QTest::newRow("fraction in a grid") << "fc1.out_features" << "grid" << "8, 9.5" << "fc1.out_features: expected an integer";
        QTest::newRow("unknown node") << "nosuch.width" << "grid" << "1, 2" << "nosuch.width: the pipeline has no such parameter; choose one from the list";
    }

    void problemsInTheDialogsOwnWords()
    {
        QFETCH(QString, key);
        QFETCH(QString, kind);
        QFETCH(QString, values);
        QFETCH(QString, expected);
        SweepDialog dialog(tytest::tinyPreset(3, 512), key);
        const int row = int(dialog.searchedKeys().indexOf(key));
        QVERIFY(row >= 0);
        dialog.kindBox(row)->setCurrentText(kind);
        dialog.valuesEdit(row)->setText(values);
        QVERIFY(!dialog.isValid());
        QVERIFY2(dialog.problem().contains(expected), qPrintable(dialog.problem()));
        QVERIFY(!dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->isEnabled());
        // No command-line flags, no "field 'x':" prefixes.
        for (const QString &cli : {QStringLiteral("--"), QStringLiteral("field '"), QStringLiteral("KEY=")})
            QVERIFY2(!dialog.problem().contains(cli), qPrintable(dialog.problem()));
    }

    void problemsOfTheWholeSweepInItsOwnWordsToo()
    {
        SweepDialog dialog(tytest::tinyPreset(3, 512));
        dialog.dimensions()->selectRow(0);
        dialog.dimensions()->removeRow(0);
        dialog.setTrials(3);  // rechecks
        QVERIFY(!dialog.isValid());
        QCOMPARE(dialog.problem(), QStringLiteral("Choose a parameter to search: double-click one in the list on the left."));
        dialog.searchParameter(QStringLiteral("opt.lr"));
        QVERIFY(dialog.isValid());
        dialog.setMetric(QStringLiteral("test/accuracy"));
        dialog.setEarlyStop(QStringLiteral("median"));
        QVERIFY(!dialog.isValid());
        QVERIFY2(dialog.problem().startsWith(QStringLiteral("early stopping judges each epoch")), qPrintable(dialog.problem()));
    }
};

TY_TEST_CLASS(TestSweepDialog)

#include "test_sweep_dialog.moc"
