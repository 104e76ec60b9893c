#pragma once
// Finding a run's checkpoint and making sure its file is the one the run wrote, for resume and export.

#include "error.h"
#include "run_records.h"

#include <QList>

#include <optional>

namespace ty::cli {

// The checkpoint `which` names among `checkpoints` (ordered by step): "last" is the newest whose file is still
// there (nullopt when there is none), "best" the newest best one, a step number that step's (an Error when it
// was not recorded or its file is gone).
Result<std::optional<CheckpointRecord>> findCheckpoint(const QList<CheckpointRecord> &checkpoints, const QString &which,
                                                       qint64 runId);

// A run and the checkpoint of it that `which` names (findCheckpoint), its file verified (verifyCheckpointFile):
// what evaluate, predict and export start from. An Error when the database, the run or the checkpoint cannot be
// had; "run N has no checkpoint to <purpose> (it is <status>)" when the run wrote none.
struct RunCheckpoint {
    RunInfo run;
    CheckpointRecord checkpoint;
};
Result<RunCheckpoint> verifiedRunCheckpoint(const QString &dbPath, qint64 runId, const QString &which, const QString &purpose);

// Succeeds when the file's sha256 equals the one recorded when run `runId` wrote it: a checkpoint copied over
// from another run, or damaged, is refused before it is read.
Status verifyCheckpointFile(const CheckpointRecord &checkpoint, qint64 runId);

} // namespace ty::cli
