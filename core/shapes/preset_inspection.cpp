#include "preset_inspection.h"

#include "block_registry.h"
#include "composite_expansion.h"
#include "dataset_loader.h"
#include "graph_validation.h"
#include "pipeline_plan.h"
#include "stage_inspection.h"
#include "weight_import.h"

namespace ty {

namespace {

// Each composite node's shape, parameter count, memory and MACs: its first output's shape and receptive field,
// and the sum of its inner nodes' figures (its field shown when one of them is a window). Each inner node adds
// itself to the composites on its path, so this is linear in nodes times nesting depth.
void summarizeComposites(const QList<CompositeUse> &uses, ShapeReport *report)
{
    QHash<QString, NodeShape> summaries;
    for (const CompositeUse &use : uses) {
        NodeShape summary = report->nodes.value(use.outputNode);
        summary.paramCount = 0;
        summary.memory = NodeMemory();
        summary.cost = NodeCost{summary.known, 0, 0, summary.cost.receptiveField, false};
        summaries.insert(use.path, summary);
    }
    for (auto it = report->nodes.constBegin(); it != report->nodes.constEnd(); ++it)
        for (int slash = it.key().indexOf(QLatin1Char('/')); slash > 0; slash = it.key().indexOf(QLatin1Char('/'), slash + 1)) {
            const auto found = summaries.find(it.key().left(slash));
            if (found == summaries.end())
                continue;
            found->paramCount += it->paramCount;
            found->memory.parameters += it->memory.parameters;
            found->memory.gradients += it->memory.gradients;
            found->memory.optimizer += it->memory.optimizer;
            found->memory.activations += it->memory.activations;
            found->cost.forwardMacs += it->cost.forwardMacs;
            found->cost.trainingStepMacs += it->cost.trainingStepMacs;
            found->cost.window = found->cost.window || it->cost.window;
            found->known = found->known && it->known;
            found->cost.known = found->cost.known && it->cost.known;
        }
    for (auto it = summaries.constBegin(); it != summaries.constEnd(); ++it)
        report->nodes.insert(it.key(), it.value());
}

} // namespace

ShapeReport inspectPresetShapes(const Preset &original)
{
    const BlockRegistry &registry = BlockRegistry::builtin();
    const CompositeExpansion expansion = expandComposites(original);
    const Preset &preset = expansion.preset;
    ShapeReport report;
    report.issues = expansion.issues + trainingSectionIssues(original);
    if (hasErrors(expansion.issues))
        return report;
    report.issues += validateGraph(preset.graph, registry);
    const Node *datasetNode = nullptr;
    for (const Node &node : preset.graph.nodes) {
        const BlockDescriptor *block = registry.find(node.block);
        if (block && block->category == BlockCategory::Dataset) {
            datasetNode = &node;
            break;
        }
    }
    if (!datasetNode)
        return report;
    for (const Issue &issue : report.issues)
        if (issue.node == datasetNode->id && issue.severity == Severity::Error)
            return report;  // its parameters are wrong: nothing to read
    const BlockDescriptor *block = registry.find(datasetNode->block);
    const Result<DatasetShape> shape = describeDataset(
        DatasetRequest{datasetNode->block, datasetNode->id, block->effectiveParams(datasetNode->params), preset.baseDir()});
    if (shape) {
        const PipelinePlan plan = planPipeline(preset, shape.value(), report.issues);
        ShapeReport planned = plan.report;
        if (planned.ok()) {
            inspectStages(planStages(original), shape.value(), &planned);
            // Another tool's weights against the network's tensors, from the file's header (weight_import.h).
            if (const std::optional<InitFrom> init = initFrom(original))
                planned.issues += weightImportIssues(*init, plan);
        }
        summarizeComposites(expansion.uses, &planned);
        return planned;
    }
    const Error &e = shape.error();
    QString where = e.file;  // FILE:LINE: as in the error itself
    if (!where.isEmpty() && e.line > 0)
        where += QStringLiteral(":%1").arg(e.line);
    if (!where.isEmpty())
        where += QStringLiteral(": ");
    report.issues.append(Issue{Severity::Error, where + e.message, datasetNode->id, {}, e.field});
    return report;
}

bool presetWantsCuda(const Preset &preset)
{
    return preset.training.value(QStringLiteral("device")).toString() == QStringLiteral("cuda");
}

Issue cudaUnavailableIssue()
{
    // A preset made on a GPU machine stays valid here, but training it as it is would fail: say so up front.
    return Issue{Severity::Warning,
                 QStringLiteral("cuda, but this LibTorch build has no CUDA device; training here fails unless the device is auto or cpu"),
                 {}, {}, QStringLiteral("training.device")};
}

} // namespace ty
