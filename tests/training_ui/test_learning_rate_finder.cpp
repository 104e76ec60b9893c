// The learning-rate finder's dialog (widgets/training): a worker's answer draws the loss and smoothed loss against
// the rate on a log axis with the suggestions marked; nothing is chosen until a button is clicked; the valley, the
// steepest descent and a point picked on the curve are each offered as the rate to set; a failed or malformed
// answer says why and offers nothing; the real worker's answer on a tiny preset shows the same way.

#include "test_suite.h"
#include "training_ui_support.h"

#include "plots/qcustomplot_include.h"
#include "training/learning_rate_finder_dialog.h"

#include "preset_format.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace ty;

namespace {

// An answer as `lrfind --json` writes it: 20 steps from 1e-5 to 1, the loss falling then rising, valley at step 8
// and steepest at step 10; the last point not finite (the test stopped there).
QByteArray syntheticAnswer()
{
    QJsonArray curve;
    for (int i = 0; i < 20; ++i) {
        const double lr = 1e-5 * std::pow(10.0, 5.0 * i / 19.0);
        const double loss = i < 12 ? 2.0 - 0.1 * i : 0.8 + 0.4 * (i - 11);
        curve.append(QJsonObject{{QStringLiteral("step"), i + 1}, {QStringLiteral("lr"), lr},
                                 {QStringLiteral("loss"), i == 19 ? QJsonValue() : QJsonValue(loss)},
                                 {QStringLiteral("smoothed_loss"), i == 19 ? QJsonValue() : QJsonValue(loss)}});
    }
    const auto at = [&](int step) { return curve.at(step - 1).toObject().value(QStringLiteral("lr")).toDouble(); };
    const QJsonObject answer{
        {QStringLiteral("id"), 7},
        {QStringLiteral("optimizer"), QJsonObject{{QStringLiteral("node"), QStringLiteral("opt")}}},
        {QStringLiteral("stopped_early"), true},
        {QStringLiteral("stop_reason"), QStringLiteral("the loss became NaN at lr 1")},
        {QStringLiteral("schedule_ignored"), QStringLiteral("schedule")},
        {QStringLiteral("suggestions"), QJsonObject{{QStringLiteral("valley"), QJsonObject{{QStringLiteral("lr"), at(8)}, {QStringLiteral("step"), 8}}},
                                                    {QStringLiteral("steepest"), QJsonObject{{QStringLiteral("lr"), at(10)}, {QStringLiteral("step"), 10}}}}},
        {QStringLiteral("curve"), curve}};
    return QJsonDocument(answer).toJson();
}

double stepRate(int step)
{
    return 1e-5 * std::pow(10.0, 5.0 * (step - 1) / 19.0);
}

} // namespace

class TestLearningRateFinder : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void answerIsDrawnOnALogAxis();
    void nothingIsChosenWithoutAClick();
    void suggestionsAndPickedPointAreOffered();
    void malformedAnswerOffersNothing();
    void realWorkerAnswers();
};

void TestLearningRateFinder::answerIsDrawnOnALogAxis()
{
    LearningRateFinderDialog dialog(QStringLiteral("opt"), 1e-3);
    QVERIFY(dialog.showAnswer(syntheticAnswer()));
    QCustomPlot *plot = dialog.plot();
    QCOMPARE(plot->xAxis->scaleType(), QCPAxis::stLogarithmic);
    QCOMPARE(plot->graphCount(), 2);
    QCOMPARE(plot->graph(1)->data()->size(), 20);
    QVERIFY(std::abs(plot->xAxis->range().lower - 1e-5) < 1e-12);
    // Marks: the current rate, the valley and the steepest descent, each a line and a label.
    QCOMPARE(plot->itemCount(), 6);
    // The y range is the descent's (2.0 down to 0.9 at step 12) with room for the start of the rise, not the tail
    // that reaches 3.6.
    QVERIFY(plot->yAxis->range().lower < 0.9 && plot->yAxis->range().lower > 0.7);
    QVERIFY(plot->yAxis->range().upper > 2.0 && plot->yAxis->range().upper < 2.5);
    QVERIFY(dialog.statusLabel()->text().contains(QStringLiteral("schedule")));
    QVERIFY(dialog.statusLabel()->text().contains(QStringLiteral("NaN")));
}

void TestLearningRateFinder::nothingIsChosenWithoutAClick()
{
    LearningRateFinderDialog dialog(QStringLiteral("opt"), 1e-3);
    QSignalSpy chosen(&dialog, &LearningRateFinderDialog::rateChosen);
    QVERIFY(!dialog.valleyButton()->isEnabled());  // before an answer
    QVERIFY(dialog.showAnswer(syntheticAnswer()));
    dialog.pickRate(3e-3);
    QCOMPARE(chosen.count(), 0);
}

void TestLearningRateFinder::suggestionsAndPickedPointAreOffered()
{
    LearningRateFinderDialog dialog(QStringLiteral("opt"), 1e-3);
    QSignalSpy chosen(&dialog, &LearningRateFinderDialog::rateChosen);
    QVERIFY(dialog.showAnswer(syntheticAnswer()));
    QVERIFY(dialog.valleyButton()->isEnabled() && dialog.steepestButton()->isEnabled());
    QVERIFY(!dialog.pickedButton()->isEnabled());
    QVERIFY(dialog.valleyButton()->text().contains(QString::number(stepRate(8), 'g', 3)));
    QTest::mouseClick(dialog.valleyButton(), Qt::LeftButton);
    QTest::mouseClick(dialog.steepestButton(), Qt::LeftButton);
    QCOMPARE(chosen.count(), 2);
    QCOMPARE(chosen.at(0).at(0).toString(), QStringLiteral("opt"));
    QVERIFY(std::abs(chosen.at(0).at(1).toDouble() / stepRate(8) - 1) < 1e-12);
    QVERIFY(std::abs(chosen.at(1).at(1).toDouble() / stepRate(10) - 1) < 1e-12);
    // A point picked on the curve: the nearest step's rate on the log axis (1.1 x step 14's rate is nearest it).
    dialog.pickRate(stepRate(14) * 1.1);
    QVERIFY(dialog.pickedButton()->isEnabled());
    QVERIFY(std::abs(*dialog.pickedRate() / stepRate(14) - 1) < 1e-12);
    QTest::mouseClick(dialog.pickedButton(), Qt::LeftButton);
    QCOMPARE(chosen.count(), 3);
    QVERIFY(std::abs(chosen.at(2).at(1).toDouble() / stepRate(14) - 1) < 1e-12);
    // A click on the plot picks too: at the pixel of step 5's rate.
    dialog.resize(800, 500);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    dialog.plot()->replot();
    const QPoint at(int(dialog.plot()->xAxis->coordToPixel(stepRate(5))), int(dialog.plot()->yAxis->coordToPixel(1.5)));
    QTest::mouseClick(dialog.plot(), Qt::LeftButton, Qt::NoModifier, at);
    QVERIFY(dialog.pickedRate());
    QVERIFY2(std::abs(*dialog.pickedRate() / stepRate(5) - 1) < 1e-12, qPrintable(QString::number(*dialog.pickedRate())));
    QCOMPARE(chosen.count(), 3);
}

void TestLearningRateFinder::malformedAnswerOffersNothing()
{
    LearningRateFinderDialog dialog(QStringLiteral("opt"), 1e-3);
    QVERIFY(!dialog.showAnswer("{\"curve\": []}"));
    QVERIFY(dialog.statusLabel()->text().contains(QStringLiteral("no curve")));
    QVERIFY(!dialog.showAnswer("not json"));
    QVERIFY(dialog.statusLabel()->text().contains(QStringLiteral("not JSON")));
    QVERIFY(!dialog.valleyButton()->isEnabled() && !dialog.steepestButton()->isEnabled());
    dialog.pickRate(1e-3);
    QVERIFY(!dialog.pickedRate());
}

// The real trainyard-cli on the tiny preset: the dialog shows its curve and offers its suggestions.
void TestLearningRateFinder::realWorkerAnswers()
{
    QTemporaryDir dir;
    const QString presetPath = dir.filePath(QStringLiteral("tiny.trainyard.json"));
    QVERIFY(savePreset(tytest::tinyPreset(1, 512), presetPath).ok());
    LearningRateFinderDialog dialog(QStringLiteral("opt"), 0.1);
    dialog.start(tytest::workerPath(), {QStringLiteral("lrfind"), presetPath, QStringLiteral("--db"), dir.filePath(QStringLiteral("runs.sqlite")),
                                        QStringLiteral("--steps"), QStringLiteral("40"), QStringLiteral("--max"), QStringLiteral("100"),
                                        QStringLiteral("--json"), QStringLiteral("--quiet")});
    QVERIFY(dialog.running());
    QTRY_VERIFY_WITH_TIMEOUT(!dialog.running(), 120000);
    QVERIFY2(dialog.plot()->graphCount() == 2, qPrintable(dialog.statusLabel()->text()));
    QVERIFY(dialog.plot()->graph(1)->data()->size() >= 5);
    QVERIFY(dialog.valleyButton()->isEnabled() || dialog.steepestButton()->isEnabled());
    QVERIFY2(dialog.statusLabel()->text().contains(QStringLiteral("kind lrfind")), qPrintable(dialog.statusLabel()->text()));
}

TY_TEST_CLASS(TestLearningRateFinder)

#include "test_learning_rate_finder.moc"
