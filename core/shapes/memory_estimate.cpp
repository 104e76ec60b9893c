#include "memory_estimate.h"

#include "saturating.h"

#include "shape_rules.h"

#include <algorithm>

namespace ty {

namespace {

constexpr double kFloatBytes = 4;  // float32 samples, weights, activations
constexpr double kClassBytes = 8;  // int64 class indices

// Sizes are summed as doubles, so that an absurd preset saturates instead of overflowing.
qint64 bytes(double value)
{
    return saturatedInt64(value);
}

double valuesOf(const SampleShape &shape)
{
    double n = 1;
    for (const int64_t d : shape)
        n *= double(d);
    return n;
}

} // namespace

void estimatePlanMemory(PipelinePlan &plan, const TrainingSettings &settings)
{
    MemoryEstimate &total = plan.report.memory;
    total = MemoryEstimate();
    const DatasetShape &data = plan.datasetShape;
    const auto batchOf = [&](int size) {
        const double batch = std::max(1, size);
        return data.sampleCount > 0 ? std::min(batch, double(data.sampleCount)) : batch;
    };
    // With accumulate_steps, a training batch runs in parts: one part's activations are held at a time.
    const int part = (settings.batchSize + std::max(1, settings.accumulateSteps) - 1) / std::max(1, settings.accumulateSteps);
    const double batch = batchOf(part), evalBatch = batchOf(settings.evalBatchSize);
    const OptimizerStateRule *stateRule = ShapeRules::builtin().optimizers.find(plan.optimizerType);
    const double stateValues = stateRule ? (*stateRule)(plan.optimizerParams) : 0;

    double parameters = 0, optimizer = 0, cpuData = 0, gpuData = 0;
    double outputs = 0;   // per sample: every node's output in one forward pass
    double backward = 0;  // per sample: the largest output plus inputs of one node, as gradients
    if (plan.report.nodes.contains(plan.datasetNode)) {
        NodeMemory &node = plan.report.nodes[plan.datasetNode].memory;
        outputs = valuesOf(data.sampleShape);
        node.activations = bytes(batch * outputs * kFloatBytes);
        if (data.sampleCount >= 0) {
            const double target = data.classification ? kClassBytes : kFloatBytes * double(data.targetWidth);
            cpuData = double(data.sampleCount) * (outputs * double(data.sampleValueBytes) + target);
            gpuData = double(data.sampleCount) * (outputs * kFloatBytes + target);
            node.data = bytes(gpuData);  // placed below
        }
    }
    for (const PlannedOp &op : plan.ops) {
        NodeMemory &node = plan.report.nodes[op.nodeId].memory;
        const double out = valuesOf(op.shape.output);
        double in = 0;
        for (const SampleShape &input : op.inputShapes)
            in += valuesOf(input);
        node.parameters = bytes(double(op.shape.params) * kFloatBytes);
        node.gradients = node.parameters;
        node.optimizer = bytes(double(op.shape.params) * stateValues * kFloatBytes);
        node.activations = bytes(batch * out * kFloatBytes);
        parameters += double(op.shape.params) * kFloatBytes;
        optimizer += double(op.shape.params) * stateValues * kFloatBytes;
        outputs += out;
        backward = std::max(backward, out + in);
    }
    const double training = batch * (outputs + backward) * kFloatBytes;
    const double evaluation = evalBatch * outputs * kFloatBytes;
    total.evaluationPeak = evaluation > training;
    total.batchSize = qint64(total.evaluationPeak ? evalBatch : batch);
    total.parameters = bytes(parameters);
    total.gradients = bytes(parameters);
    total.optimizer = bytes(optimizer);
    total.activations = bytes(std::max(training, evaluation));
    total.dataBytesOnCpu = bytes(cpuData);
    total.dataBytesOnGpu = bytes(gpuData);
    placeDataOn(&plan.report, settings.device == QStringLiteral("cpu"));
    total.dataSamples = data.sampleCount;
    total.known = plan.report.ok() && !plan.datasetNode.isEmpty() && data.sampleCount >= 0
                  && (stateRule || plan.optimizerType.isEmpty());
}

void placeDataOn(ShapeReport *report, bool cpu)
{
    MemoryEstimate &m = report->memory;
    m.dataOnCpu = cpu;
    m.data = cpu ? m.dataBytesOnCpu : m.dataBytesOnGpu;
    for (NodeShape &node : report->nodes)  // the dataset node: the one node holding data
        if (node.memory.data > 0)
            node.memory.data = m.data;
}

QString byteSizeText(qint64 bytes)
{
    static const char *const units[] = {"kB", "MB", "GB", "TB", "PB", "EB"};
    if (bytes < 1000)
        return QStringLiteral("%1 B").arg(std::max<qint64>(bytes, 0));
    double value = double(bytes);
    int unit = -1;
    while (value >= 999.5 && unit < 5) {
        value /= 1000;
        ++unit;
    }
    return QStringLiteral("%1 %2").arg(value, 0, 'f', value < 9.95 ? 1 : 0).arg(QLatin1String(units[unit]));
}

QString memorySummary(const MemoryEstimate &m)
{
    const QString batch = m.evaluationPeak ? QStringLiteral("for an evaluation batch of %1").arg(m.batchSize)
                                           : QStringLiteral("for a batch of %1").arg(m.batchSize);
    QString data = byteSizeText(m.data);
    if (m.dataBytesOnCpu != m.dataBytesOnGpu && m.data > 0)
        data = m.dataOnCpu ? QStringLiteral("%1 on the CPU, %2 on a GPU").arg(data, byteSizeText(m.dataBytesOnGpu))
                           : QStringLiteral("%1 on a GPU, %2 on the CPU").arg(data, byteSizeText(m.dataBytesOnCpu));
    return QStringLiteral("%1 (parameters %2, gradients %3, optimizer state %4, activations %5 %6, data %7)")
        .arg(byteSizeText(m.total()), byteSizeText(m.parameters), byteSizeText(m.gradients), byteSizeText(m.optimizer),
             byteSizeText(m.activations), batch, data);
}

QStringList largestMemoryNodes(const ShapeReport &report, int count)
{
    std::vector<std::pair<qint64, QString>> nodes;
    for (auto it = report.nodes.constBegin(); it != report.nodes.constEnd(); ++it)
        if (it.value().memory.total() > 0)
            nodes.emplace_back(it.value().memory.total(), it.key());
    std::sort(nodes.begin(), nodes.end(), [](const auto &a, const auto &b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    QStringList out;
    for (size_t i = 0; i < nodes.size() && int(i) < count; ++i)
        out << nodes[i].second;
    return out;
}

QString memoryShortfall(const ShapeReport &report, qint64 availableBytes, const QString &device)
{
    if (!report.memory.known || availableBytes < 0 || report.memory.total() <= availableBytes)
        return QString();
    QStringList largest;
    for (const QString &id : largestMemoryNodes(report))
        largest << id + QLatin1Char(' ') + byteSizeText(report.nodes.value(id).memory.total());
    return QStringLiteral("the run needs about %1, but %2 has %3 available; largest: %4")
        .arg(memorySummary(report.memory), device, byteSizeText(availableBytes), largest.join(QStringLiteral(", ")));
}

} // namespace ty
