#include "detail/compiled_pipeline.h"

#include "block_registry.h"
#include "graph_order.h"
#include "graph_validation.h"

namespace ty::detail {

void GraphModule::addNode(const QString &id, BuiltOp op, std::vector<int> inputSlots)
{
    if (op.module)
        register_module(id.toStdString(), op.module);
    m_nodes.push_back(Step{std::move(op.forward), std::move(inputSlots)});
    m_slots.insert(id, int(m_nodes.size()));
}

std::vector<torch::Tensor> GraphModule::forwardAll(const torch::Tensor &x)
{
    std::vector<torch::Tensor> slots;
    slots.reserve(m_nodes.size() + 1);
    slots.push_back(x);
    const bool training = is_training();
    std::vector<torch::Tensor> args;
    for (const Step &step : m_nodes) {
        args.clear();
        for (int input : step.inputs)
            args.push_back(slots[input]);
        slots.push_back(step.forward(args, training));
    }
    return slots;
}

torch::Tensor GraphModule::forward(const torch::Tensor &x, int slot)
{
    return forwardAll(x).at(slot);
}

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

Issue shapeIssue(const QString &node, const QString &message, const QString &port = QStringLiteral("input"))
{
    return Issue{Severity::Error, message, node, port, {}};
}

// Checks that a loss or metric node can compare predictions of `pred` shape with the dataset's targets.
QString headProblem(const QString &type, const Shape &pred, const DatasetShape &data, const QJsonObject &params)
{
    const bool classLogits = type == QStringLiteral("loss.cross_entropy") || type == QStringLiteral("metric.accuracy")
        || type == QStringLiteral("metric.top_k_accuracy");
    if (classLogits) {
        if (!data.classification)
            return QStringLiteral("needs class labels, but the dataset has regression targets");
        if (pred != Shape{data.numClasses})
            return QStringLiteral("expects [%1] logits per sample (%1 classes), got %2").arg(data.numClasses).arg(shapeText(pred));
        if (type == QStringLiteral("metric.top_k_accuracy") && params.value(QStringLiteral("k")).toInt() > data.numClasses)
            return QStringLiteral("k is larger than the number of classes (%1)").arg(data.numClasses);
        return QString();
    }
    if (type == QStringLiteral("loss.bce_with_logits")) {
        if (data.classification && data.numClasses != 2)
            return QStringLiteral("needs two classes or 0/1 targets, but the dataset has %1 classes").arg(data.numClasses);
        const int64_t width = data.classification ? 1 : data.targetWidth;
        if (pred != Shape{width})
            return QStringLiteral("expects [%1] logits per sample, got %2").arg(width).arg(shapeText(pred));
        return QString();
    }
    // mse, l1, huber, mae
    if (data.classification)
        return QStringLiteral("needs regression targets, but the dataset has class labels (use loss.cross_entropy)");
    if (pred != Shape{data.targetWidth})
        return QStringLiteral("expects [%1] predictions per sample (the target width), got %2").arg(data.targetWidth).arg(shapeText(pred));
    return QString();
}

} // namespace

CompiledPipeline compilePipeline(const Preset &preset, const DatasetShape &datasetShape)
{
    const BlockRegistry &registry = BlockRegistry::builtin();
    CompiledPipeline out;
    out.model = std::make_shared<GraphModule>();
    out.datasetShape = datasetShape;
    out.report.issues = validateGraph(preset.graph, registry);
    out.report.issues += validateTraining(preset.training);

    QStringList order;
    if (!topologicalOrder(preset.graph, &order))
        return out;

    QHash<QString, Shape> shapes;  // known per-sample output shapes of tensor outputs
    for (const QString &id : order) {
        const Node &node = *preset.graph.node(id);
        const BlockDescriptor *block = registry.find(node.block);
        if (!block)
            continue;
        const QJsonObject params = block->effectiveParams(node.params);
        NodeShape nodeShape;
        if (block->category == BlockCategory::Dataset) {
            if (out.datasetNode.isEmpty()) {
                out.datasetNode = id;
                shapes.insert(id, Shape(datasetShape.sampleShape.begin(), datasetShape.sampleShape.end()));
                nodeShape.outputShape.assign(datasetShape.sampleShape.begin(), datasetShape.sampleShape.end());
                nodeShape.known = true;
            }
            out.report.nodes.insert(id, nodeShape);
            continue;
        }

        // Gather the tensor inputs, in the order of the block's ports.
        std::vector<Shape> inputShapes;
        std::vector<int> inputSlots;
        bool inputsKnown = true;
        for (const PortSpec &port : block->inputs) {
            if (port.kind != PortKind::Tensor)
                continue;
            const QList<Edge> in = preset.graph.edgesInto(id, port.name);
            if (in.isEmpty() || !shapes.contains(in.first().from.node)) {
                inputsKnown = false;
                break;
            }
            const QString source = in.first().from.node;
            inputShapes.push_back(shapes.value(source));
            inputSlots.push_back(source == out.datasetNode ? 0 : out.model->slotOf(source));
        }

        if (block->category == BlockCategory::Transform || block->category == BlockCategory::Layer) {
            if (inputsKnown) {
                Result<BuiltOp> op = buildOp(node.block, id, params, inputShapes);
                if (!op) {
                    out.report.issues.append(issueFromError(op.error(), block));
                } else {
                    BuiltOp built = std::move(op).value();
                    shapes.insert(id, built.outputShape);
                    nodeShape.outputShape.assign(built.outputShape.begin(), built.outputShape.end());
                    nodeShape.known = true;
                    if (built.module)
                        for (const torch::Tensor &p : built.module->parameters())
                            nodeShape.paramCount += p.numel();
                    out.model->addNode(id, std::move(built), inputSlots);
                }
            }
        } else if (block->category == BlockCategory::Loss || block->category == BlockCategory::Metric) {
            if (inputsKnown) {
                const QString problem = headProblem(node.block, inputShapes.at(0), datasetShape, params);
                if (!problem.isEmpty()) {
                    out.report.issues.append(shapeIssue(id, problem));
                } else if (block->category == BlockCategory::Loss) {
                    LossHead head{id, node.block, inputSlots.at(0), params.value(QStringLiteral("weight")).toDouble(),
                                  params.value(QStringLiteral("label_smoothing")).toDouble(),
                                  params.value(QStringLiteral("delta")).toDouble(1.0), !preset.graph.edgesFrom(id).isEmpty()};
                    out.losses.push_back(head);
                } else {
                    out.metrics.push_back(MetricHead{id, node.block, inputSlots.at(0),
                                                     int64_t(params.value(QStringLiteral("k")).toInt(1))});
                }
            }
        } else if (block->category == BlockCategory::Optimizer && out.optimizerNode.isEmpty()) {
            out.optimizerNode = id;
            out.optimizerType = node.block;
            out.optimizerParams = params;
            const QList<Edge> schedule = preset.graph.edgesInto(id, QStringLiteral("schedule"));
            if (!schedule.isEmpty()) {
                const Node *s = preset.graph.node(schedule.first().from.node);
                const BlockDescriptor *sb = s ? registry.find(s->block) : nullptr;
                if (sb) {
                    out.scheduleNode = s->id;
                    out.scheduleType = s->block;
                    out.scheduleParams = sb->effectiveParams(s->params);
                }
            }
        }
        out.report.nodes.insert(id, nodeShape);
        out.report.totalParams += nodeShape.paramCount;
    }
    return out;
}

torch::Tensor headLoss(const LossHead &head, const torch::Tensor &prediction, const torch::Tensor &target)
{
    namespace F = torch::nn::functional;
    if (head.type == QStringLiteral("loss.cross_entropy"))
        return F::cross_entropy(prediction, target, F::CrossEntropyFuncOptions().label_smoothing(head.labelSmoothing));
    const torch::Tensor t = target.dim() == 1 ? target.view({-1, 1}).to(prediction.dtype()) : target;
    if (head.type == QStringLiteral("loss.mse"))
        return F::mse_loss(prediction, t);
    if (head.type == QStringLiteral("loss.l1"))
        return F::l1_loss(prediction, t);
    if (head.type == QStringLiteral("loss.huber"))
        return F::huber_loss(prediction, t, F::HuberLossFuncOptions().delta(head.delta));
    if (head.type == QStringLiteral("loss.bce_with_logits"))
        return F::binary_cross_entropy_with_logits(prediction, t);
    throw std::runtime_error("no loss function for " + head.type.toStdString());
}

torch::Tensor metricSum(const MetricHead &head, const torch::Tensor &prediction, const torch::Tensor &target)
{
    if (head.type == QStringLiteral("metric.accuracy"))
        return prediction.argmax(1).eq(target).sum();
    if (head.type == QStringLiteral("metric.top_k_accuracy")) {
        const torch::Tensor top = std::get<1>(prediction.topk(head.k, 1));
        return top.eq(target.view({-1, 1})).any(1).sum();
    }
    if (head.type == QStringLiteral("metric.mae")) {
        const torch::Tensor t = target.dim() == 1 ? target.view({-1, 1}).to(prediction.dtype()) : target;
        return (prediction - t).abs().mean(1).sum();
    }
    throw std::runtime_error("no metric for " + head.type.toStdString());
}

} // namespace ty::detail
