#pragma once
// A local run database that holds the team store's runs, for the app's Team view (docs/team.md): its widgets read
// a run database through the run database watcher, so the team's runs are copied into one, each under the store's
// id, and the views read it like any other. sync() brings it up to date with few queries: the store's list of
// runs (id, uuid, the time its record was last replicated) tells which records changed; those are copied whole
// (record, tags, summaries, parameters, events, stages, checkpoint references, evaluations); then each changed,
// running or notified run gets the metric rows after the last step the cache has of each metric (a resumed run's
// rows after the store's last step are dropped); a copied record brings its evaluations' samples. The file keeps
// what it has between sessions (the table team_cache_runs says which record it holds of each run), so a reopened
// app copies only what is new. It has indexes on negated run ids for the app's Both view (attachTeamCopy).
//
// Threads: open() and sync() on one thread (TeamLiveMirror's); readers open the file with connections of their own.

#include "error.h"
#include "sqlite_connection.h"

#include <QHash>
#include <QSet>
#include <QString>
#include <QStringList>

namespace ty {

class PgConnection;

struct TeamCacheSyncReport {
    int runs = 0;            // runs on the store
    int records = 0;         // records copied
    qint64 metricRows = 0;   // metric rows copied
};

class TeamRunCache {
public:
    // Opens (creating it with the run database's schema) the cache file at `path`.
    Status open(const QString &path);
    const QString &path() const { return m_path; }

    // Copies what changed on `server` since the last sync, plus the new metric rows of the runs `notified` (uuids).
    // On an error the cache keeps what it had (each run's copy is one transaction).
    Result<TeamCacheSyncReport> sync(PgConnection &server, const QSet<QString> &notified = {});
    // The same for the runs `uuids` only (what a notification names): their record when it changed, their new rows.
    Result<TeamCacheSyncReport> syncRuns(PgConnection &server, const QSet<QString> &uuids);

private:
    Result<TeamCacheSyncReport> syncListed(PgConnection &server, const QSet<QString> &notified, bool onlyNotified);
    Status copyRecord(PgConnection &server, qint64 id, const QString &uuid, const QString &replicatedAt);
    Result<qint64> copyNewMetrics(PgConnection &server, qint64 id, const QString &uuid, bool checkTruncation);

    QString m_path;
    SqliteConnection m_db;
    int m_storeVersion = 0;  // the store's schema version at the last full sync (0: none yet)
};

} // namespace ty
