#pragma once
// Structural validation of a pipeline graph: every issue at once, each pinned to its node, port or parameter.
// Shape checks come on top of these (core/shapes/pipeline_plan.h).

#include "block_registry.h"
#include "issue.h"
#include "pipeline_graph.h"

#include <QJsonObject>

namespace ty {

// Unknown blocks and parameters, wrong types and ranges, invalid or duplicate ids, dangling edges, edges
// into outputs or out of inputs, port kind mismatches, an input fed twice, unconnected required inputs,
// cycles, and the pipeline rules (one dataset, one optimizer, at least one loss).
Issues validateGraph(const PipelineGraph &graph, const BlockRegistry &registry = BlockRegistry::builtin());

// Checks the keys and values of a preset's `training` object against trainingSpecs().
Issues validateTraining(const QJsonObject &training);
// The same, plus what depends on the graph: training.early_stop_metric and best_metric must name a metric the
// run records (train/loss, val/loss, or train/ or val/ and the id of a metric node), and so must every block
// parameter that names a metric (ParamSpec::namesMetric), whose issue names its node and parameter.
Issues validateTraining(const QJsonObject &training, const PipelineGraph &graph,
                        const BlockRegistry &registry = BlockRegistry::builtin());
// Only what depends on the graph, for a section whose keys and values were checked when it was parsed.
Issues validateTrainingMetrics(const QJsonObject &training, const PipelineGraph &graph,
                               const BlockRegistry &registry = BlockRegistry::builtin());

// Whether a larger value of `metric` ("val/acc") is better: true for a metric node whose block says so
// (accuracies), false for losses and errors.
bool metricHigherIsBetter(const QString &metric, const PipelineGraph &graph,
                          const BlockRegistry &registry = BlockRegistry::builtin());

// Why the edge `from` -> `to` may not be added to `graph` (empty when it may): used by the canvas to refuse
// impossible connections with a reason.
QString connectionProblem(const PipelineGraph &graph, const Endpoint &from, const Endpoint &to,
                          const BlockRegistry &registry = BlockRegistry::builtin());

} // namespace ty
