#pragma once
// The file a training worker reads: a snapshot of the preset on the canvas (saved or not), written inside the
// run area (<folder of the database>/snapshots/), never over the user's file. Relative path parameters (a CSV
// next to the preset) are made absolute against the preset's own folder first, so the worker, which reads the
// snapshot from elsewhere, and a later resume find the same files.
// Pure functions; any thread.

#include "error.h"
#include "preset.h"

#include <QString>

namespace ty {

// `preset` with every relative, non-empty Path parameter (of its nodes and of `training`) resolved against
// preset.baseDir() (makePathsAbsolute).
Preset presetForWorker(const Preset &preset);

// Writes presetForWorker(preset) to <dir of dbPath>/snapshots/snapshot-<UTC time>-<random>.trainyard.json and
// returns the file's absolute path.
Result<QString> writeWorkerSnapshot(const Preset &preset, const QString &dbPath);

} // namespace ty
