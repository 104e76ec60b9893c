// core/evaluation's parameter importance: synthetic trials where the metric depends strongly on one parameter and
// not at all on another (linear, log-scale and categorical parameters), seeded determinism, the reason given for too
// few trials, and Spearman's correlation against values worked out by hand.

#include "test_suite.h"

#include "parameter_importance.h"

#include <QtTest>

#include <cmath>
#include <random>

using namespace ty;

namespace {

const ParameterImportance *find(const QList<ParameterImportance> &list, const QString &name)
{
    for (const ParameterImportance &p : list)
        if (p.name == name)
            return &p;
    return nullptr;
}

// `count` trials: "strong" and "irrelevant" uniform on [0, 1]; the metric is 3 * strong^2 plus small noise.
void strongAndIrrelevant(int count, unsigned seed, QList<ParameterColumn> *columns, std::vector<double> *metric)
{
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> uniform(0, 1);
    ParameterColumn strong{QStringLiteral("strong"), ParameterScale::Linear, {}, {}};
    ParameterColumn irrelevant{QStringLiteral("irrelevant"), ParameterScale::Linear, {}, {}};
    for (int i = 0; i < count; ++i) {
        strong.numbers.push_back(uniform(random));
        irrelevant.numbers.push_back(uniform(random));
        metric->push_back(3 * strong.numbers.back() * strong.numbers.back() + 0.02 * uniform(random));
    }
    *columns = {irrelevant, strong};
}

class TestParameterImportance : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void strongParameterRanksFirstIrrelevantNearZero();
    void logScaleAndCategoriesAreFound();
    void sameSeedSameFigures();
    void tooFewTrialsSaysWhy();
    void badColumnsAreRefused();
    void constantMetricGivesZero();
    void spearmanMatchesHandValues();
};

void TestParameterImportance::strongParameterRanksFirstIrrelevantNearZero()
{
    QList<ParameterColumn> columns;
    std::vector<double> metric;
    strongAndIrrelevant(40, 7, &columns, &metric);
    const Result<QList<ParameterImportance>> result = parameterImportance(columns, metric);
    QVERIFY2(result, qPrintable(result ? QString() : result.error().message));
    QCOMPARE(result.value().size(), 2);
    QCOMPARE(result.value().first().name, QStringLiteral("strong"));
    const ParameterImportance *strong = find(result.value(), QStringLiteral("strong"));
    const ParameterImportance *irrelevant = find(result.value(), QStringLiteral("irrelevant"));
    QVERIFY2(strong->importance > 0.5, qPrintable(QString::number(strong->importance)));
    QVERIFY2(std::abs(irrelevant->importance) < 0.05, qPrintable(QString::number(irrelevant->importance)));
    QVERIFY(strong->spread >= 0 && strong->spread < strong->importance / 4);
    QVERIFY(irrelevant->spread >= 0);
    QVERIFY(strong->spearman && *strong->spearman > 0.95);
    QVERIFY(irrelevant->spearman && std::abs(*irrelevant->spearman) < 0.4);
}

// lr drawn log-uniformly over four decades with the metric a function of its exponent, an activation choice that
// adds 1 for "tanh", and a batch size that does nothing.
void TestParameterImportance::logScaleAndCategoriesAreFound()
{
    std::mt19937 random(3);
    std::uniform_real_distribution<double> uniform(0, 1);
    const QStringList activations{QStringLiteral("relu"), QStringLiteral("tanh"), QStringLiteral("gelu")};
    ParameterColumn lr{QStringLiteral("opt.lr"), ParameterScale::Log, {}, {}};
    ParameterColumn act{QStringLiteral("act.block"), ParameterScale::Categories, {}, {}};
    ParameterColumn batch{QStringLiteral("training.batch_size"), ParameterScale::Linear, {}, {}};
    std::vector<double> metric;
    for (int i = 0; i < 60; ++i) {
        lr.numbers.push_back(std::pow(10.0, -5 + 4 * uniform(random)));
        act.categories.append(activations.at(i % 3));
        batch.numbers.push_back(double(32 << (i % 3 == 0 ? 0 : (i / 3) % 3)));  // no pattern with the metric
        const double exponent = std::log10(lr.numbers.back());
        metric.push_back((exponent + 3) * (exponent + 3) + (act.categories.last() == QLatin1String("tanh") ? 1.0 : 0.0));
    }
    const Result<QList<ParameterImportance>> result = parameterImportance({batch, act, lr}, metric);
    QVERIFY(result);
    QCOMPARE(result.value().at(0).name, QStringLiteral("opt.lr"));
    QCOMPARE(result.value().at(1).name, QStringLiteral("act.block"));
    QCOMPARE(result.value().at(1).scale, ParameterScale::Categories);
    QVERIFY(!result.value().at(1).spearman);  // categories have no rank
    QVERIFY2(result.value().at(1).importance > 0.05, qPrintable(QString::number(result.value().at(1).importance)));
    QVERIFY2(std::abs(result.value().at(2).importance) < 0.03, qPrintable(QString::number(result.value().at(2).importance)));
}

void TestParameterImportance::sameSeedSameFigures()
{
    QList<ParameterColumn> columns;
    std::vector<double> metric;
    strongAndIrrelevant(25, 11, &columns, &metric);
    ImportanceSettings settings;
    settings.seed = 42;
    const auto a = parameterImportance(columns, metric, settings), b = parameterImportance(columns, metric, settings);
    settings.seed = 43;
    const auto c = parameterImportance(columns, metric, settings);
    QVERIFY(a && b && c);
    for (int i = 0; i < 2; ++i) {
        QCOMPARE(a.value().at(i).name, b.value().at(i).name);
        QCOMPARE(a.value().at(i).importance, b.value().at(i).importance);
        QCOMPARE(a.value().at(i).spread, b.value().at(i).spread);
    }
    QCOMPARE(c.value().first().name, QStringLiteral("strong"));  // another seed: other figures, the same verdict
    QVERIFY(c.value().first().importance != a.value().first().importance);
}

void TestParameterImportance::tooFewTrialsSaysWhy()
{
    QList<ParameterColumn> columns;
    std::vector<double> metric;
    strongAndIrrelevant(12, 1, &columns, &metric);
    const auto result = parameterImportance(columns, metric);
    QVERIFY(!result);
    QCOMPARE(result.error().message, QStringLiteral("importance needs at least 20 finished trials; this sweep has 12"));
    metric.clear();
    strongAndIrrelevant(20, 1, &columns, &metric);  // the least that is enough
    QVERIFY(parameterImportance(columns, metric));
}

void TestParameterImportance::badColumnsAreRefused()
{
    QList<ParameterColumn> columns;
    std::vector<double> metric;
    strongAndIrrelevant(20, 1, &columns, &metric);
    QList<ParameterColumn> shortColumn = columns;
    shortColumn[0].numbers.pop_back();
    const auto wrongLength = parameterImportance(shortColumn, metric);
    QVERIFY(!wrongLength && wrongLength.error().message.contains(QLatin1String("irrelevant has 19 values for 20 trials")));
    QList<ParameterColumn> negativeLog = columns;
    negativeLog[1].scale = ParameterScale::Log;
    negativeLog[1].numbers[3] = -1;
    const auto badLog = parameterImportance(negativeLog, metric);
    QVERIFY(!badLog && badLog.error().message.contains(QLatin1String("strong")));
    QVERIFY(!parameterImportance({}, metric));
}

void TestParameterImportance::constantMetricGivesZero()
{
    QList<ParameterColumn> columns;
    std::vector<double> metric;
    strongAndIrrelevant(20, 1, &columns, &metric);
    std::fill(metric.begin(), metric.end(), 0.5);
    const auto result = parameterImportance(columns, metric);
    QVERIFY(result);
    for (const ParameterImportance &p : result.value()) {
        QCOMPARE(p.importance, 0.0);
        QVERIFY(!p.spearman);
    }
}

void TestParameterImportance::spearmanMatchesHandValues()
{
    // Ranks of b with a tie: 1, 2, 3.5, 5, 3.5; covariance of the centred ranks 8, their squares 10 and 9.5.
    const auto tied = spearmanCorrelation({1, 2, 3, 4, 5}, {5, 6, 7, 8, 7});
    QVERIFY(tied);
    QVERIFY(std::abs(*tied - 8 / std::sqrt(95.0)) < 1e-12);
    QCOMPARE(*spearmanCorrelation({1, 2, 3, 4}, {1, 8, 27, 64}), 1.0);    // monotone, not linear
    QCOMPARE(*spearmanCorrelation({1, 2, 3, 4}, {9, 4, 1, 0}), -1.0);
    // d = rank differences 1, -1, 1, -1, 0 (no ties): 1 - 6 * 4 / (5 * 24) = 0.8
    QVERIFY(std::abs(*spearmanCorrelation({1, 2, 3, 4, 5}, {2, 1, 4, 3, 5}) - 0.8) < 1e-12);
    QVERIFY(!spearmanCorrelation({1, 2, 3}, {4, 4, 4}));
    QVERIFY(!spearmanCorrelation({1, 2, 3}, {1, 2}));
}

} // namespace

TY_TEST_CLASS(TestParameterImportance)
#include "test_parameter_importance.moc"
