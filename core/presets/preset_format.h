#pragma once
// The preset file format (docs/presets.md): reading with migrations from older versions, and writing.

#include "error.h"
#include "preset.h"

#include <QJsonArray>
#include <QJsonObject>

namespace ty {

// Structural problems (malformed JSON with line and column, wrong field types, a newer format version) are
// errors naming the file and field. Semantic problems (unknown blocks, bad values) are left to validation.
Result<Preset> presetFromJson(const QJsonObject &json, const QString &fileName);
Result<Preset> loadPreset(const QString &path);

QJsonObject presetToJson(const Preset &preset);

// The "nodes" and "edges" of `json` (a preset or a composite definition); error fields begin with `fieldPrefix`.
Result<PipelineGraph> graphFromJson(const QJsonObject &json, const QString &fileName, const QString &fieldPrefix = {});
QJsonArray nodesToJson(const PipelineGraph &graph);
QJsonArray edgesToJson(const PipelineGraph &graph);
Status savePreset(const Preset &preset, const QString &path);

// Brings an older preset JSON up to kFormatVersion, step by step. Fails for newer versions.
Result<QJsonObject> migratePresetJson(QJsonObject json, const QString &fileName);

} // namespace ty
