#pragma once
// The team store's schema on PostgreSQL (docs/team.md): every table lives in the schema `trainyard`, runs are keyed
// by their uuid (local ids are not shared across machines), and the version in trainyard.team_schema moves forward
// like the run database's. The column lists of runs, events, stages, checkpoints and evaluations are the run
// bundles' (run_bundle_columns.h), plus teamRunExtraColumns().
//
// Threads: call on the thread that owns the connection.

#include "error.h"
#include "run_bundle_columns.h"

namespace ty {

class PgConnection;

// 1: runs and their rows; 2: team sweeps (trainyard.sweeps, trainyard.sweep_trials); 3: evaluation samples;
// 4: run kinds (a training run or a learning-rate range test) and results.
constexpr int kTeamSchemaVersion = 4;
constexpr int kTeamSchemaRunKinds = 4;  // the first version whose runs have teamRunKindColumns()

// Columns of a run that the team store keeps beyond a bundle's: where it ran (process id and run folder on its
// host), so that `runs show --team` says where its files are.
const BundleColumns &teamRunExtraColumns();
// What kind of run it is ("train" or "lrfind") and an LR range test's result, as the run database keeps them;
// since schema step 4.
const BundleColumns &teamRunKindColumns();
// Metric rows and summaries, as stored locally (minus run_id).
const BundleColumns &teamMetricColumns();
const BundleColumns &teamMetricSummaryColumns();

// For pushing: creates the schema when the store has none, or adds the steps an older store lacks (under an advisory lock, so that two machines pushing
// at once create it once), or checks its version. A store written by a newer Trainyard is refused.
Status prepareTeamSchemaForWriting(PgConnection &server);
// For reading: the schema must be there, at a version this build reads; returns that version.
Result<int> checkTeamSchemaForReading(PgConnection &server);

} // namespace ty
