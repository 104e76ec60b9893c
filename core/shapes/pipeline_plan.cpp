#include "pipeline_plan.h"

#include "composite_expansion.h"

#include "block_registry.h"
#include "graph_order.h"
#include "cost_estimate.h"
#include "graph_validation.h"
#include "memory_estimate.h"
#include "preset_sections.h"
#include "stage_inspection.h"

#include <QSet>

namespace ty {

namespace {

Issue issueFromError(const Error &error, const BlockDescriptor *block)
{
    Issue issue{Severity::Error, error.message, error.node, {}, {}};
    if (block && (block->input(error.field) || block->output(error.field)))
        issue.port = error.field;
    else
        issue.param = error.field;
    return issue;
}

void planOptimizer(const GraphIndex &graph, const Node &node, const QJsonObject &params, PipelinePlan *plan)
{
    plan->optimizerNode = node.id;
    plan->optimizerType = node.block;
    plan->optimizerParams = params;
    const QList<Edge> schedule = graph.edgesInto(node.id, QStringLiteral("schedule"));
    if (schedule.isEmpty())
        return;
    const Node *s = graph.node(schedule.first().from.node);
    const BlockDescriptor *block = s ? BlockRegistry::builtin().find(s->block) : nullptr;
    if (!block)
        return;
    plan->scheduleNode = s->id;
    plan->scheduleType = s->block;
    plan->scheduleParams = block->effectiveParams(s->params);
}

// The nodes with a parameter value that validation refused (out of range, wrong type). Their rules are not
// run, since they would compute with that value (a window of size 0 divides by zero): such a node and what
// follows it have no shape until the value is fixed.
QSet<QString> nodesWithRefusedParams(const Issues &issues, const GraphIndex &graph, const BlockRegistry &registry)
{
    QSet<QString> nodes;
    for (const Issue &issue : issues) {
        if (issue.severity != Severity::Error || issue.param.isEmpty())
            continue;
        const Node *node = graph.node(issue.node);
        const BlockDescriptor *block = node ? registry.find(node->block) : nullptr;
        if (block && block->param(issue.param))
            nodes.insert(node->id);
    }
    return nodes;
}

} // namespace

PipelinePlan planPipeline(const Preset &preset, const DatasetShape &datasetShape)
{
    CompositeExpansion expansion = expandComposites(preset);
    Issues issues = expansion.issues + trainingSectionIssues(preset);
    if (!hasErrors(expansion.issues))
        issues += validateGraph(expansion.preset.graph);
    return planPipeline(expansion.preset, datasetShape, issues);
}

PipelinePlan planPipeline(const Preset &preset, const DatasetShape &datasetShape, Issues structuralIssues)
{
    const BlockRegistry &registry = BlockRegistry::builtin();
    PipelinePlan plan;
    plan.datasetShape = datasetShape;
    plan.report.issues = std::move(structuralIssues);

    QStringList order;
    if (!topologicalOrder(preset.graph, &order))
        return plan;

    QHash<QString, SampleShape> shapes;  // known per-sample output shapes of tensor outputs
    const GraphIndex graph(preset.graph);
    const QSet<QString> refused = nodesWithRefusedParams(plan.report.issues, graph, registry);
    for (const QString &id : order) {
        const Node &node = *graph.node(id);
        const BlockDescriptor *block = registry.find(node.block);
        if (!block)
            continue;
        const QJsonObject params = block->effectiveParams(node.params);
        NodeShape nodeShape;
        if (block->category == BlockCategory::Dataset) {
            if (plan.datasetNode.isEmpty()) {
                plan.datasetNode = id;
                shapes.insert(id, datasetShape.sampleShape);
                nodeShape.outputShape.assign(datasetShape.sampleShape.begin(), datasetShape.sampleShape.end());
                nodeShape.known = true;
            }
            plan.report.nodes.insert(id, nodeShape);
            continue;
        }
        if (refused.contains(id)) {
            plan.report.nodes.insert(id, nodeShape);
            continue;
        }

        // Gather the tensor inputs, in the order of the block's ports.
        std::vector<SampleShape> inputShapes;
        QStringList inputs, inputPorts;
        bool inputsKnown = true;
        for (const PortSpec &port : block->inputs) {
            if (port.kind != PortKind::Tensor)
                continue;
            const QList<Edge> in = graph.edgesInto(id, port.name);
            if (in.isEmpty() && !port.required)
                continue;  // an optional input left free (add's and concat's c to h)
            if (in.isEmpty() || !shapes.contains(in.first().from.node)) {
                inputsKnown = false;
                break;
            }
            inputs << in.first().from.node;
            inputPorts << port.name;
            inputShapes.push_back(shapes.value(inputs.last()));
        }

        if (block->category == BlockCategory::Transform || block->category == BlockCategory::Layer) {
            if (inputsKnown) {
                const Result<OpShape> op = inferOpShape(node.block, id, params, inputShapes);
                if (!op) {
                    // A rule names an input by its place among the connected ones (a, b, c, ...); with a free
                    // optional port between connected ones, that place is another port.
                    Error error = op.error();
                    if (error.field.size() == 1 && block->input(error.field)) {
                        const int place = error.field.at(0).unicode() - u'a';
                        if (place >= 0 && place < inputPorts.size())
                            error.field = inputPorts.at(place);
                    }
                    plan.report.issues.append(issueFromError(error, block));
                } else {
                    shapes.insert(id, op.value().output);
                    nodeShape.outputShape.assign(op.value().output.begin(), op.value().output.end());
                    nodeShape.known = true;
                    nodeShape.paramCount = op.value().params;
                    plan.ops.push_back(PlannedOp{id, node.block, params, inputs, inputShapes, op.value()});
                }
            }
        } else if (block->category == BlockCategory::Loss || block->category == BlockCategory::Metric) {
            if (inputsKnown) {
                const QString problem = headProblem(node.block, inputShapes.at(0), datasetShape, params);
                if (!problem.isEmpty())
                    plan.report.issues.append(Issue{Severity::Error, problem, id, QStringLiteral("input"), {}});
                else if (block->category == BlockCategory::Loss)
                    plan.losses.push_back(PlannedHead{id, node.block, params, inputs.at(0), !graph.edgesFrom(id).isEmpty()});
                else
                    plan.metrics.push_back(PlannedHead{id, node.block, params, inputs.at(0), false});
            }
        } else if (block->category == BlockCategory::Optimizer && plan.optimizerNode.isEmpty()) {
            planOptimizer(graph, node, params, &plan);
        }
        plan.report.nodes.insert(id, nodeShape);
        plan.report.totalParams += nodeShape.paramCount;
    }
    const TrainingSettings settings = trainingSettings(preset);
    estimatePlanMemory(plan, settings);
    estimatePlanCost(plan, settings);
    return plan;
}

} // namespace ty
