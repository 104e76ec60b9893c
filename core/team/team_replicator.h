#pragma once
// The background replicator of `trainyard-cli run --team URL` (docs/team.md): a thread that pushes one run to the
// team store every few seconds while it trains (pushRunsToTeam(), team_push.h), so that training never waits on
// the network. A store that is down or refuses only delays replication: the first failure is reported once
// through `warn`, later passes retry, and `trainyard-cli team push` catches up whatever is left. Nor does a store
// that hangs or is slow hold the process up at its end: stop() waits at most kStopWaitMs for the pass in flight
// (cancelling its statement after kStopCancelAfterMs), then leaves it.
//
// Threads: start() and stop() on the owning thread; the passes run on the replicator's own thread, with their own
// connections. `warn` is called on the replicator's thread while it runs (at most once) and on stop()'s.

#include <QString>

#include <functional>
#include <memory>
#include <thread>

namespace ty {

class TeamReplicator {
public:
    static constexpr int kStopCancelAfterMs = 4000;
    static constexpr int kStopWaitMs = 5000;

    TeamReplicator() = default;
    ~TeamReplicator() { stop(); }
    TeamReplicator(const TeamReplicator &) = delete;
    TeamReplicator &operator=(const TeamReplicator &) = delete;

    void start(const QString &databasePath, const QString &conninfo, qint64 runId, int intervalMs,
               std::function<void(const QString &)> warn);
    // Wakes the thread for a last pass (unless the pass before failed: a store that is down does not hold the
    // process up) and joins it. A pass still running after kStopCancelAfterMs has its statement cancelled (from a
    // thread of its own: the cancel request connects too); one still running after kStopWaitMs (a connection that
    // hangs) is left to end on its own. When the last pass did not complete, `warn` says so (once more if need be:
    // the run has ended, and what the store lacks waits for `trainyard-cli team push`).
    void stop();

private:
    struct Shared;
    std::shared_ptr<Shared> m_shared;  // with the thread, which may outlive this object when stop() left it
    std::thread m_thread;
};

} // namespace ty
