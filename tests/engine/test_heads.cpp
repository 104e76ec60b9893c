// The loss and metric heads against their definitions: metrics from statistics summed over batches equal the
// metric of the whole set, computed here from first principles; the log-probability losses agree with cross
// entropy where they should; and each new head trains.

#include "classifier_curves.h"
#include "detail/heads.h"
#include "engine_fixtures.h"
#include "test_engine_classes.h"
#include "trainer.h"

#include <QtTest>

#include <cmath>

using namespace ty;
using namespace ty::detail;

namespace {

MetricHead metricHead(const char *type)
{
    MetricHead head;
    head.type = QString::fromLatin1(type);
    head.metric = *metricFunctions().find(head.type);
    return head;
}

LossHead lossHead(const char *type)
{
    LossHead head;
    head.type = QString::fromLatin1(type);
    head.loss = *lossFunctions().find(head.type);
    return head;
}

// The metric of a whole set, its statistics summed over batches of `batch` samples as training and evaluation do.
double inBatches(const MetricHead &head, const torch::Tensor &prediction, const torch::Tensor &target, int64_t batch)
{
    torch::Tensor sum;
    for (int64_t begin = 0; begin < prediction.size(0); begin += batch) {
        const int64_t count = std::min(batch, prediction.size(0) - begin);
        const torch::Tensor s = metricStatistics(head, prediction.narrow(0, begin, count), target.narrow(0, begin, count)).to(torch::kDouble);
        sum = sum.defined() ? sum + s : s;
    }
    return metricValue(head, sum, double(prediction.size(0)));
}

struct MacroScores {
    double precision = 0, recall = 0, f1 = 0;
};

// Macro scores by counting, class by class, over the classes that occur among labels or predictions.
MacroScores macroScores(const std::vector<int64_t> &predicted, const std::vector<int64_t> &actual, int64_t classes)
{
    MacroScores s;
    int seen = 0;
    for (int64_t c = 0; c < classes; ++c) {
        double tp = 0, fp = 0, fn = 0;
        for (size_t i = 0; i < actual.size(); ++i) {
            tp += predicted[i] == c && actual[i] == c;
            fp += predicted[i] == c && actual[i] != c;
            fn += predicted[i] != c && actual[i] == c;
        }
        if (tp + fp + fn == 0)
            continue;
        ++seen;
        const double p = tp + fp > 0 ? tp / (tp + fp) : 0, r = tp + fn > 0 ? tp / (tp + fn) : 0;
        s.precision += p;
        s.recall += r;
        s.f1 += p + r > 0 ? 2 * p * r / (p + r) : 0;
    }
    s.precision /= seen;
    s.recall /= seen;
    s.f1 /= seen;
    return s;
}

std::vector<int64_t> toVector(const torch::Tensor &t)
{
    const torch::Tensor c = t.to(torch::kLong).contiguous();
    return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

// Metric nodes named after their kind, scoring `output` against the data set's targets.
void addMetrics(PipelineGraph &graph, const QString &output, std::initializer_list<const char *> kinds)
{
    for (const char *kind : kinds) {
        const QString id = QString::fromLatin1(kind);
        graph.nodes.append(Node{id, QStringLiteral("metric.") + id, {}, {}});
        graph.edges.append(Edge{Endpoint{output, QStringLiteral("out")}, Endpoint{id, QStringLiteral("input")}});
        graph.edges.append(Edge{Endpoint{QStringLiteral("data"), QStringLiteral("target")}, Endpoint{id, QStringLiteral("target")}});
    }
}

} // namespace

void TestHeads::macroScoresOfASmallCase()
{
    // Labels 0 0 1 2, predictions 0 1 1 1: class 0 has P 1, R 1/2; class 1 P 1/3, R 1; class 2 P 0, R 0.
    const torch::Tensor labels = torch::tensor({0, 0, 1, 2}, torch::kLong);
    const torch::Tensor logits = torch::one_hot(torch::tensor({0, 1, 1, 1}, torch::kLong), 4).to(torch::kFloat);
    QCOMPARE(inBatches(metricHead("metric.precision"), logits, labels, 4), (1.0 + 1.0 / 3.0 + 0.0) / 3.0);
    QCOMPARE(inBatches(metricHead("metric.recall"), logits, labels, 4), (0.5 + 1.0 + 0.0) / 3.0);
    QCOMPARE(inBatches(metricHead("metric.f1"), logits, labels, 4), (2.0 / 3.0 + 0.5 + 0.0) / 3.0);
    // Class 3 is neither a label nor a prediction: it is not averaged in (four classes would give 0.75 of these).
}

void TestHeads::classMetricsAddUpOverBatches()
{
    torch::manual_seed(7);
    const int64_t n = 1000, classes = 6;
    const torch::Tensor labels = torch::randint(0, classes, {n}, torch::kLong);
    // Logits that favour the label, so the scores are neither 0 nor 1.
    const torch::Tensor logits = torch::randn({n, classes}) + 1.5 * torch::one_hot(labels, classes).to(torch::kFloat);
    const MacroScores expected = macroScores(toVector(logits.argmax(1)), toVector(labels), classes);
    QVERIFY(expected.f1 > 0.3 && expected.f1 < 0.9);
    for (int64_t batch : {1000, 128, 7}) {
        QVERIFY(std::abs(inBatches(metricHead("metric.precision"), logits, labels, batch) - expected.precision) < 1e-12);
        QVERIFY(std::abs(inBatches(metricHead("metric.recall"), logits, labels, batch) - expected.recall) < 1e-12);
        QVERIFY(std::abs(inBatches(metricHead("metric.f1"), logits, labels, batch) - expected.f1) < 1e-12);
    }
}

void TestHeads::regressionMetricsAddUpOverBatches()
{
    torch::manual_seed(3);
    const int64_t n = 500;
    const torch::Tensor target = torch::randn({n, 2}, torch::kDouble) * 3 + 10;
    const torch::Tensor prediction = target + torch::randn({n, 2}, torch::kDouble) * 0.5;
    double r2 = 0;
    for (int64_t c = 0; c < 2; ++c) {
        const torch::Tensor y = target.select(1, c), p = prediction.select(1, c);
        r2 += 1.0 - (y - p).square().sum().item<double>() / (y - y.mean()).square().sum().item<double>();
    }
    r2 /= 2;
    const double rmse = std::sqrt((prediction - target).square().mean().item<double>());
    QVERIFY(r2 > 0.9 && r2 < 1.0);
    for (int64_t batch : {500, 64, 3}) {
        QVERIFY2(std::abs(inBatches(metricHead("metric.r2"), prediction, target, batch) - r2) < 1e-9, qPrintable(QString::number(batch)));
        QVERIFY(std::abs(inBatches(metricHead("metric.rmse"), prediction, target, batch) - rmse) < 1e-9);
    }
    // A constant target: 1 when predicted exactly, 0 otherwise.
    const torch::Tensor constant = torch::full({10, 1}, 2.0, torch::kDouble);
    QCOMPARE(inBatches(metricHead("metric.r2"), constant, constant, 4), 1.0);
    QCOMPARE(inBatches(metricHead("metric.r2"), constant + 1, constant, 4), 0.0);
    // A single target column arrives as [B].
    QVERIFY(std::abs(inBatches(metricHead("metric.rmse"), prediction.narrow(1, 0, 1), target.select(1, 0), 50)
                     - std::sqrt((prediction.select(1, 0) - target.select(1, 0)).square().mean().item<double>())) < 1e-9);
}

void TestHeads::logProbabilityLossesAgreeWithCrossEntropy()
{
    torch::manual_seed(11);
    const torch::Tensor logits = torch::randn({32, 5}, torch::kDouble);
    const torch::Tensor labels = torch::randint(0, 5, {32}, torch::kLong);
    const torch::Tensor logProbabilities = torch::log_softmax(logits, 1);
    const double crossEntropy = headLoss(lossHead("loss.cross_entropy"), logits, labels).item<double>();
    QVERIFY(std::abs(headLoss(lossHead("loss.nll"), logProbabilities, labels).item<double>() - crossEntropy) < 1e-12);
    // Against one-hot targets the KL divergence is the cross entropy (their entropy is 0).
    QVERIFY(std::abs(headLoss(lossHead("loss.kl_div"), logProbabilities, labels).item<double>() - crossEntropy) < 1e-12);
    // Against distributions: the mean over samples of sum p (log p - log q).
    const torch::Tensor p = torch::softmax(torch::randn({32, 5}, torch::kDouble), 1);
    const double kl = (p * (p.log() - logProbabilities)).sum(1).mean().item<double>();
    QVERIFY(std::abs(headLoss(lossHead("loss.kl_div"), logProbabilities, p).item<double>() - kl) < 1e-12);
    QVERIFY(headLoss(lossHead("loss.kl_div"), p.log(), p).item<double>() < 1e-12);
}

void TestHeads::newHeadsTrain()
{
    // Blobs through a log softmax and the NLL loss, scored by the macro metrics.
    Preset preset = test::classifierPreset(QStringLiteral("blobs"), QStringLiteral("optimizer.adam"), 0.01);
    PipelineGraph &graph = preset.graph;
    graph.node(QStringLiteral("loss"))->block = QStringLiteral("loss.nll");
    graph.nodes.append(Node{QStringLiteral("log_probs"), QStringLiteral("layer.log_softmax"), {}, {}});
    for (Edge &e : graph.edges)
        if (e.to.node == QStringLiteral("loss") && e.to.port == QStringLiteral("input"))
            e.from = Endpoint{QStringLiteral("log_probs"), QStringLiteral("out")};
    graph.edges.append(Edge{Endpoint{QStringLiteral("fc_out"), QStringLiteral("out")}, Endpoint{QStringLiteral("log_probs"), QStringLiteral("in")}});
    addMetrics(graph, QStringLiteral("fc_out"), {"precision", "recall", "f1"});
    test::RecordingObserver observer;
    TrainResult result = Trainer::train(preset, TrainOptions{}, observer);
    QCOMPARE(int(result.outcome), int(TrainOutcome::Finished));
    for (const char *name : {"test/accuracy", "test/precision", "test/recall", "test/f1"})
        QVERIFY2(result.lastMetrics.value(QString::fromLatin1(name)) > 0.8 && result.lastMetrics.value(QString::fromLatin1(name)) <= 1.0,
                 qPrintable(QStringLiteral("%1 = %2").arg(QString::fromLatin1(name)).arg(result.lastMetrics.value(QString::fromLatin1(name)))));
    QVERIFY(!observer.values(QStringLiteral("train/f1")).isEmpty());

    // Regression scored by RMSE and R².
    Preset regression = test::regressionPreset(QStringLiteral("loss.mse"), 0.05, 8);
    addMetrics(regression.graph, QStringLiteral("fc"), {"rmse", "r2"});
    test::RecordingObserver regressionObserver;
    result = Trainer::train(regression, TrainOptions{}, regressionObserver);
    QCOMPARE(int(result.outcome), int(TrainOutcome::Finished));
    const double r2 = result.lastMetrics.value(QStringLiteral("test/r2")), rmse = result.lastMetrics.value(QStringLiteral("test/rmse"));
    QVERIFY2(r2 > 0.9 && r2 <= 1.0, qPrintable(QString::number(r2)));
    // RMSE is at least the MAE and falls well below where it started.
    QVERIFY(rmse >= result.lastMetrics.value(QStringLiteral("test/mae")));
    QVERIFY(rmse < 0.25 * regressionObserver.values(QStringLiteral("train/rmse")).first());
}

// metric.auc has no statistics that add up: its value is computed from the pass's logits at once, the same figure as
// the evaluation's (classifier_curves.h); validation and test passes log it, training steps do not.
void TestHeads::aucIsAMetricOfWholePasses()
{
    const MetricFunction *auc = metricFunctions().find(QStringLiteral("metric.auc"));
    QVERIFY(auc && auc->overPass && !auc->statistics && !auc->value);
    torch::manual_seed(5);
    const int64_t n = 800, classes = 5;
    const torch::Tensor labels = torch::randint(0, classes, {n}, torch::kLong);
    const torch::Tensor logits = torch::randn({n, classes}) + torch::one_hot(labels, classes).to(torch::kFloat);
    QString reason;
    const double value = auc->overPass(logits, labels, &reason);
    const torch::Tensor host = logits.contiguous();
    const std::optional<double> expected = headlineRocAuc(softmaxRows(std::vector<float>(host.data_ptr<float>(), host.data_ptr<float>() + host.numel()), classes),
                                                          toVector(labels), classes);
    QVERIFY(expected);
    QCOMPARE(value, *expected);
    QVERIFY2(value > 0.7 && value < 0.95, qPrintable(QString::number(value)));
    // One class only: no value, and why.
    QVERIFY(std::isnan(auc->overPass(logits, torch::zeros({n}, torch::kLong), &reason)));
    QVERIFY(!reason.isEmpty());

    Preset preset = test::classifierPreset(QStringLiteral("blobs"), QStringLiteral("optimizer.adam"), 0.01);
    addMetrics(preset.graph, QStringLiteral("fc_out"), {"auc"});
    test::RecordingObserver observer;
    const TrainResult result = Trainer::train(preset, TrainOptions{}, observer);
    QCOMPARE(int(result.outcome), int(TrainOutcome::Finished));
    QCOMPARE(observer.values(QStringLiteral("val/auc")).size(), qsizetype(result.epochs));
    QVERIFY(observer.values(QStringLiteral("train/auc")).isEmpty());
    QVERIFY(!observer.values(QStringLiteral("train/accuracy")).isEmpty());
    const double testAuc = result.lastMetrics.value(QStringLiteral("test/auc"));
    QVERIFY2(testAuc > 0.9 && testAuc <= 1.0, qPrintable(QString::number(testAuc)));
    QVERIFY(result.testEvaluation && result.testEvaluation->curves.rocAuc);
    QCOMPARE(*result.testEvaluation->curves.rocAuc, testAuc);
}
