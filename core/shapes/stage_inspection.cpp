#include "stage_inspection.h"

#include "composite_expansion.h"
#include "dataset_arrays.h"
#include "graph_validation.h"
#include "pipeline_plan.h"
#include "preset_sections.h"
#include "safetensors_file.h"
#include "weight_name_maps.h"

namespace ty {

Issues trainingSectionIssues(const Preset &preset)
{
    // The section's own keys and values were checked when it was parsed; the metrics it names, against the graph.
    Issues issues = trainingSection(preset)->valueIssues + validateTrainingMetrics(preset.training, preset.graph);
    planStages(preset, &issues);
    const std::optional<InitFrom> init = initFrom(preset, &issues);
    // A warm start's file is checked as the run will read it, header only (cheap whatever its size); the tensors
    // against the network's shapes when the plan is known (weightImportIssues).
    if (init && !init->file.isEmpty()) {
        const Result<TensorFile> header = readSafetensorsHeader(init->file);
        if (!header)
            issues.append(Issue{Severity::Error, QStringLiteral("init_from: %1").arg(header.error().toString()), {}, {},
                                QStringLiteral("training.init_from.file")});
        else if (!init->map.given() && !isTrainyardWeights(header.value()))
            issues.append(Issue{Severity::Error,
                                QStringLiteral("init_from: %1: not a Trainyard checkpoint or weights file; for another tool's file, say "
                                               "how it names its tensors with \"map\": %2, or {\"fc1.weight\": \"0.weight\", ...} "
                                               "(docs/import.md)").arg(init->file, nameConventionList()),
                                {}, {}, QStringLiteral("training.init_from.map")});
    }
    if (init && init->map.given() && !init->map.isExplicit() && !findNameConvention(init->map.convention))
        issues.append(Issue{Severity::Error, QStringLiteral("init_from: map \"%1\" is not a convention Trainyard knows (%2), nor an object of tensor names")
                                                 .arg(init->map.convention, nameConventionList()),
                            {}, {}, QStringLiteral("training.init_from.map")});
    // Zero epochs evaluates the weights init_from gives; a network of its own initial weights has nothing to show.
    if (!trainingSection(preset)->stages.given && preset.training.value(QStringLiteral("epochs")).toInt(-1) == 0 && !init)
        issues.append(Issue{Severity::Error,
                            QStringLiteral("0 epochs only evaluates weights loaded with training.init_from (a run or a weights file); "
                                           "without init_from there is nothing to evaluate: train at least 1 epoch"),
                            {}, {}, QStringLiteral("training.epochs")});
    return issues;
}

void inspectStages(const QList<StagePlan> &stages, const DatasetShape &datasetShape, ShapeReport *report)
{
    for (const StagePlan &stage : stages) {
        if (stage.implicit)
            continue;
        const QString field = QStringLiteral("training.stages[%1]").arg(stage.index);
        StageSummary summary{stage.name, stage.epochs, 0, 0, stage.frozen, stage.overrides, stage.resetOptimizer};
        // The stage's own plan: its overrides may change what a node computes (a dropout rate), never its shape.
        const PipelinePlan plan = planPipeline(expandComposites(stage.preset).preset, datasetShape, {});
        for (auto it = report->nodes.constBegin(); it != report->nodes.constEnd(); ++it) {
            const NodeShape staged = plan.report.nodes.value(it.key());
            if (it->known && staged.known && (staged.outputShape != it->outputShape || staged.paramCount != it->paramCount))
                report->issues.append(Issue{Severity::Error,
                                            QStringLiteral("stage \"%1\" changes %2 from %3 with %4 parameters to %5 with %6; "
                                                           "a stage cannot change the network's shape")
                                                .arg(stage.name, it.key(), shapeToText(it->outputShape)).arg(it->paramCount)
                                                .arg(shapeToText(staged.outputShape)).arg(staged.paramCount),
                                            it.key(), {}, field + QStringLiteral(".set")});
            (isWithinAny(it.key(), stage.frozen) ? summary.frozenParams : summary.trainableParams) += it->paramCount;
        }
        for (const QString &id : stage.frozen)
            if (report->nodes.value(id).known && report->nodes.value(id).paramCount == 0)
                report->issues.append(Issue{Severity::Warning,
                                            QStringLiteral("%1 has no parameters to freeze; frozen, it computes as in evaluation (no dropout)").arg(id),
                                            id, {}, field + QStringLiteral(".freeze")});
        if (summary.trainableParams == 0 && report->totalParams > 0)
            report->issues.append(Issue{Severity::Error,
                                        QStringLiteral("stage \"%1\" freezes every parameter: nothing would train").arg(stage.name),
                                        {}, {}, field + QStringLiteral(".freeze")});
        report->stages << summary;
    }
}

} // namespace ty
