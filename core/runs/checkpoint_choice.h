#pragma once
// Which of a run's recorded checkpoints "last", "best" or a step number names: what resume, evaluate, export,
// predict and a warm start (training.init_from) choose from, in the CLI and in the editor's checks alike.

#include "error.h"
#include "run_records.h"

#include <QList>

#include <optional>

namespace ty {

// The checkpoint `which` names among `checkpoints` (ordered by step): "last" is the newest whose file is still
// there (nullopt when there is none), "best" the newest best one, a step number that step's (an Error when it
// was not recorded or its file is gone).
Result<std::optional<CheckpointRecord>> findCheckpoint(const QList<CheckpointRecord> &checkpoints, const QString &which,
                                                       qint64 runId);

// A run of the database at `dbPath` and the checkpoint of it that `which` names (findCheckpoint), its file present
// but not yet verified: the choice behind resume, evaluate, export and training.init_from, which the editor checks
// as the run does. An Error when the database, the run or the checkpoint cannot be had; "run N has no checkpoint
// to <purpose> (it is <status>)" when the run wrote none.
struct RunCheckpoint {
    RunInfo run;
    CheckpointRecord checkpoint;
};
Result<RunCheckpoint> chooseRunCheckpoint(const QString &dbPath, qint64 runId, const QString &which, const QString &purpose);

} // namespace ty
