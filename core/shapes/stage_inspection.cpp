#include "stage_inspection.h"

#include "composite_expansion.h"
#include "dataset_arrays.h"
#include "graph_validation.h"
#include "pipeline_plan.h"
#include "preset_sections.h"
#include "safetensors_file.h"

namespace ty {

Issues trainingSectionIssues(const Preset &preset)
{
    // The section's own keys and values were checked when it was parsed; the metrics it names, against the graph.
    Issues issues = trainingSection(preset)->valueIssues + validateTrainingMetrics(preset.training, preset.graph);
    planStages(preset, &issues);
    // A warm start's file is checked as the run will read it, header only (cheap whatever its size).
    if (const std::optional<InitFrom> init = initFrom(preset, &issues); init && !init->file.isEmpty())
        if (const Status layout = checkSafetensorsLayout(init->file); !layout)
            issues.append(Issue{Severity::Error, QStringLiteral("init_from: %1").arg(layout.error().toString()), {}, {},
                                QStringLiteral("training.init_from.file")});
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
