#pragma once
// The background replicator of `trainyard-cli run --team URL` (docs/team.md): a thread that pushes one run to the
// team store every few seconds while it trains (pushRunsToTeam(), team_push.h), so that training never waits on
// the network. A store that is down or refuses only delays replication: the first failure is reported once
// through `warn`, later passes retry, and `trainyard-cli team push` catches up whatever is left.
//
// Threads: start() and stop() on the owning thread; the passes run on the replicator's own thread, with their own
// connections. `warn` is called on the replicator's thread (at most once).

#include <QString>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace ty {

class TeamReplicator {
public:
    TeamReplicator() = default;
    ~TeamReplicator() { stop(); }
    TeamReplicator(const TeamReplicator &) = delete;
    TeamReplicator &operator=(const TeamReplicator &) = delete;

    void start(const QString &databasePath, const QString &conninfo, qint64 runId, int intervalMs,
               std::function<void(const QString &)> warn);
    // Wakes the thread for a last pass (unless the pass before failed: a store that is down does not hold the
    // process up) and joins it.
    void stop();

    int passes() const { return m_passes.load(); }
    bool lastPassOk() const { return m_lastPassOk.load(); }

private:
    void loop();
    bool pass();

    QString m_databasePath;
    QString m_conninfo;
    qint64 m_runId = 0;
    int m_intervalMs = 2000;
    std::function<void(const QString &)> m_warn;
    std::thread m_thread;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stopping = false;
    bool m_warned = false;
    std::atomic<int> m_passes{0};
    std::atomic<bool> m_lastPassOk{false};
};

} // namespace ty
