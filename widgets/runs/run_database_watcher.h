#pragma once
// The app's one read connection to the run database, and the one timer that watches it for every view.
//
// Each poll asks SQLite whether anything was committed since the last one (RunDatabase::commitStamp: PRAGMA
// data_version moves when another connection commits, total_changes() when this one writes): one query that reads
// no table. What it emits:
//   changed()      something was committed since the last poll (the live plots read their new rows);
//   runsChanged()  the runs' change stamp moved (a run created, deleted, started, ended, or its heartbeat): read at
//                  most once a second, and only when something was committed since it was read last (when it
//                  cannot be read, runsChanged() too, so that the views read and show why);
//   ticked()       every second, after the above, changed or not: for what changes with time alone (a process
//                  that died or was suspended: paused runs, a queue entry whose process is gone, a dead sweep
//                  driver). generation() tells a view whether anything was committed since it read last.
// It polls every pollInterval() (250 ms, the live plots' delay) while the database has a queued or running run,
// and once a second when it has none: an idle app makes one small query a second.
//
// Views take the watcher (setWatcher), read through database() and refresh on these signals; none opens a
// connection of its own. connectionReplaced() announces another file (or the same one opened again): drop what
// was read through the old connection, which is closed right after the signal.
//
// Ownership and threads: owns its RunDatabase; GUI thread (a Qt SQL connection belongs to the thread that opened it).

#include "error.h"
#include "run_database.h"  // complete, for the signal's argument

#include <QObject>

#include <memory>

class QTimer;

namespace ty {

class RunDatabaseWatcher : public QObject {
    Q_OBJECT
public:
    static constexpr int kDefaultPollMs = 250;  // while a run is queued or running
    static constexpr int kPollsPerTick = 4;     // ticked(), the runs' stamp and idle polls: every 4 polls (a second)

    explicit RunDatabaseWatcher(QObject *parent = nullptr);
    ~RunDatabaseWatcher() override;

    // Opens (creating it if needed) the run database at `path` and starts watching it; on success replaces the
    // connection (connectionReplaced), on failure keeps the one it had. With `teamCopy` (the "Both" view), the team
    // store's local copy is read beside it (RunDatabase::attachTeamCopy) and its commits count as changes too.
    Status open(const QString &path, const QString &teamCopy = {});
    RunDatabase *database() const { return m_db.get(); }
    QString path() const;

    // The poll while runs are active (tests shorten it); ticks and idle polls come every kPollsPerTick of them.
    void setPollInterval(int milliseconds);
    int pollInterval() const { return m_pollMs; }
    bool isPollingFast() const;  // a run was queued or running at the last look

    // Moves with every poll that found a commit (and with every new connection).
    qint64 generation() const { return m_generation; }
    const RunsChangeStamp &runsStamp() const { return m_runsStamp; }
    bool hasCurrentRunsStamp() const { return !m_runsStampStale; }  // false: commits since, or it could not be read
    // SQL queries this watcher made since it opened its connection (a measuring aid).
    qint64 queryCount() const { return m_queries; }

public Q_SLOTS:
    void poll();      // what the timer does
    void checkNow();  // a poll that also reads the runs' stamp and ticks now (after starting a run here)

Q_SIGNALS:
    void connectionReplaced(ty::RunDatabase *database);
    void changed();
    void runsChanged();
    void ticked();

private:
    void look(bool tickNow);
    bool readCommits();    // true when something was committed (or it cannot tell)
    bool readRunsStamp();  // true when the stamp moved (or it cannot tell)
    void schedule();

    std::unique_ptr<RunDatabase> m_db;
    QTimer *m_timer;
    int m_pollMs = kDefaultPollMs;
    int m_pollsSinceTick = 0;
    CommitStamp m_commits;
    RunsChangeStamp m_runsStamp;
    bool m_runsStampStale = true;  // something was committed since the runs' stamp was read
    qint64 m_generation = 0;
    qint64 m_queries = 0;
};

} // namespace ty
