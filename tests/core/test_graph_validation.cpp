// core/graph/graph_validation: one case per kind of issue, each pinned to its node, port or parameter with
// the message a user reads; the training section; the canvas's connection check; the bundled presets.

#include "test_suite.h"
#include "core_test_support.h"

#include "composite_expansion.h"
#include "graph_validation.h"
#include "preset_format.h"

#include <QFileInfo>
#include <QtTest>

using namespace ty;
using tytest::dump;
using tytest::edge;
using tytest::errorsOf;
using tytest::minimalGraph;
using tytest::node;

namespace {

Issue err(const QString &message, const QString &node = {}, const QString &port = {}, const QString &param = {})
{
    return Issue{Severity::Error, message, node, port, param};
}

bool sameIssue(const Issue &a, const Issue &b)
{
    return a.severity == b.severity && a.message == b.message && a.node == b.node && a.port == b.port
        && a.param == b.param;
}

// The exact issues, in any order.
bool sameIssues(Issues actual, const Issues &expected)
{
    if (actual.size() != expected.size())
        return false;
    for (const Issue &e : expected) {
        int i = 0;
        while (i < actual.size() && !sameIssue(actual.at(i), e))
            ++i;
        if (i == actual.size())
            return false;
        actual.removeAt(i);
    }
    return true;
}

#define COMPARE_ISSUES(actual, ...)                                                                              \
    do {                                                                                                         \
        const Issues actual_ = (actual);                                                                         \
        const Issues expected_{__VA_ARGS__};                                                                     \
        QVERIFY2(sameIssues(actual_, expected_),                                                                 \
                 qPrintable(QStringLiteral("\nactual:\n%1\nexpected:\n%2").arg(dump(actual_), dump(expected_)))); \
    } while (false)

class TestGraphValidation : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void minimalGraphIsClean();
    void unknownBlock();
    void unknownBlockDoesNotDisconnectItsNeighbours();
    void unknownParameter();
    void unknownParameterOfBlockWithoutParameters();
    void wrongType();
    void outOfRange();
    void everyBadValueIsReported();
    void invalidId_data();
    void invalidId();
    void duplicateId();
    void trainingIsNotANodeId();
    void danglingEdge_data();
    void danglingEdge();
    void unknownOutputPort();
    void unknownInputPort();
    void edgeIntoAnOutput();
    void edgeOutOfAnInput();
    void portKindMismatch();
    void inputFedTwice();
    void unconnectedRequiredInput();
    void optionalInputMayStayUnconnected();
    void cycleReportsEveryNodeOnIt();
    void cycleDoesNotBlameNodesDownstream();
    void missingDataset();
    void missingLoss();
    void missingOptimizer();
    void emptyGraph();
    void twoOptimizers();
    void twoDatasets();
    void lossFeedingNoOptimizerIsAWarning();
    void validateTrainingAcceptsEveryKey();
    void validateTrainingUnknownKey();
    void validateTrainingBadValue_data();
    void validateTrainingBadValue();
    void earlyStopMetricMustBeRecorded();
    void passMetricHasNoTrainingFigure();
    void connectionProblem_data();
    void connectionProblem();
    void bundledPresetsAreValid_data();
    void bundledPresetsAreValid();
};

void TestGraphValidation::minimalGraphIsClean()
{
    const Issues issues = validateGraph(minimalGraph());
    QVERIFY2(issues.isEmpty(), qPrintable(dump(issues)));
}

void TestGraphValidation::unknownBlock()
{
    PipelineGraph g = minimalGraph();
    g.node(QStringLiteral("fc"))->block = QStringLiteral("layer.linearr");
    COMPARE_ISSUES(tytest::withMessage(validateGraph(g), QStringLiteral("unknown block")),
                   err(QStringLiteral("unknown block \"layer.linearr\" (see `trainyard-cli blocks`)"), QStringLiteral("fc"),
                       {}, QStringLiteral("block")));
}

void TestGraphValidation::unknownBlockDoesNotDisconnectItsNeighbours()
{
    // fc.out -> loss.input exists; fc's block is unknown, so the edge's ports cannot be checked, but loss.input
    // is connected all the same. Saying "input \"input\" is not connected" sends the user looking for a
    // missing edge that is on the canvas.
    PipelineGraph g = minimalGraph();
    g.node(QStringLiteral("fc"))->block = QStringLiteral("layer.linearr");
    COMPARE_ISSUES(validateGraph(g),
                   err(QStringLiteral("unknown block \"layer.linearr\" (see `trainyard-cli blocks`)"), QStringLiteral("fc"),
                       {}, QStringLiteral("block")));
}

void TestGraphValidation::unknownParameter()
{
    PipelineGraph g = minimalGraph();
    g.node(QStringLiteral("fc"))->params.insert(QStringLiteral("out_feature"), 10);
    COMPARE_ISSUES(validateGraph(g),
                   err(QStringLiteral("unknown parameter \"out_feature\" of layer.linear (known: out_features, bias)"),
                       QStringLiteral("fc"), {}, QStringLiteral("out_feature")));
}

void TestGraphValidation::unknownParameterOfBlockWithoutParameters()
{
    PipelineGraph g = minimalGraph();
    g.nodes << node(QStringLiteral("act"), QStringLiteral("layer.relu"), {{QStringLiteral("inplace"), true}});
    g.edges << edge(QStringLiteral("data.images"), QStringLiteral("act.in"));
    COMPARE_ISSUES(validateGraph(g),
                   err(QStringLiteral("unknown parameter \"inplace\" of layer.relu (known: none)"), QStringLiteral("act"), {},
                       QStringLiteral("inplace")));
}

void TestGraphValidation::wrongType()
{
    PipelineGraph g = minimalGraph();
    g.node(QStringLiteral("fc"))->params.insert(QStringLiteral("out_features"), QStringLiteral("64"));
    COMPARE_ISSUES(validateGraph(g), err(QStringLiteral("expected an integer, got string \"64\""), QStringLiteral("fc"), {},
                                         QStringLiteral("out_features")));
}

void TestGraphValidation::outOfRange()
{
    PipelineGraph g = minimalGraph();
    g.node(QStringLiteral("opt"))->params.insert(QStringLiteral("momentum"), 1.5);
    COMPARE_ISSUES(validateGraph(g),
                   err(QStringLiteral("must be at most 1 (got 1.5)"), QStringLiteral("opt"), {}, QStringLiteral("momentum")));
}

void TestGraphValidation::everyBadValueIsReported()
{
    // Every issue at once, not just the first.
    PipelineGraph g = minimalGraph();
    g.node(QStringLiteral("fc"))->params = {{QStringLiteral("out_features"), 0}, {QStringLiteral("bias"), 1}};
    g.node(QStringLiteral("opt"))->params = {{QStringLiteral("lr"), -0.1}};
    COMPARE_ISSUES(validateGraph(g),
                   err(QStringLiteral("must be at least 1 (got 0)"), QStringLiteral("fc"), {}, QStringLiteral("out_features")),
                   err(QStringLiteral("expected true or false, got integer 1"), QStringLiteral("fc"), {}, QStringLiteral("bias")),
                   err(QStringLiteral("must be at least 0 (got -0.1)"), QStringLiteral("opt"), {}, QStringLiteral("lr")));
}

void TestGraphValidation::invalidId_data()
{
    QTest::addColumn<QString>("id");
    QTest::newRow("digit first") << "1fc";
    QTest::newRow("dash") << "fc-1";
    QTest::newRow("space") << "fc 1";
    QTest::newRow("empty") << "";
}

void TestGraphValidation::invalidId()
{
    QFETCH(QString, id);
    PipelineGraph g = minimalGraph();
    g.nodes << node(id, QStringLiteral("layer.relu"));
    g.edges << ty::Edge{Endpoint{QStringLiteral("data"), QStringLiteral("images")}, Endpoint{id, QStringLiteral("in")}};
    COMPARE_ISSUES(validateGraph(g),
                   err(QStringLiteral("invalid node id \"%1\": use letters, digits and underscores, starting with a letter")
                           .arg(id),
                       id));
}

void TestGraphValidation::duplicateId()
{
    PipelineGraph g = minimalGraph();
    g.nodes << node(QStringLiteral("fc"), QStringLiteral("layer.linear"));
    const Issues issues = validateGraph(g);
    const Issues duplicates = tytest::withMessage(issues, QStringLiteral("duplicate"));
    COMPARE_ISSUES(duplicates, err(QStringLiteral("duplicate node id \"fc\""), QStringLiteral("fc")));
    COMPARE_ISSUES(errorsOf(issues), err(QStringLiteral("duplicate node id \"fc\""), QStringLiteral("fc")));
}

void TestGraphValidation::trainingIsNotANodeId()
{
    // "--set training.KEY" always means the training settings, and flattenParams writes both "training.<param>" of
    // a node named training and "training.<key>" of the settings into one map: a node called "training" can
    // never be overridden, and a dataset node named so loses its "seed" to training.seed.
    PipelineGraph g = minimalGraph();
    g.nodes << node(QStringLiteral("training"), QStringLiteral("layer.relu"));
    g.edges << edge(QStringLiteral("data.images"), QStringLiteral("training.in"));
    const Issues issues = validateGraph(g);
    QVERIFY2(!tytest::withMessage(errorsOf(issues), QStringLiteral("training")).isEmpty(), qPrintable(dump(issues)));
}

void TestGraphValidation::danglingEdge_data()
{
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QString>("pinnedTo");  // the end that exists
    QTest::addColumn<QString>("missing");
    QTest::newRow("to a missing node") << "fc.out" << "ghost.in" << "fc" << "ghost";
    QTest::newRow("from a missing node") << "ghost.out" << "opt.schedule" << "opt" << "ghost";
    QTest::newRow("both missing") << "ghost.out" << "phantom.in" << "" << "ghost";
}

void TestGraphValidation::danglingEdge()
{
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QString, pinnedTo);
    QFETCH(QString, missing);
    PipelineGraph g = minimalGraph();
    g.edges << edge(from, to);
    COMPARE_ISSUES(validateGraph(g),
                   err(QStringLiteral("edge %1 -> %2 names node \"%3\", which does not exist").arg(from, to, missing),
                       pinnedTo));
}

void TestGraphValidation::unknownOutputPort()
{
    PipelineGraph g = minimalGraph();
    QVERIFY(tytest::removeEdge(&g, QStringLiteral("fc.out"), QStringLiteral("loss.input")));
    g.edges << edge(QStringLiteral("fc.output"), QStringLiteral("loss.input"));
    COMPARE_ISSUES(validateGraph(g),
                   err(QStringLiteral("edge fc.output -> loss.input: layer.linear has no output port \"output\""),
                       QStringLiteral("fc"), QStringLiteral("output")),
                   err(QStringLiteral("input \"input\" is not connected"), QStringLiteral("loss"), QStringLiteral("input")));
}

void TestGraphValidation::unknownInputPort()
{
    PipelineGraph g = minimalGraph();
    QVERIFY(tytest::removeEdge(&g, QStringLiteral("data.images"), QStringLiteral("fc.in")));
    g.edges << edge(QStringLiteral("data.images"), QStringLiteral("fc.input"));
    COMPARE_ISSUES(validateGraph(g),
                   err(QStringLiteral("edge data.images -> fc.input: layer.linear has no input port \"input\""),
                       QStringLiteral("fc"), QStringLiteral("input")),
                   err(QStringLiteral("input \"in\" is not connected"), QStringLiteral("fc"), QStringLiteral("in")));
}

void TestGraphValidation::edgeIntoAnOutput()
{
    // A schedule has only an output; an edge into it is refused and pinned to that port.
    PipelineGraph g = minimalGraph();
    g.nodes << node(QStringLiteral("sched"), QStringLiteral("schedule.cosine"));
    g.edges << edge(QStringLiteral("data.images"), QStringLiteral("sched.schedule"));
    COMPARE_ISSUES(validateGraph(g),
                   err(QStringLiteral("edge data.images -> sched.schedule: schedule.cosine has no input port \"schedule\""),
                       QStringLiteral("sched"), QStringLiteral("schedule")));
}

void TestGraphValidation::edgeOutOfAnInput()
{
    PipelineGraph g = minimalGraph();
    g.nodes << node(QStringLiteral("acc"), QStringLiteral("metric.accuracy"));
    g.edges << edge(QStringLiteral("fc.in"), QStringLiteral("acc.input"))
            << edge(QStringLiteral("data.labels"), QStringLiteral("acc.target"));
    COMPARE_ISSUES(validateGraph(g),
                   err(QStringLiteral("edge fc.in -> acc.input: layer.linear has no output port \"in\""), QStringLiteral("fc"),
                       QStringLiteral("in")),
                   err(QStringLiteral("input \"input\" is not connected"), QStringLiteral("acc"), QStringLiteral("input")));
}

void TestGraphValidation::portKindMismatch()
{
    PipelineGraph g = minimalGraph();
    QVERIFY(tytest::removeEdge(&g, QStringLiteral("data.images"), QStringLiteral("fc.in")));
    g.edges << edge(QStringLiteral("data.labels"), QStringLiteral("fc.in"));
    COMPARE_ISSUES(validateGraph(g), err(QStringLiteral("edge data.labels -> fc.in joins a target output to a tensor input"),
                                         QStringLiteral("fc"), QStringLiteral("in")));

    PipelineGraph s = minimalGraph();
    s.nodes << node(QStringLiteral("sched"), QStringLiteral("schedule.step"));
    s.edges << edge(QStringLiteral("sched.schedule"), QStringLiteral("loss.target"));
    QVERIFY(tytest::removeEdge(&s, QStringLiteral("data.labels"), QStringLiteral("loss.target")));
    COMPARE_ISSUES(validateGraph(s),
                   err(QStringLiteral("edge sched.schedule -> loss.target joins a schedule output to a target input"),
                       QStringLiteral("loss"), QStringLiteral("target")));
}

void TestGraphValidation::inputFedTwice()
{
    PipelineGraph g = minimalGraph();
    g.nodes << node(QStringLiteral("act"), QStringLiteral("layer.relu"));
    g.edges << edge(QStringLiteral("data.images"), QStringLiteral("act.in"))
            << edge(QStringLiteral("act.out"), QStringLiteral("fc.in"));
    COMPARE_ISSUES(validateGraph(g),
                   err(QStringLiteral("input fc.in is fed by more than one edge"), QStringLiteral("fc"), QStringLiteral("in")));
}

void TestGraphValidation::unconnectedRequiredInput()
{
    PipelineGraph g = minimalGraph();
    QVERIFY(tytest::removeEdge(&g, QStringLiteral("data.labels"), QStringLiteral("loss.target")));
    COMPARE_ISSUES(validateGraph(g),
                   err(QStringLiteral("input \"target\" is not connected"), QStringLiteral("loss"), QStringLiteral("target")));
}

void TestGraphValidation::optionalInputMayStayUnconnected()
{
    // The minimal graph leaves opt.schedule free; wiring a schedule in is just as clean.
    PipelineGraph g = minimalGraph();
    QVERIFY(g.edgesInto(QStringLiteral("opt"), QStringLiteral("schedule")).isEmpty());
    g.nodes << node(QStringLiteral("sched"), QStringLiteral("schedule.warmup_cosine"));
    g.edges << edge(QStringLiteral("sched.schedule"), QStringLiteral("opt.schedule"));
    const Issues issues = validateGraph(g);
    QVERIFY2(issues.isEmpty(), qPrintable(dump(issues)));
}

void TestGraphValidation::cycleReportsEveryNodeOnIt()
{
    // r1 -> r2 -> r3 -> r1, beside an otherwise valid pipeline.
    PipelineGraph g = minimalGraph();
    g.nodes << node(QStringLiteral("r1"), QStringLiteral("layer.relu")) << node(QStringLiteral("r2"), QStringLiteral("layer.tanh"))
            << node(QStringLiteral("r3"), QStringLiteral("layer.gelu"));
    g.edges << edge(QStringLiteral("r1.out"), QStringLiteral("r2.in")) << edge(QStringLiteral("r2.out"), QStringLiteral("r3.in"))
            << edge(QStringLiteral("r3.out"), QStringLiteral("r1.in"));
    const QString message = QStringLiteral("node is on a cycle (r1, r2, r3); the pipeline must be acyclic");
    COMPARE_ISSUES(validateGraph(g), err(message, QStringLiteral("r1")), err(message, QStringLiteral("r2")),
                   err(message, QStringLiteral("r3")));
}

void TestGraphValidation::cycleDoesNotBlameNodesDownstream()
{
    // data.images -> sum.a; sum.out -> act.in; act.out -> sum.b closes a cycle (sum, act); act.out -> fc.in, and
    // fc, loss and opt lie downstream of the cycle but not on it. "node is on a cycle" must name sum and act only.
    PipelineGraph g = minimalGraph();
    QVERIFY(tytest::removeEdge(&g, QStringLiteral("data.images"), QStringLiteral("fc.in")));
    g.nodes << node(QStringLiteral("sum"), QStringLiteral("layer.add")) << node(QStringLiteral("act"), QStringLiteral("layer.relu"));
    g.edges << edge(QStringLiteral("data.images"), QStringLiteral("sum.a")) << edge(QStringLiteral("sum.out"), QStringLiteral("act.in"))
            << edge(QStringLiteral("act.out"), QStringLiteral("sum.b")) << edge(QStringLiteral("act.out"), QStringLiteral("fc.in"));
    const QString message = QStringLiteral("node is on a cycle (sum, act); the pipeline must be acyclic");
    COMPARE_ISSUES(validateGraph(g), err(message, QStringLiteral("sum")), err(message, QStringLiteral("act")));
}

void TestGraphValidation::missingDataset()
{
    PipelineGraph g = minimalGraph();
    tytest::removeNode(&g, QStringLiteral("data"));
    COMPARE_ISSUES(validateGraph(g), err(QStringLiteral("the pipeline has no dataset node")),
                   err(QStringLiteral("input \"in\" is not connected"), QStringLiteral("fc"), QStringLiteral("in")),
                   err(QStringLiteral("input \"target\" is not connected"), QStringLiteral("loss"), QStringLiteral("target")));
}

void TestGraphValidation::missingLoss()
{
    PipelineGraph g = minimalGraph();
    tytest::removeNode(&g, QStringLiteral("loss"));
    COMPARE_ISSUES(validateGraph(g), err(QStringLiteral("the pipeline has no loss node")),
                   err(QStringLiteral("input \"loss\" is not connected"), QStringLiteral("opt"), QStringLiteral("loss")));
}

void TestGraphValidation::missingOptimizer()
{
    PipelineGraph g = minimalGraph();
    tytest::removeNode(&g, QStringLiteral("opt"));
    const Issues issues = validateGraph(g);
    COMPARE_ISSUES(errorsOf(issues), err(QStringLiteral("the pipeline has no optimizer node")));
}

void TestGraphValidation::emptyGraph()
{
    COMPARE_ISSUES(validateGraph(PipelineGraph{}), err(QStringLiteral("the pipeline has no dataset node")),
                   err(QStringLiteral("the pipeline has no loss node")),
                   err(QStringLiteral("the pipeline has no optimizer node")));
}

void TestGraphValidation::twoOptimizers()
{
    PipelineGraph g = minimalGraph();
    g.nodes << node(QStringLiteral("opt2"), QStringLiteral("optimizer.adam"));
    g.edges << edge(QStringLiteral("loss.loss"), QStringLiteral("opt2.loss"));
    COMPARE_ISSUES(validateGraph(g), err(QStringLiteral("only one optimizer per pipeline (\"opt\" is the first)"),
                                         QStringLiteral("opt2")));
}

void TestGraphValidation::twoDatasets()
{
    PipelineGraph g = minimalGraph();
    g.nodes.insert(1, node(QStringLiteral("extra"), QStringLiteral("dataset.synthetic")));
    COMPARE_ISSUES(validateGraph(g), err(QStringLiteral("only one dataset node per pipeline (\"data\" is the first)"),
                                         QStringLiteral("extra")));
}

void TestGraphValidation::lossFeedingNoOptimizerIsAWarning()
{
    PipelineGraph g = minimalGraph();
    g.nodes << node(QStringLiteral("aux"), QStringLiteral("loss.mse"));
    g.edges << edge(QStringLiteral("fc.out"), QStringLiteral("aux.input"))
            << edge(QStringLiteral("data.labels"), QStringLiteral("aux.target"));
    const Issues issues = validateGraph(g);
    QVERIFY2(!hasErrors(issues), qPrintable(dump(issues)));
    COMPARE_ISSUES(issues, (Issue{Severity::Warning,
                                  QStringLiteral("this loss feeds no optimizer: it is reported but not minimised"),
                                  QStringLiteral("aux"), QStringLiteral("loss"), {}}));
}

void TestGraphValidation::validateTrainingAcceptsEveryKey()
{
    QVERIFY(validateTraining({}).isEmpty());
    const QJsonObject full{{QStringLiteral("epochs"), 3},
                           {QStringLiteral("batch_size"), 16},
                           {QStringLiteral("eval_batch_size"), 256},
                           {QStringLiteral("seed"), 42},
                           {QStringLiteral("device"), QStringLiteral("cuda")},
                           {QStringLiteral("deterministic"), true},
                           {QStringLiteral("checkpoint_every"), 0},
                           {QStringLiteral("log_every"), 50},
                           {QStringLiteral("early_stop_metric"), QStringLiteral("val/loss")},
                           {QStringLiteral("early_stop_mode"), QStringLiteral("max")},
                           {QStringLiteral("early_stop_patience"), 3},
                           {QStringLiteral("threads"), 8}};
    const Issues issues = validateTraining(full);
    QVERIFY2(issues.isEmpty(), qPrintable(dump(issues)));
}

void TestGraphValidation::validateTrainingUnknownKey()
{
    COMPARE_ISSUES(validateTraining({{QStringLiteral("epoch"), 3}}),
                   err(QStringLiteral("unknown training setting \"epoch\" (known: epochs, batch_size, eval_batch_size, seed, "
                                      "device, deterministic, checkpoint_every, log_every, early_stop_metric, "
                                      "early_stop_mode, early_stop_patience, threads, mixed_precision, streaming, clip_grad_value, clip_grad_norm, accumulate_steps, checkpoint_keep, "
                                      "best_metric, best_mode, tensorboard_dir, profile_steps, sync_batch_norm, dist_backend, dist_timeout, stages, init_from)"),
                       {}, {}, QStringLiteral("training.epoch")));
    // A folder is a string; anything else is refused at its field.
    COMPARE_ISSUES(validateTraining({{QStringLiteral("tensorboard_dir"), 3}}),
                   err(QStringLiteral("expected a string, got integer 3"), {}, {}, QStringLiteral("training.tensorboard_dir")));
    QVERIFY(validateTraining({{QStringLiteral("tensorboard_dir"), QStringLiteral("logs")}}).isEmpty());
}

// What the trainer refuses, validation reports first: an early-stopping metric the run never records.
void TestGraphValidation::earlyStopMetricMustBeRecorded()
{
    PipelineGraph graph = minimalGraph();
    graph.nodes.append(Node{QStringLiteral("acc"), QStringLiteral("metric.accuracy"), {}, {}});
    const auto training = [](const char *metric) { return QJsonObject{{QStringLiteral("early_stop_metric"), QLatin1String(metric)}}; };
    QVERIFY(validateTraining(training("val/acc"), graph).isEmpty());
    QVERIFY(validateTraining(training("train/loss"), graph).isEmpty());
    COMPARE_ISSUES(validateTraining(training("val/accuracy"), graph),
                   err(QStringLiteral("\"val/accuracy\" is not a metric of this pipeline (known: val/loss, train/loss, val/acc, train/acc)"),
                       {}, {}, QStringLiteral("training.early_stop_metric")));

    // So is a block parameter that names a metric: reduce on plateau's, pinned to its node and parameter.
    graph.nodes.append(Node{QStringLiteral("plateau"), QStringLiteral("schedule.reduce_on_plateau"), {}, {}});
    QVERIFY(validateTraining({}, graph).isEmpty());  // its default, val/loss
    graph.nodes.last().params.insert(QStringLiteral("metric"), QStringLiteral("val/accuracy"));
    COMPARE_ISSUES(validateTraining({}, graph),
                   err(QStringLiteral("\"val/accuracy\" is not an epoch metric of this pipeline (known: val/loss, train/loss, val/acc)"),
                       QStringLiteral("plateau"), {}, QStringLiteral("metric")));
    graph.nodes.last().params.insert(QStringLiteral("metric"), QStringLiteral("train/acc"));  // per step only
    QCOMPARE(validateTraining({}, graph).size(), 1);
}

// A metric of whole passes (ROC AUC) has val/ figures and no train/ one: naming train/auc is refused.
void TestGraphValidation::passMetricHasNoTrainingFigure()
{
    PipelineGraph graph = minimalGraph();
    graph.nodes.append(Node{QStringLiteral("auc"), QStringLiteral("metric.auc"), {}, {}});
    const auto training = [](const char *metric) { return QJsonObject{{QStringLiteral("early_stop_metric"), QLatin1String(metric)}}; };
    QVERIFY(validateTraining(training("val/auc"), graph).isEmpty());
    COMPARE_ISSUES(validateTraining(training("train/auc"), graph),
                   err(QStringLiteral("\"train/auc\" is not a metric of this pipeline (known: val/loss, train/loss, val/auc)"),
                       {}, {}, QStringLiteral("training.early_stop_metric")));
    graph.nodes.append(Node{QStringLiteral("plateau"), QStringLiteral("schedule.reduce_on_plateau"),
                            {{QStringLiteral("metric"), QStringLiteral("val/auc")}}, {}});
    QVERIFY(validateTraining({}, graph).isEmpty());
    QVERIFY(metricHigherIsBetter(QStringLiteral("val/auc"), graph, BlockRegistry::builtin()));
}

void TestGraphValidation::validateTrainingBadValue_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QJsonValue>("value");
    QTest::addColumn<QString>("message");
    QTest::newRow("epochs negative") << "epochs" << QJsonValue(-1) << "must be at least 0 (got -1)";  // 0 evaluates init_from's weights
    QTest::newRow("epochs fraction") << "epochs" << QJsonValue(2.5) << "expected an integer, got number 2.5";
    QTest::newRow("batch size as text") << "batch_size" << QJsonValue(QStringLiteral("128"))
                                        << "expected an integer, got string \"128\"";
    QTest::newRow("negative seed") << "seed" << QJsonValue(-1) << "must be at least 0 (got -1)";
    QTest::newRow("device tpu") << "device" << QJsonValue(QStringLiteral("tpu"))
                                << "expected one of auto, cpu, cuda, got \"tpu\"";
    QTest::newRow("deterministic yes") << "deterministic" << QJsonValue(QStringLiteral("yes"))
                                       << "expected true or false, got string \"yes\"";
    QTest::newRow("checkpoint_every negative") << "checkpoint_every" << QJsonValue(-1) << "must be at least 0 (got -1)";
    QTest::newRow("early_stop_mode") << "early_stop_mode" << QJsonValue(QStringLiteral("lower"))
                                     << "expected one of min, max, got \"lower\"";
    QTest::newRow("threads too many") << "threads" << QJsonValue(5000) << "must be at most 1024 (got 5000)";
    QTest::newRow("metric as number") << "early_stop_metric" << QJsonValue(1) << "expected a string, got integer 1";
}

void TestGraphValidation::validateTrainingBadValue()
{
    QFETCH(QString, key);
    QFETCH(QJsonValue, value);
    QFETCH(QString, message);
    QJsonObject training{{QStringLiteral("batch_size"), 32}};
    training.insert(key, value);
    COMPARE_ISSUES(validateTraining(training), err(message, {}, {}, QStringLiteral("training.") + key));
}

void TestGraphValidation::connectionProblem_data()
{
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QString>("problem");
    QTest::newRow("ok") << "data.images" << "sum.b" << "";
    QTest::newRow("ok to a free optional input") << "sched.schedule" << "opt.schedule" << "";
    QTest::newRow("kind mismatch") << "data.labels" << "sum.b" << "a target output cannot feed a tensor input";
    QTest::newRow("loss into a tensor") << "loss.loss" << "sum.b" << "a loss output cannot feed a tensor input";
    QTest::newRow("already connected") << "data.images" << "fc.in" << "fc.in is already connected";
    QTest::newRow("cycle") << "act.out" << "sum.b" << "the connection would make a cycle";
    QTest::newRow("self") << "act.out" << "act.in" << "a node cannot feed itself";
    QTest::newRow("unknown source node") << "ghost.out" << "sum.b" << "no such node";
    QTest::newRow("unknown target node") << "act.out" << "ghost.in" << "no such node";
    QTest::newRow("from an input") << "fc.in" << "sum.b" << "fc.in is not an output port";
    QTest::newRow("into an output") << "data.images" << "act.out" << "act.out is not an input port";
}

void TestGraphValidation::connectionProblem()
{
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QString, problem);
    // data.images -> sum.a; sum.out -> act.in; act.out -> fc.in; sum.b and opt.schedule are free.
    PipelineGraph g = minimalGraph();
    QVERIFY(tytest::removeEdge(&g, QStringLiteral("data.images"), QStringLiteral("fc.in")));
    g.nodes << node(QStringLiteral("sum"), QStringLiteral("layer.add")) << node(QStringLiteral("act"), QStringLiteral("layer.relu"))
            << node(QStringLiteral("sched"), QStringLiteral("schedule.step"));
    g.edges << edge(QStringLiteral("data.images"), QStringLiteral("sum.a")) << edge(QStringLiteral("sum.out"), QStringLiteral("act.in"))
            << edge(QStringLiteral("act.out"), QStringLiteral("fc.in"));
    COMPARE_ISSUES(validateGraph(g),
                   err(QStringLiteral("input \"b\" is not connected"), QStringLiteral("sum"), QStringLiteral("b")));
    const PipelineGraph before = g;
    QCOMPARE(ty::connectionProblem(g, edge(from, to).from, edge(from, to).to), problem);
    QVERIFY2(g == before, "connectionProblem must not change the graph");
}

void TestGraphValidation::bundledPresetsAreValid_data()
{
    QTest::addColumn<QString>("path");
    const QStringList files = tytest::bundledPresetFiles();
    QVERIFY2(files.size() >= 4, qPrintable(QStringLiteral("only %1 presets in %2").arg(files.size()).arg(tytest::presetsDir())));
    for (const QString &file : files)
        QTest::newRow(qPrintable(QFileInfo(file).fileName())) << file;
}

void TestGraphValidation::bundledPresetsAreValid()
{
    QFETCH(QString, path);
    const Result<Preset> preset = loadPreset(path);
    QVERIFY2(preset.ok(), qPrintable(preset.error().toString()));
    const CompositeExpansion flat = expandComposites(preset.value());  // the ResNet's blocks are composites
    QVERIFY2(flat.issues.isEmpty(), qPrintable(dump(flat.issues)));
    const Issues graphIssues = validateGraph(flat.preset.graph);
    QVERIFY2(!hasErrors(graphIssues), qPrintable(dump(graphIssues)));
    const Issues trainingIssues = validateTraining(preset.value().training);
    QVERIFY2(trainingIssues.isEmpty(), qPrintable(dump(trainingIssues)));
}

} // namespace

TY_TEST_CLASS(TestGraphValidation)

#include "test_graph_validation.moc"
