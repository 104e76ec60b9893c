#pragma once
// training.init_from made concrete for the trainer: a run's checkpoint becomes its verified file, a file gets its
// sha256, and both become the new run's record of where its first weights came from (its parent).

#include "error.h"
#include "preset.h"
#include "trainer.h"

#include <QJsonObject>

#include <optional>

namespace ty::cli {

struct InitFromSource {
    TrainOptions::WarmStartSource weights;
    QJsonObject parent;  // {"run": 3, "checkpoint_step": 1720, "sha256": ...} or {"file": ..., "sha256": ...}, with the
                         // nodes and map when given; the run adds its import report ("import")
};

// Nothing when the preset has no init_from. A run must be in the database at `dbPath` and its checkpoint's file
// the one it wrote; errors name the run, checkpoint or file.
Result<std::optional<InitFromSource>> resolveInitFrom(const Preset &preset, const QString &dbPath);

// `--init-from RUN[:last|best|STEP]` or `--init-from FILE`: sets the source of the preset's training.init_from,
// keeping its `nodes` and `strict`.
Status setInitFromOption(Preset *preset, const QString &value);

// `--init-map NAME` (a convention: sequential, auto, names) or `--init-map '{"fc1.weight": "0.weight", ...}'`: sets
// training.init_from.map, how another tool's file names its tensors (docs/import.md).
Status setInitMapOption(Preset *preset, const QString &value);

} // namespace ty::cli
