#include "graph_validation.h"

#include "graph_order.h"
#include "param_values.h"
#include "training_settings.h"

#include <QJsonArray>
#include <QSet>

#include <cmath>

namespace ty {

namespace {

Issue error(const QString &message, const QString &node = {}, const QString &port = {}, const QString &param = {})
{
    return Issue{Severity::Error, message, node, port, param};
}

void validateNodes(const PipelineGraph &graph, const BlockRegistry &registry, Issues *issues)
{
    QSet<QString> seen;
    for (const Node &node : graph.nodes) {
        if (!isValidNodePath(node.id))
            issues->append(error(QStringLiteral("invalid node id \"%1\": use letters, digits and underscores, "
                                                "starting with a letter").arg(node.id), node.id));
        else if (node.id == QStringLiteral("training"))
            issues->append(error(QStringLiteral("the node id \"training\" is reserved for the training settings (--set training.KEY)"), node.id));
        else if (seen.contains(node.id))
            issues->append(error(QStringLiteral("duplicate node id \"%1\"").arg(node.id), node.id));
        seen.insert(node.id);

        const BlockDescriptor *block = registry.find(node.block);
        if (!block) {
            issues->append(error(QStringLiteral("unknown block \"%1\" (see `trainyard-cli blocks`)").arg(node.block),
                                 node.id, {}, QStringLiteral("block")));
            continue;
        }
        // A node an import put in for something the user must supply (trainyard-cli import's data set).
        if (block->param(QStringLiteral("placeholder")) && !node.params.value(QStringLiteral("placeholder")).toString().isEmpty())
            issues->append(Issue{Severity::Warning, node.params.value(QStringLiteral("placeholder")).toString(), node.id, {},
                                 QStringLiteral("placeholder")});
        for (auto it = node.params.constBegin(); it != node.params.constEnd(); ++it) {
            const ParamSpec *spec = block->param(it.key());
            if (!spec) {
                QStringList known;
                for (const ParamSpec &p : block->params)
                    known << p.name;
                issues->append(error(QStringLiteral("unknown parameter \"%1\" of %2 (known: %3)")
                                         .arg(it.key(), node.block,
                                              known.isEmpty() ? QStringLiteral("none") : known.join(QStringLiteral(", "))),
                                     node.id, {}, it.key()));
                continue;
            }
            const QString problem = checkParamValue(*spec, it.value());
            if (!problem.isEmpty())
                issues->append(error(problem, node.id, {}, it.key()));
        }
    }
}

void validateEdges(const PipelineGraph &graph, const BlockRegistry &registry, Issues *issues)
{
    QSet<QString> fedInputs;
    const GraphIndex index(graph);
    for (const Edge &edge : graph.edges) {
        const QString edgeText = edge.from.toString() + QStringLiteral(" -> ") + edge.to.toString();
        const Node *from = index.node(edge.from.node);
        const Node *to = index.node(edge.to.node);
        if (!from || !to) {
            const QString missing = !from ? edge.from.node : edge.to.node;
            issues->append(error(QStringLiteral("edge %1 names node \"%2\", which does not exist").arg(edgeText, missing),
                                 from ? edge.from.node : to ? edge.to.node : QString(), {}, QString()));
            continue;
        }
        const BlockDescriptor *fromBlock = registry.find(from->block);
        const BlockDescriptor *toBlock = registry.find(to->block);
        if (!fromBlock || !toBlock) {
            fedInputs.insert(edge.to.toString());  // reported as an unknown block; the input is still fed
            continue;
        }
        const PortSpec *out = fromBlock->output(edge.from.port);
        const PortSpec *in = toBlock->input(edge.to.port);
        if (!out) {
            issues->append(error(QStringLiteral("edge %1: %2 has no output port \"%3\"")
                                     .arg(edgeText, from->block, edge.from.port), from->id, edge.from.port));
            continue;
        }
        if (!in) {
            issues->append(error(QStringLiteral("edge %1: %2 has no input port \"%3\"")
                                     .arg(edgeText, to->block, edge.to.port), to->id, edge.to.port));
            continue;
        }
        if (out->kind != in->kind)
            issues->append(error(QStringLiteral("edge %1 joins a %2 output to a %3 input")
                                     .arg(edgeText, portKindName(out->kind), portKindName(in->kind)),
                                 to->id, edge.to.port));
        const QString inputKey = edge.to.toString();
        if (fedInputs.contains(inputKey))
            issues->append(error(QStringLiteral("input %1 is fed by more than one edge").arg(inputKey), to->id, edge.to.port));
        fedInputs.insert(inputKey);
    }

    for (const Node &node : graph.nodes) {
        const BlockDescriptor *block = registry.find(node.block);
        if (!block)
            continue;
        for (const PortSpec &port : block->inputs)
            if (port.required && !fedInputs.contains(node.id + QLatin1Char('.') + port.name))
                issues->append(error(QStringLiteral("input \"%1\" is not connected").arg(port.name), node.id, port.name));
    }
}

void validatePipeline(const PipelineGraph &graph, const BlockRegistry &registry, Issues *issues)
{
    QStringList datasets, optimizers, losses;
    for (const Node &node : graph.nodes) {
        const BlockDescriptor *block = registry.find(node.block);
        if (!block)
            continue;
        if (block->category == BlockCategory::Dataset)
            datasets << node.id;
        else if (block->category == BlockCategory::Optimizer)
            optimizers << node.id;
        else if (block->category == BlockCategory::Loss)
            losses << node.id;
    }
    if (datasets.isEmpty())
        issues->append(error(QStringLiteral("the pipeline has no dataset node")));
    for (int i = 1; i < datasets.size(); ++i)
        issues->append(error(QStringLiteral("only one dataset node per pipeline (\"%1\" is the first)").arg(datasets.first()),
                             datasets.at(i)));
    if (losses.isEmpty())
        issues->append(error(QStringLiteral("the pipeline has no loss node")));
    if (optimizers.isEmpty())
        issues->append(error(QStringLiteral("the pipeline has no optimizer node")));
    for (int i = 1; i < optimizers.size(); ++i)
        issues->append(error(QStringLiteral("only one optimizer per pipeline (\"%1\" is the first)").arg(optimizers.first()),
                             optimizers.at(i)));
    const GraphIndex index(graph);
    for (const QString &loss : losses)
        if (index.edgesFrom(loss).isEmpty())
            issues->append(Issue{Severity::Warning,
                                 QStringLiteral("this loss feeds no optimizer: it is reported but not minimised"), loss,
                                 QStringLiteral("loss"), {}});

    QStringList order, cycle;
    if (!topologicalOrder(graph, &order, &cycle))
        for (const QString &id : cycle)
            issues->append(error(QStringLiteral("node is on a cycle (%1); the pipeline must be acyclic")
                                     .arg(cycle.join(QStringLiteral(", "))), id));
}

} // namespace

Issues validateGraph(const PipelineGraph &graph, const BlockRegistry &registry)
{
    Issues issues;
    validateNodes(graph, registry, &issues);
    validateEdges(graph, registry, &issues);
    validatePipeline(graph, registry, &issues);
    return issues;
}

Issues validateTraining(const QJsonObject &training)
{
    Issues issues;
    for (auto it = training.constBegin(); it != training.constEnd(); ++it) {
        const QString field = QStringLiteral("training.") + it.key();
        if (it.key() == QLatin1String("stages") || it.key() == QLatin1String("init_from"))
            continue;  // structured: checked with the stages (core/presets/training_stages.h)
        const ParamSpec *spec = trainingSpec(it.key());
        if (!spec) {
            QStringList known;
            for (const ParamSpec &p : trainingSpecs())
                known << p.name;
            known << QStringLiteral("stages") << QStringLiteral("init_from");
            issues.append(error(QStringLiteral("unknown training setting \"%1\" (known: %2)")
                                    .arg(it.key(), known.join(QStringLiteral(", "))), {}, {}, field));
            continue;
        }
        const QString problem = checkParamValue(*spec, it.value());
        if (!problem.isEmpty())
            issues.append(error(problem, {}, {}, field));
        else if (it.key() == QLatin1String("profile_steps") && !it.value().toArray().isEmpty()) {
            const QJsonArray steps = it.value().toArray();
            const double from = steps.at(0).toDouble(), to = steps.size() == 2 ? steps.at(1).toDouble() : 0;
            if (steps.size() != 2 || from < 1 || to < from || from != std::floor(from) || to != std::floor(to) || to > 1e12)
                issues.append(error(QStringLiteral("expected [FROM, TO], two step numbers with 1 <= FROM <= TO, e.g. [100, 110]"), {}, {}, field));
        }
    }
    return issues;
}

Issues validateTraining(const QJsonObject &training, const PipelineGraph &graph, const BlockRegistry &registry)
{
    return validateTraining(training) + validateTrainingMetrics(training, graph, registry);
}

Issues validateTrainingMetrics(const QJsonObject &training, const PipelineGraph &graph, const BlockRegistry &registry)
{
    Issues issues;
    QStringList known{QStringLiteral("val/loss"), QStringLiteral("train/loss")};
    for (const Node &node : graph.nodes)
        if (const BlockDescriptor *block = registry.find(node.block); block && block->category == BlockCategory::Metric) {
            known << QStringLiteral("val/") + node.id;
            if (!block->measuredPerPass)
                known << QStringLiteral("train/") + node.id;
        }
    const auto notAMetric = [&known](const QString &metric) {
        return QStringLiteral("\"%1\" is not a metric of this pipeline (known: %2)").arg(metric.left(60), known.join(QStringLiteral(", ")));
    };
    for (const char *key : {"early_stop_metric", "best_metric"}) {
        const QString metric = training.value(QLatin1String(key)).toString();
        if (!metric.isEmpty() && !known.contains(metric))
            issues.append(error(notAMetric(metric),
                                {}, {}, QStringLiteral("training.") + QLatin1String(key)));
    }
    // Block parameters that name an epoch metric (reduce on plateau's `metric`): what an epoch reports, the
    // training loss and the validation figures (train/<metric> is per step only).
    QStringList epochMetrics{QStringLiteral("val/loss"), QStringLiteral("train/loss")};
    for (const QString &name : known)
        if (name.startsWith(QStringLiteral("val/")) && name != QStringLiteral("val/loss"))
            epochMetrics << name;
    for (const Node &node : graph.nodes) {
        const BlockDescriptor *block = registry.find(node.block);
        if (!block)
            continue;
        for (const ParamSpec &spec : block->params) {
            const QString metric = block->value(node.params, spec.name).toString();
            if (spec.namesMetric && !epochMetrics.contains(metric))
                issues.append(error(QStringLiteral("\"%1\" is not an epoch metric of this pipeline (known: %2)")
                                        .arg(metric.left(60), epochMetrics.join(QStringLiteral(", "))),
                                    node.id, {}, spec.name));
        }
    }
    return issues;
}

bool metricHigherIsBetter(const QString &metric, const PipelineGraph &graph, const BlockRegistry &registry)
{
    const QString nodeId = metric.section(QLatin1Char('/'), 1);
    const Node *node = graph.node(nodeId);
    const BlockDescriptor *block = node ? registry.find(node->block) : nullptr;
    return block && block->category == BlockCategory::Metric && block->higherIsBetter;
}

QString connectionProblem(const PipelineGraph &graph, const Endpoint &from, const Endpoint &to,
                          const BlockRegistry &registry)
{
    const Node *fromNode = graph.node(from.node);
    const Node *toNode = graph.node(to.node);
    if (!fromNode || !toNode)
        return QStringLiteral("no such node");
    if (from.node == to.node)
        return QStringLiteral("a node cannot feed itself");
    const BlockDescriptor *fromBlock = registry.find(fromNode->block);
    const BlockDescriptor *toBlock = registry.find(toNode->block);
    if (!fromBlock || !toBlock)
        return QStringLiteral("unknown block");
    const PortSpec *out = fromBlock->output(from.port);
    const PortSpec *in = toBlock->input(to.port);
    if (!out)
        return QStringLiteral("%1 is not an output port").arg(from.toString());
    if (!in)
        return QStringLiteral("%1 is not an input port").arg(to.toString());
    if (out->kind != in->kind)
        return QStringLiteral("a %1 output cannot feed a %2 input").arg(portKindName(out->kind), portKindName(in->kind));
    if (!graph.edgesInto(to.node, to.port).isEmpty())
        return QStringLiteral("%1 is already connected").arg(to.toString());
    PipelineGraph probe = graph;
    probe.edges.append(Edge{from, to});
    QStringList order;
    if (!topologicalOrder(probe, &order))
        return QStringLiteral("the connection would make a cycle");
    return QString();
}

} // namespace ty
