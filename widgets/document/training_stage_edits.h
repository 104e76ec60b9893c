#pragma once
// Edits of training.stages (core/presets/training_stages.h) as whole new training sections, for the stages
// editor to push as one undo command each (PipelineDocument::setTrainingSection); and what a node rename does to
// the training section. Pure functions on the section's JSON; no widgets.

#include "pipeline_graph.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>

#include <optional>

namespace ty::stage_edits {

QJsonArray stagesOf(const QJsonObject &training);

// Adds a stage at the end, named "stage N" (unused). The first stage takes training.epochs (removed: stages give
// the length), later ones one epoch.
QJsonObject addStage(const QJsonObject &training);
// Removes stage `index`; when it was the only one, its epochs become training.epochs again.
QJsonObject removeStage(const QJsonObject &training, int index);
QJsonObject moveStage(const QJsonObject &training, int from, int to);
// Sets one key of a stage ("name", "epochs", "set", "reset_optimizer"); an undefined value removes the key.
QJsonObject setStageValue(const QJsonObject &training, int index, const QString &key, const QJsonValue &value);
// Makes `frozen` the nodes frozen in stage `index`: its own freeze and unfreeze lists become the difference from
// `frozenBefore`, the nodes frozen in the stage before (empty for the first). Lists in graph order; empty ones go.
QJsonObject setStageFrozen(const QJsonObject &training, int index, const PipelineGraph &graph,
                           const QStringList &frozenBefore, const QStringList &frozen);

// A stage's `set` as KEY=VALUE lines, and back. Values take the type of the parameter or training key the key
// names ("opt.lr=1e-4" -> 0.0001, "training.batch_size=64" -> 64); what names nothing stays text, for the
// validation to report. A line without "=" is refused (`problem` says which).
QString overridesText(const QJsonObject &set);
std::optional<QJsonObject> overridesFromText(const QString &text, const PipelineGraph &graph, QString *problem);

// The training section with node `oldId` called `newId` in the stages' freeze and unfreeze lists and `set` keys,
// and in init_from.nodes and the network's side of an explicit init_from.map ("fc1.weight").
QJsonObject renameNode(const QJsonObject &training, const QString &oldId, const QString &newId);

} // namespace ty::stage_edits
