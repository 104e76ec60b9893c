#include "onnx_export.h"

#include "block_registry.h"
#include "dataset_loader.h"
#include "version.h"

#include <QHash>
#include <QSet>

namespace ty {

namespace {

// The ops that `target` depends on, in execution order.
std::vector<const PlannedOp *> opsNeededFor(const PipelinePlan &plan, const QString &target)
{
    QHash<QString, const PlannedOp *> byId;
    for (const PlannedOp &op : plan.ops)
        byId.insert(op.nodeId, &op);
    QSet<QString> needed;
    QStringList pending{target};
    while (!pending.isEmpty()) {
        const QString id = pending.takeLast();
        const PlannedOp *op = byId.value(id);
        if (!op || needed.contains(id))
            continue;
        needed.insert(id);
        pending += op->inputs;
    }
    std::vector<const PlannedOp *> ordered;
    for (const PlannedOp &op : plan.ops)
        if (needed.contains(op.nodeId))
            ordered.push_back(&op);
    return ordered;
}

} // namespace

Result<PipelinePlan> planPresetForExport(const Preset &preset)
{
    const BlockRegistry &registry = BlockRegistry::builtin();
    for (const Node &node : preset.graph.nodes) {
        const BlockDescriptor *block = registry.find(node.block);
        if (!block || block->category != BlockCategory::Dataset)
            continue;
        const Result<DatasetShape> shape =
            describeDataset(DatasetRequest{node.block, node.id, block->effectiveParams(node.params), preset.baseDir()});
        if (!shape) {
            Error e = shape.error();
            if (e.node.isEmpty())
                e.node = node.id;
            return e;
        }
        PipelinePlan plan = planPipeline(preset, shape.value());
        for (const Issue &issue : plan.report.issues)
            if (issue.severity == Severity::Error)
                return Error::atNode(issue.node, issue.message, issue.port.isEmpty() ? issue.param : issue.port);
        return plan;
    }
    return Error(QStringLiteral("the pipeline has no dataset node"));
}

Result<OnnxExport> exportOnnx(const PipelinePlan &plan, const TensorFile &weights, const QString &graphName,
                              const QMap<QString, QString> &metadata, const OnnxExportRules &rules)
{
    const PlannedHead *head = nullptr;
    for (const PlannedHead &loss : plan.losses)
        if (loss.optimized && !head)
            head = &loss;
    if (!head)
        return Error(QStringLiteral("the pipeline has no optimized loss, so no output to export as logits"));

    const std::vector<const PlannedOp *> ops = opsNeededFor(plan, head->input);
    // Every rule is resolved before anything is built, so a block without one is reported first and alone.
    std::vector<const OnnxExportRule *> opRules;
    for (const PlannedOp *op : ops) {
        const OnnxExportRule *rule = rules.find(op->blockType);
        if (!rule)
            return Error::atNode(op->nodeId, QStringLiteral("block \"%1\" cannot be exported to ONNX (no export rule)").arg(op->blockType), QStringLiteral("block"));
        opRules.push_back(rule);
    }

    OnnxGraphBuilder graph(weights);
    const QString input = QStringLiteral("input"), logits = QStringLiteral("logits");
    graph.setInput(input, plan.datasetShape.sampleShape);
    graph.freshValue(logits);  // reserved for the output
    QHash<QString, QString> valueOf{{plan.datasetNode, input}};
    SampleShape outputShape = plan.datasetShape.sampleShape;
    for (size_t i = 0; i < ops.size(); ++i) {
        const PlannedOp &op = *ops[i];
        QStringList inputs;
        for (const QString &source : op.inputs)
            inputs.append(valueOf.value(source));
        Result<QString> output = (*opRules[i])(op, inputs, graph);
        if (!output) {
            Error e = output.error();
            if (e.node.isEmpty())
                e.node = op.nodeId;
            return e;
        }
        valueOf.insert(op.nodeId, output.value());
        if (op.nodeId == head->input)
            outputShape = op.shape.output;
    }
    const QString headValue = valueOf.value(head->input);
    if (headValue.isEmpty())
        return Error::atNode(head->nodeId, QStringLiteral("the loss reads \"%1\", which is not part of the network").arg(head->input), QStringLiteral("input"));
    graph.addNode(QStringLiteral("Identity"), logits, {headValue}, {logits});
    graph.setOutput(logits, outputShape);

    Result<QByteArray> bytes = graph.serialize(graphName, appVersion(), metadata);
    if (!bytes)
        return bytes.error();
    OnnxExport result;
    result.model = std::move(bytes).value();
    result.initializers = graph.initializerNames();
    result.values = graph.initializerValues();
    result.nodes = graph.nodeCount();
    result.outputNode = head->input;
    result.inputShape = plan.datasetShape.sampleShape;
    result.outputShape = outputShape;
    return result;
}

} // namespace ty
