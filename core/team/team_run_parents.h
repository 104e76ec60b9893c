#pragma once
// The run a run started from (its provenance's "init_from", docs/team.md) across databases. A run's id names it
// only in the database it was trained in, so a push adds the parent's uuid ("run_uuid") beside that id, and every
// copy of the store (`runs ... --team`, the Team view's cache) reads the parent under the store's id.
//
// Threads: call on the thread that owns the connections.

#include "error.h"

#include <QHash>
#include <QString>
#include <QStringList>

namespace ty {

class PgConnection;
class SqliteConnection;

// For a push: `provenanceJson`, a run's provenance in `local`, with "init_from.run_uuid" set to the uuid of the run
// its "init_from.run" names there. Unchanged when it names no run, that run is gone or has no uuid, or the text is
// not a JSON object.
Result<QString> provenanceWithParentUuid(SqliteConnection &local, const QString &provenanceJson);

// The "init_from.run_uuid" of a provenance, empty when it has none.
QString parentUuidOf(const QString &provenanceJson);

// The store ids of the runs with these uuids (the ones the store holds).
Result<QHash<QString, qint64>> storeIdsOfRuns(PgConnection &server, const QStringList &uuids);

// For a copy of the store: `provenanceJson` with "init_from.run" set to the store id of the run its "run_uuid"
// names, or without "run" when the store does not hold that run or no uuid came with it (an id of a teammate's
// database would name another run here). Text that is not a JSON object, or names no run, stays as it is.
QString provenanceWithStoreParent(const QString &provenanceJson, const QHash<QString, qint64> &storeIds);

} // namespace ty
