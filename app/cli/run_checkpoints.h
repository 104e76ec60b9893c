#pragma once
// Finding a run's checkpoint and making sure its file is the one the run wrote, for resume and export.

#include "error.h"
#include "checkpoint_choice.h"
#include "run_records.h"

#include <QList>

#include <optional>

namespace ty::cli {

// chooseRunCheckpoint's run and checkpoint, its file verified (verifyCheckpointFile): what evaluate, predict and
// export start from.
Result<RunCheckpoint> verifiedRunCheckpoint(const QString &dbPath, qint64 runId, const QString &which, const QString &purpose);

// Succeeds when the file's sha256 equals the one recorded when run `runId` wrote it: a checkpoint copied over
// from another run, or damaged, is refused before it is read.
Status verifyCheckpointFile(const CheckpointRecord &checkpoint, qint64 runId);

} // namespace ty::cli
