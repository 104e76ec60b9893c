#pragma once
// Per-sample evaluation predictions on the team store (docs/team.md, schema step 3 "evaluation samples"): each
// evaluation's samples as (run_uuid, split, checkpoint_step, sample_index) -> label, predicted, confidence, the
// evaluation named as the store names it (its run, split and checkpoint step), so the Evaluate view lists a
// teammate's samples.
//
// Threads: call on the thread that owns the connections.

#include "error.h"

#include <QString>

namespace ty {

class PgConnection;
class SqliteConnection;

struct TeamSamplesPushReport {
    int evaluations = 0;  // evaluations whose samples were sent
    qint64 samples = 0;   // samples sent
};

// Inside the caller's server transaction, before the run's evaluations are replaced there: brings the store's
// samples of run `runId` (local id; `uuid` on the store) to the local ones. An evaluation whose samples the store
// already holds (same created_at, same count) is skipped; one that differs has its samples deleted and sent again
// by COPY in batches of `batchRows`; samples of evaluations the run no longer has are deleted.
Result<TeamSamplesPushReport> pushEvaluationSamples(SqliteConnection &local, PgConnection &server, qint64 runId, const QString &uuid,
                                                    qint64 batchRows = 20000);

// Inside the caller's local transaction, after the run's evaluations were copied: copies the store's samples of
// run `uuid` into `cache` under the cache's evaluations of run `runId`. A role that may not read the samples table
// (granted SELECT before it existed) copies none and says nothing: the summaries still show. Returns how many.
Result<qint64> copyEvaluationSamples(PgConnection &server, SqliteConnection &cache, qint64 runId, const QString &uuid);

} // namespace ty
