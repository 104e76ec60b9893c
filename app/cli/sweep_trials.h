#pragma once
// The presets of a sweep's trials: checked by the sweep driver before anything is recorded, and built again by
// each worker (`trainyard-cli run --sweep ID --trial N`) from the sweep's record, so a trial trains what the
// sweep fixed when it started, whatever happened to the preset file since.

#include "cli.h"
#include "cli_args.h"
#include "error.h"
#include "preset.h"
#include "run_records.h"
#include "sweep_spec.h"

namespace ty::cli {

// The trials a sweep recorded, in order.
QList<SweepTrial> recordedTrials(const SweepRecord &sweep);

// The sweep's base preset, its relative data paths resolving against the preset file it came from.
Result<Preset> sweepBasePreset(const SweepRecord &sweep);

// The base preset with trial `index`'s overrides applied.
Result<Preset> sweepTrialPreset(const SweepRecord &sweep, int index);

// Applies each trial's overrides to a copy of `base` and checks the result as validate does: the first problem
// as an error naming the trial, its overrides and the node or key.
Status checkTrialPresets(const Preset &base, const QList<SweepTrial> &trials, const QString &file);

// For `run --sweep ID --trial N`: reads the sweep from the database of `args` and builds the trial's preset,
// then applies args.sets (the driver's thread setting). Reports errors and returns false on failure.
bool loadSweepTrialPreset(const Args &args, Preset *preset, SweepRecord *sweep, int *trial, Io &io);

} // namespace ty::cli
