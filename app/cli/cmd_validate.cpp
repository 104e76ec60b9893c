// trainyard-cli validate PRESET [--overlay FILE]... [--set K=V]... [--json]: without LibTorch (core/shapes), so it starts at once.

#include "available_memory.h"
#include "block_registry.h"
#include "commands.h"
#include "cost_estimate.h"
#include "memory_estimate.h"
#include "preset_inspection.h"
#include "training_commands.h"

#include <QJsonArray>
#include <QLocale>

namespace ty::cli {

namespace {

void printStages(const QList<StageSummary> &stages, const QLocale &locale, Io &io)
{
    if (stages.isEmpty())
        return;
    int nameWidth = 5;
    for (const StageSummary &stage : stages)
        nameWidth = std::max(nameWidth, int(stage.name.size()));
    io.out << "  stages:\n";
    for (int i = 0; i < stages.size(); ++i) {
        const StageSummary &stage = stages[i];
        io.out << "    " << (i + 1) << "  " << stage.name.leftJustified(nameWidth) << "  "
               << QStringLiteral("%1 epoch%2").arg(stage.epochs).arg(stage.epochs == 1 ? "" : "s").leftJustified(10)
               << "  trainable " << locale.toString(stage.trainableParams) << ", frozen " << locale.toString(stage.frozenParams);
        if (!stage.frozenNodes.isEmpty())
            io.out << " (" << stage.frozenNodes.join(QStringLiteral(", ")) << ")";
        if (!stage.overrides.isEmpty())
            io.out << "; set " << stage.overrides.join(QStringLiteral(" "));
        if (i > 0)
            io.out << (stage.resetOptimizer ? "; optimizer reset" : "; optimizer state kept");
        io.out << "\n";
    }
}

QJsonArray stagesJson(const QList<StageSummary> &stages)
{
    QJsonArray array;
    for (const StageSummary &stage : stages)
        array.append(QJsonObject{{QStringLiteral("name"), stage.name}, {QStringLiteral("epochs"), stage.epochs},
                                 {QStringLiteral("trainable_params"), stage.trainableParams},
                                 {QStringLiteral("frozen_params"), stage.frozenParams},
                                 {QStringLiteral("frozen"), QJsonArray::fromStringList(stage.frozenNodes)},
                                 {QStringLiteral("set"), QJsonArray::fromStringList(stage.overrides)},
                                 {QStringLiteral("reset_optimizer"), stage.resetOptimizer}});
    return array;
}

QJsonObject nodeMemoryJson(const NodeMemory &m)
{
    return QJsonObject{{QStringLiteral("parameters"), m.parameters}, {QStringLiteral("gradients"), m.gradients},
                       {QStringLiteral("optimizer_state"), m.optimizer}, {QStringLiteral("activations"), m.activations},
                       {QStringLiteral("data"), m.data}, {QStringLiteral("total"), m.total()}};
}

// Per sample forward and per training step; a node that computes nothing countable (a dataset, a loss) or has
// no shape yet has none.
QJsonValue nodeMacsJson(const NodeCost &cost)
{
    if (!cost.known)
        return QJsonValue();
    return QJsonObject{{QStringLiteral("forward"), cost.forwardMacs}, {QStringLiteral("training_step"), cost.trainingStepMacs}};
}

// After a convolution or pooling (or a composite holding one): per spatial axis, in the input's positions.
QJsonValue receptiveFieldJson(const NodeCost &cost)
{
    if (!cost.window || !cost.receptiveField.known())
        return QJsonValue();
    QJsonArray size, stride;
    for (const qint64 v : cost.receptiveField.size)
        size.append(v);
    for (const qint64 v : cost.receptiveField.stride)
        stride.append(v);
    return QJsonObject{{QStringLiteral("size"), size}, {QStringLiteral("stride"), stride}};
}

QJsonObject macsJson(const CostEstimate &cost)
{
    if (!cost.known)
        return QJsonObject{{QStringLiteral("known"), false}};
    return QJsonObject{{QStringLiteral("known"), true}, {QStringLiteral("forward"), cost.forwardMacs},
                       {QStringLiteral("training_step"), cost.trainingStepMacs}, {QStringLiteral("batch_size"), cost.batchSize}};
}

QJsonObject memoryJson(const MemoryEstimate &m, qint64 available)
{
    if (!m.known)
        return QJsonObject{{QStringLiteral("known"), false}, {QStringLiteral("available"), available}};
    return QJsonObject{{QStringLiteral("known"), true}, {QStringLiteral("total"), m.total()},
                       {QStringLiteral("parameters"), m.parameters}, {QStringLiteral("gradients"), m.gradients},
                       {QStringLiteral("optimizer_state"), m.optimizer}, {QStringLiteral("activations"), m.activations},
                       {QStringLiteral("activations_batch"), m.batchSize},
                       {QStringLiteral("activations_in"), m.evaluationPeak ? QStringLiteral("evaluation") : QStringLiteral("training")},
                       {QStringLiteral("data"), m.data}, {QStringLiteral("data_samples"), m.dataSamples},
                       {QStringLiteral("data_on"), m.dataOnCpu ? QStringLiteral("cpu") : QStringLiteral("gpu")},
                       {QStringLiteral("data_on_cpu"), m.dataBytesOnCpu}, {QStringLiteral("data_on_gpu"), m.dataBytesOnGpu},
                       {QStringLiteral("available"), available}};
}

void printJsonReport(const QString &path, const QStringList &overlays, const Preset &preset, const ShapeReport &report,
                     qint64 available, Io &io)
{
    QJsonArray issues, nodes;
    for (const Issue &issue : report.issues)
        issues.append(issue.toJson());
    for (const Node &node : preset.graph.nodes) {
        const NodeShape shape = report.nodes.value(node.id);
        QJsonArray dims;
        for (qint64 d : shape.outputShape)
            dims.append(d);
        nodes.append(QJsonObject{{QStringLiteral("id"), node.id}, {QStringLiteral("block"), node.block},
                                 {QStringLiteral("output_shape"), shape.known ? QJsonValue(dims) : QJsonValue()},
                                 {QStringLiteral("params"), shape.paramCount},
                                 {QStringLiteral("macs"), nodeMacsJson(shape.cost)},
                                 {QStringLiteral("receptive_field"), receptiveFieldJson(shape.cost)},
                                 {QStringLiteral("memory"), nodeMemoryJson(shape.memory)}});
    }
    printJson(io, QJsonObject{{QStringLiteral("file"), path}, {QStringLiteral("overlays"), QJsonArray::fromStringList(overlays)},
                              {QStringLiteral("ok"), report.ok()},
                              {QStringLiteral("issues"), issues}, {QStringLiteral("nodes"), nodes},
                              {QStringLiteral("total_params"), report.totalParams},
                              {QStringLiteral("macs"), macsJson(report.cost)},
                              {QStringLiteral("memory"), memoryJson(report.memory, available)},
                              {QStringLiteral("stages"), stagesJson(report.stages)}});
}

void printTextReport(const QString &path, const Preset &preset, const ShapeReport &report, qint64 available, Io &io)
{
    io.out << path << (preset.name.isEmpty() ? QString() : QStringLiteral(": ") + preset.name) << "\n";
    int idWidth = 4, blockWidth = 5;
    bool windows = false;  // a receptive field column, for pipelines with a convolution or pooling
    for (const Node &node : preset.graph.nodes) {
        idWidth = std::max(idWidth, int(node.id.size()));
        blockWidth = std::max(blockWidth, int(node.block.size()));
        windows = windows || report.nodes.value(node.id).cost.window;
    }
    io.out << "  " << QStringLiteral("node").leftJustified(idWidth) << "  " << QStringLiteral("block").leftJustified(blockWidth)
           << "  " << QStringLiteral("output").leftJustified(16) << "  " << QStringLiteral("params").rightJustified(10)
           << "  " << QStringLiteral("MACs/sample").rightJustified(11) << "  " << QStringLiteral("MACs/step").rightJustified(9)
           << "  " << (windows ? QStringLiteral("receptive field").leftJustified(16) + QStringLiteral("  ") : QString()) << "memory\n";
    QLocale locale(QLocale::English);
    for (const Node &node : preset.graph.nodes) {
        const NodeShape shape = report.nodes.value(node.id);
        const BlockDescriptor *block = BlockRegistry::builtin().find(node.block);
        const bool hasTensorOutput = block && !block->outputs.isEmpty() && block->outputs.first().kind == PortKind::Tensor;
        const QString output = shape.known ? shapeToText(shape.outputShape) : (hasTensorOutput ? QStringLiteral("?") : QStringLiteral("-"));
        const qint64 bytes = shape.memory.total();
        io.out << "  " << node.id.leftJustified(idWidth) << "  " << node.block.leftJustified(blockWidth) << "  "
               << output.leftJustified(16) << "  " << locale.toString(shape.paramCount).rightJustified(10) << "  "
               << (shape.cost.known ? macCountText(shape.cost.forwardMacs) : QStringLiteral("-")).rightJustified(11) << "  "
               << (shape.cost.known ? macCountText(shape.cost.trainingStepMacs) : QStringLiteral("-")).rightJustified(9) << "  "
               << (windows ? (shape.cost.window ? receptiveFieldText(shape.cost.receptiveField) : QString()).leftJustified(16) + QStringLiteral("  ")
                           : QString())
               << (bytes > 0 ? byteSizeText(bytes) : QStringLiteral("-")) << "\n";
    }
    io.out << "  total trainable parameters: " << locale.toString(report.totalParams) << "\n";
    if (report.cost.known)
        io.out << "  multiply-accumulates (MACs; 1 MAC = 2 FLOPs): " << locale.toString(report.cost.forwardMacs)
               << " a sample forward, " << locale.toString(report.cost.trainingStepMacs) << " a training step (3 x forward x a batch of "
               << report.cost.batchSize << ")\n";
    printStages(report.stages, locale, io);
    if (report.memory.known) {
        io.out << "  memory on the training device: about " << memorySummary(report.memory) << " for "
               << locale.toString(report.memory.dataSamples) << " samples";
        if (available >= 0)
            io.out << "; this machine has " << byteSizeText(available) << " available";
        io.out << "\n";
    }
    if (report.issues.isEmpty())
        io.out << "no issues\n";
    for (const Issue &issue : report.issues)
        (issue.severity == Severity::Error ? io.err : io.out) << path << ": " << issue.toString() << "\n";
}

} // namespace

int validateCommand(const QStringList &arguments, Io &io)
{
    const Args args = parseArgs(arguments, {QStringLiteral("overlay")}, {QStringLiteral("json")});
    if (!args.error.isEmpty() || args.positionals.size() != 1) {
        io.err << (args.error.isEmpty() ? QString() : args.error + QStringLiteral("\n"))
               << "usage: trainyard-cli validate PRESET [--overlay FILE]... [--set KEY=VALUE]... [--json]\n";
        return BadInput;
    }
    const QString path = args.positionals.first();
    Preset preset;
    if (!loadPresetWithOverrides(path, args, &preset, io))
        return BadInput;
    ShapeReport report = inspectPresetShapes(preset);
    // Only a preset that asks for CUDA makes validate load LibTorch (the training module), to ask for a device.
    if (presetWantsCuda(preset)) {
        const TrainingCommands *training = trainingCommands();
        if (!training || !training->cudaAvailable())
            report.issues.append(cudaUnavailableIssue());
    }
    // The estimate against this machine's memory: a warning, as the run may go to another machine or a GPU
    // (where `run` checks again, before it allocates).
    const bool limited = memoryLimitOverride() > 0;
    const qint64 available = limited ? memoryLimitOverride() : availableHostMemory();
    const QString shortfall = memoryShortfall(
        report, available, limited ? QStringLiteral("this machine (limited by TRAINYARD_MEMORY_LIMIT_BYTES)") : QStringLiteral("this machine"));
    if (!shortfall.isEmpty())
        report.issues.append(Issue{Severity::Warning, shortfall, largestMemoryNodes(report, 1).value(0), {}, {}});

    if (args.flag(QStringLiteral("json")))
        printJsonReport(path, args.overlays, preset, report, available, io);
    else  // the issues name the preset merged with its overlays
        printTextReport(args.overlays.isEmpty() ? path : QStringList(QStringList{path} + args.overlays).join(QStringLiteral(" + ")),
                        preset, report, available, io);
    return report.ok() ? Success : BadInput;
}

} // namespace ty::cli
