#include "preset_inspection.h"

#include "block_registry.h"
#include "dataset_loader.h"
#include "graph_validation.h"
#include "pipeline_plan.h"
#include "stage_inspection.h"

namespace ty {

ShapeReport inspectPresetShapes(const Preset &preset)
{
    const BlockRegistry &registry = BlockRegistry::builtin();
    ShapeReport report;
    report.issues = validateGraph(preset.graph, registry) + trainingSectionIssues(preset);
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
        ShapeReport planned = planPipeline(preset, shape.value(), report.issues).report;
        if (planned.ok())
            inspectStages(planStages(preset), shape.value(), &planned);
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
