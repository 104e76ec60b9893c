#pragma once
// Training a preset into an existing run record: the part `run` and `resume` share.

#include "cli.h"
#include "cli_args.h"
#include "preset.h"

namespace ty::cli {

// Starts the run's writer, trains (from `resumeCheckpoint` when not empty), ends the record with a truthful
// status, prints the summary (text or --json) and returns the exit code.
int trainAndRecord(const Preset &preset, const QString &dbPath, qint64 runId, const QString &resumeCheckpoint,
                   const Args &args, Io &io);

} // namespace ty::cli
