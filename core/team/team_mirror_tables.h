#pragma once
// How the team store's tables are copied into a local run database (team_mirror.cpp for `runs ... --team`,
// team_run_cache.cpp for the app's Team view): each run under the store's id (runs.id), its child rows by that id.
//
// Threads: call on the thread that owns both connections.

#include "error.h"
#include "run_bundle_columns.h"

#include <QList>
#include <QString>
#include <QVariantList>

namespace ty {

class PgConnection;
class SqliteConnection;

struct MirroredTable {
    QString select;        // SELECT r.id, columns... FROM ... WHERE %1 ORDER BY ... (%1: the filter, on r)
    QString localTable;
    QString localColumns;  // run_id (id for runs), columns...
    BundleColumns columns;
    QString onConflict;    // appended to the local INSERT (the cache's upsert of a run), empty: none
};

// A run the store says is running but whose machine has not replicated it for this long reads as interrupted
// (its process was killed, or its machine went away): what a local run database does with another host's run
// whose heartbeat stopped (run_liveness.h). It reads as running again when its machine pushes again.
constexpr int kTeamSilentRunSeconds = 60;
// The store's status of run alias `r` as readers see it, with that rule; SQL.
QString storeRunStatusSql();

// The runs (with their preset, or '{}' for a list), the run's machine columns (teamRunExtraColumns()) and its kind
// (teamRunKindColumns(): a training run on a store of `storeVersion` before they existed).
MirroredTable mirroredRunsTable(bool withPreset, int storeVersion);
// The small tables of a run: tags and metric summaries (what a list needs) first, then parameters, events,
// stages, checkpoint references and evaluations.
QList<MirroredTable> mirroredListTables();
QList<MirroredTable> mirroredDetailTables();
MirroredTable mirroredMetricsTable();

// Copies the rows `table.select` finds with `filter` (on alias r for runs, t for the table) and `params` into
// `local`; inside the caller's transaction. Returns how many.
Result<qint64> copyMirroredRows(PgConnection &server, SqliteConnection &local, const MirroredTable &table, const QString &filter,
                                const QVariantList &params);

} // namespace ty
