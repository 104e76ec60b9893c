#pragma once
// The editor's check of a warm start from a run (training.init_from {"run": N, "checkpoint": ...}): the run and
// the checkpoint must be in the run database the app records in, with the checkpoint's file present. It is the
// choice `trainyard-cli run` makes (chooseRunCheckpoint), so the Issues list says what the run would refuse;
// the file's sha256 is left to the run, which reads it anyway. Thread-safe: it opens its own connection.

#include "issue.h"
#include "preset.h"

namespace ty {

// Nothing when the preset starts from no run, or no database is chosen yet.
Issues initFromRunIssues(const Preset &preset, const QString &databasePath);

} // namespace ty
