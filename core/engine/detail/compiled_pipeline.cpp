#include "detail/compiled_pipeline.h"

#include "composite_expansion.h"
#include "weight_import.h"


namespace ty::detail {

void GraphModule::addNode(const QString &id, BuiltOp op, std::vector<int> inputSlots)
{
    if (op.module)
        register_module(id.toStdString(), op.module);
    m_nodes.push_back(Step{id, std::move(op.forward), std::move(inputSlots)});
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
        slots.push_back(step.forward(args, training && !step.frozen));
    }
    return slots;
}

void GraphModule::setFrozen(const QStringList &ids)
{
    for (Step &step : m_nodes)
        step.frozen = isWithinAny(step.id, ids);
    for (const auto &child : named_children()) {
        const bool frozen = isWithinAny(QString::fromStdString(child.key()), ids);
        for (torch::Tensor &p : child.value()->parameters())
            p.set_requires_grad(!frozen);
    }
    train(is_training());
}

void GraphModule::train(bool on)
{
    torch::nn::Module::train(on);
    const auto children = named_children();
    for (const Step &step : m_nodes)
        if (step.frozen)
            if (const auto *child = children.find(step.id.toStdString()))
                (*child)->eval();
}

std::vector<torch::Tensor> GraphModule::trainableParameters() const
{
    std::vector<torch::Tensor> out;
    for (const torch::Tensor &p : parameters())
        if (p.requires_grad())
            out.push_back(p);
    return out;
}

void GraphModule::synchronizeBatchNorm(const std::shared_ptr<BatchNormSync> &sync)
{
    const auto children = named_children();
    for (Step &step : m_nodes) {
        const auto *child = children.find(step.id.toStdString());
        auto synchronised = child ? synchronisedBatchNorm(**child, sync) : nullptr;
        if (!synchronised)
            continue;
        // Evaluation, and a frozen node, keep the layer's own forward pass.
        step.forward = [evaluation = std::move(step.forward), synchronised](const std::vector<torch::Tensor> &in, bool training) {
            return training ? synchronised(in.at(0)) : evaluation(in, training);
        };
    }
}

torch::Tensor GraphModule::forward(const torch::Tensor &x, int slot)
{
    return forwardAll(x).at(slot);
}

namespace {

QString tensorListText(const std::vector<LayerTensor> &tensors)
{
    QStringList parts;
    for (const LayerTensor &t : tensors)
        parts << t.name + QLatin1Char(' ') + shapeText(t.shape);
    return parts.join(QStringLiteral(", "));
}

// A layer's parameters and running statistics as tensorListText() writes a rule's.
QString builtTensorsText(torch::nn::Module &layer)
{
    std::vector<LayerTensor> tensors;
    for (const auto &p : layer.named_parameters())
        tensors.push_back({QString::fromStdString(p.key()), Shape(p.value().sizes().begin(), p.value().sizes().end())});
    for (const auto &b : layer.named_buffers())
        if (isRunningStatistic(QString::fromStdString(b.key()).section(QLatin1Char('.'), -1)))
            tensors.push_back({QString::fromStdString(b.key()), Shape(b.value().sizes().begin(), b.value().sizes().end())});
    return tensorListText(tensors);
}

// The engine's guarantee that the shapes shown are the shapes trained: one sample through the built model
// (evaluation mode, no gradients) must give every node the output shape and parameter count of the plan.
Issues checkAgainstPlan(GraphModule &model, const PipelinePlan &plan)
{
    Issues issues;
    const bool wasTraining = model.is_training();
    Shape probeShape{1};
    probeShape.insert(probeShape.end(), plan.datasetShape.sampleShape.begin(), plan.datasetShape.sampleShape.end());
    try {
        torch::NoGradGuard noGrad;
        model.eval();
        const std::vector<torch::Tensor> slots = model.forwardAll(torch::zeros(probeShape));
        const auto layers = model.named_children();  // the nodes that hold parameters or buffers, by id
        for (const PlannedOp &op : plan.ops) {
            const torch::Tensor &out = slots.at(size_t(model.slotOf(op.nodeId)));
            const Shape built(out.sizes().begin() + 1, out.sizes().end());
            int64_t params = 0;
            if (const auto *layer = layers.find(op.nodeId.toStdString()))
                for (const torch::Tensor &p : (*layer)->parameters())
                    params += p.numel();
            if (built != op.shape.output || params != op.shape.params)
                issues.append(Issue{Severity::Error,
                                    QStringLiteral("internal: the shape rules give %1 and %2 parameters, the built layer %3 and %4")
                                        .arg(shapeText(op.shape.output)).arg(op.shape.params).arg(shapeText(built)).arg(params),
                                    op.nodeId, {}, {}});
            // The tensors a warm start fills, as the rule lists them (weight_import.h checks files against them).
            if (const auto *layer = layers.find(op.nodeId.toStdString()); layer && !op.shape.tensors.empty()) {
                const QString listed = tensorListText(op.shape.tensors);
                const QString actual = builtTensorsText(**layer);
                if (listed != actual)
                    issues.append(Issue{Severity::Error,
                                        QStringLiteral("internal: the shape rules list the tensors %1, the built layer has %2").arg(listed, actual),
                                        op.nodeId, {}, {}});
            }
        }
    } catch (const std::exception &e) {
        issues.append(Issue{Severity::Error,
                            QStringLiteral("internal: the built model cannot run one sample: %1")
                                .arg(QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0)),
                            {}, {}, {}});
    }
    model.train(wasTraining);
    return issues;
}

} // namespace

CompiledPipeline compilePipeline(const Preset &preset, const DatasetShape &datasetShape)
{
    CompiledPipeline out;
    out.plan = planPipeline(preset, datasetShape);
    out.model = std::make_shared<GraphModule>();
    out.report = out.plan.report;
    const PipelinePlan &plan = out.plan;

    auto slotOf = [&](const QString &node) { return node == plan.datasetNode ? 0 : out.model->slotOf(node); };
    for (const PlannedOp &planned : plan.ops) {
        Result<BuiltOp> op = buildOp(planned);
        if (!op) {
            out.report.issues.append(Issue{Severity::Error, op.error().message, planned.nodeId, {}, op.error().field});
            continue;
        }
        std::vector<int> slots;
        for (const QString &input : planned.inputs)
            slots.push_back(slotOf(input));
        out.model->addNode(planned.nodeId, std::move(op).value(), std::move(slots));
    }
    auto missing = [&](const QString &node, const QString &what, const QString &type) {
        out.report.issues.append(Issue{Severity::Error, QStringLiteral("no %1 for block \"%2\"").arg(what, type), node, {}, {}});
    };
    for (const PlannedHead &head : plan.losses) {
        const LossFunction *loss = lossFunctions().find(head.blockType);
        if (!loss) {
            missing(head.nodeId, QStringLiteral("loss function"), head.blockType);
            continue;
        }
        out.losses.push_back(LossHead{head.nodeId, head.blockType, slotOf(head.input),
                                      head.params.value(QStringLiteral("weight")).toDouble(),
                                      head.params.value(QStringLiteral("label_smoothing")).toDouble(),
                                      head.params.value(QStringLiteral("delta")).toDouble(1.0), head.optimized, *loss});
    }
    for (const PlannedHead &head : plan.metrics) {
        const MetricFunction *metric = metricFunctions().find(head.blockType);
        if (!metric) {
            missing(head.nodeId, QStringLiteral("metric function"), head.blockType);
            continue;
        }
        (metric->overPass ? out.passMetrics : out.metrics)
            .push_back(MetricHead{head.nodeId, head.blockType, slotOf(head.input), int64_t(head.params.value(QStringLiteral("k")).toInt(1)), *metric});
    }
    if (!plan.optimizerType.isEmpty()) {
        if (const OptimizerFactory *factory = optimizerFactories().find(plan.optimizerType))
            out.optimizerFactory = *factory;
        else
            missing(plan.optimizerNode, QStringLiteral("optimizer factory"), plan.optimizerType);
    }
    if (!plan.scheduleType.isEmpty()) {
        if (const ScheduleFunction *schedule = scheduleFunctions().find(plan.scheduleType))
            out.schedule = *schedule;
        else
            missing(plan.scheduleNode, QStringLiteral("schedule function"), plan.scheduleType);
        if (const EpochScheduleFunction *epochSchedule = epochScheduleFunctions().find(plan.scheduleType))
            out.epochSchedule = *epochSchedule;
    }
    if (out.report.ok() && !plan.ops.empty())
        out.report.issues += checkAgainstPlan(*out.model, plan);
    return out;
}

} // namespace ty::detail
