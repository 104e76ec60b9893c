#pragma once
// The app's live copy of the team store (docs/team.md): a thread that keeps a TeamRunCache file up to date. It
// LISTENs for the store's notifications (team_listener.h) and copies a notified run's new rows at once; a pull
// every few seconds (5 s by default) copies whatever else changed, and is the fallback when notifications are lost
// (the listening connection broke: it listens again at the next pull). The app's run database watcher reads the
// cache file like any run database, so its views (run browser, plots, compare, Evaluate) follow the team's runs.
//
// Threads: start(), stop() and the getters on the owner's thread; the syncs run on the mirror's own thread (a
// QThread with an event loop for the listener's socket notifier) with connections of their own.

#include "error.h"

#include <QString>

#include <atomic>
#include <memory>
#include <mutex>

namespace ty {

struct TeamMirrorState {
    bool listening = false;     // notifications arrive
    qint64 syncs = 0;           // syncs that worked
    qint64 notifications = 0;   // notifications received
    qint64 metricRows = 0;      // metric rows copied in all
    int runs = 0;               // runs on the store at the last sync
    QString problem;            // the last sync's or connection's error, empty when the last sync worked
};

class TeamLiveMirror {
public:
    TeamLiveMirror();
    ~TeamLiveMirror();
    TeamLiveMirror(const TeamLiveMirror &) = delete;
    TeamLiveMirror &operator=(const TeamLiveMirror &) = delete;

    // Creates (or opens) the cache file at `cachePath` here, so that it can be opened as soon as this returns, and
    // starts the thread, which connects with `conninfo` (a libpq connection string; one libpq cannot parse is
    // refused here). Connecting, listening and syncing errors go to state().problem and are retried at each pull.
    Status start(const QString &conninfo, const QString &cachePath, int pullIntervalMs = 5000);
    void stop();
    bool isRunning() const;
    TeamMirrorState state() const;
    const QString &storeName() const { return m_storeName; }  // without any password

private:
    class Thread;
    std::unique_ptr<Thread> m_thread;
    QString m_storeName;
};

} // namespace ty
