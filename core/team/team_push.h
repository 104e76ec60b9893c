#pragma once
// Pushing a local run database's runs to the team store (docs/team.md): one pass, as `trainyard-cli team push` and
// the background replicator of `trainyard-cli run --team` make it.
//
// Per run: first the server's rows after a step that a resume deleted here are deleted there too; then the metric
// rows after the run's mark (team_replication.metrics_rowid), in rowid order, COPYed in batches, each batch one
// server transaction inserting with ON CONFLICT (run_uuid, name, step) DO NOTHING, and the mark moved after its
// commit; then, when their digest changed, the run's record and its parameters, tags, events, stages, checkpoint
// references, evaluation summaries and metric summaries, replaced in one transaction. A pass killed at any point
// leaves the server with rows that the next pass sends again and the server ignores: pushes are idempotent.
// Last, when the pass changed anything of the run on the server, one NOTIFY trainyard_runs "<uuid> <last step>"
// (team_listener.h), after the commits: at most one notification per run per pass.
//
// Threads: call on any one thread; it opens its own connections to the local file.

#include "error.h"

#include <QList>
#include <QString>

namespace ty {

class PgConnection;

struct TeamPushOptions {
    QList<qint64> runIds;        // the runs to push; empty: every run of the database
    qint64 batchRows = 20000;    // metric rows per server transaction
};

struct TeamPushReport {
    int runs = 0;                // runs looked at
    int records = 0;             // runs whose record (and small tables) were sent
    qint64 metricRowsSent = 0;   // metric rows sent
    qint64 metricRowsNew = 0;    // of those, rows the server did not have
    int truncations = 0;         // resumed runs whose later rows were deleted on the server
    qint64 evaluationSamplesSent = 0;  // per-sample predictions sent (those of evaluations the store lacked)
    int notifications = 0;       // NOTIFYs sent: one per run that changed on the server (team_listener.h)
};

// Pushes `databasePath`'s runs (the file must exist at the current schema version: open it with RunDatabase
// first) to `server`, creating the team schema when the store has none. Errors name the store or the file; a role
// that may not write gets an error saying so.
Result<TeamPushReport> pushRunsToTeam(const QString &databasePath, PgConnection &server, const TeamPushOptions &options = {});

} // namespace ty
