#include "team_replicator.h"

#include "pg_connection.h"
#include "team_push.h"

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace ty {

struct TeamReplicator::Shared {
    QString databasePath;
    QString conninfo;
    qint64 runId = 0;
    int intervalMs = 2000;
    std::function<void(const QString &)> warn;

    std::mutex mutex;
    std::condition_variable wake;      // stop() to the thread
    std::condition_variable finished;  // the thread to stop()
    bool stopping = false;
    bool done = false;
    bool left = false;                 // stop() gave up waiting: touch nothing more
    bool warned = false;
    bool lastPassFailed = false;       // the pass stop() asked for did not complete
    QString lastFailure;               // why (what the run's last message names)
    bool lastFailureWasPermission = false;  // a role that may only read: no push will catch up
    int passes = 0;
    bool lastPassOk = false;
    std::shared_ptr<PgCanceller> active;  // the pass's connection while it pushes

    void loop();
    bool pass();
    void warnOnce(const QString &message);
};

void TeamReplicator::start(const QString &databasePath, const QString &conninfo, qint64 runId, int intervalMs,
                           std::function<void(const QString &)> warn)
{
    stop();
    m_shared = std::make_shared<Shared>();
    m_shared->databasePath = databasePath;
    m_shared->conninfo = conninfo;
    m_shared->runId = runId;
    m_shared->intervalMs = intervalMs;
    m_shared->warn = std::move(warn);
    m_thread = std::thread([shared = m_shared] { shared->loop(); });
}

void TeamReplicator::stop()
{
    if (!m_thread.joinable())
        return;
    Shared &s = *m_shared;
    std::unique_lock<std::mutex> lock(s.mutex);
    s.stopping = true;
    s.wake.notify_all();
    using std::chrono::milliseconds;
    if (!s.finished.wait_for(lock, milliseconds(kStopCancelAfterMs), [&s] { return s.done; })) {
        // A statement waiting on the store (a lock, a slow server) ends with an error. PQcancel connects to the
        // server and may wait as long as the kernel tries an unreachable host: a thread of its own, not waited for.
        if (std::shared_ptr<PgCanceller> active = s.active)
            std::thread([active] { active->cancel(); }).detach();
        s.finished.wait_for(lock, milliseconds(kStopWaitMs - kStopCancelAfterMs), [&s] { return s.done; });
    }
    if (s.done) {
        const bool failed = s.lastPassFailed && s.warn;
        // The first word about it, or a second one for the last records after an earlier failure.
        const QString what = s.warned ? QStringLiteral("did not take this run's last records") : QStringLiteral("is not replicating this run");
        lock.unlock();
        m_thread.join();
        if (failed)
            s.warn(QStringLiteral("warning: the team store %1 (%2); the run is complete here%3")
                       .arg(what, s.lastFailure,
                            s.lastFailureWasPermission ? QStringLiteral(", and this role may not write to the store: push with a role that may")
                                                       : QStringLiteral(", and `trainyard-cli team push` sends what the store lacks")));
        return;
    }
    // Still connecting (a store that accepts and never answers): leave the pass; it touches nothing once it returns.
    s.left = true;
    const bool warn = !s.warned && s.warn;
    s.warned = true;
    lock.unlock();
    m_thread.detach();
    if (warn)
        s.warn(QStringLiteral("warning: the team store did not answer within %1 s at the end of the run; the run is "
                              "complete here, and `trainyard-cli team push` sends what the store lacks")
                   .arg(kStopWaitMs / 1000));
}

void TeamReplicator::Shared::loop()
{
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
        wake.wait_for(lock, std::chrono::milliseconds(intervalMs), [this] { return stopping; });
        const bool last = stopping;
        if (left || (last && passes > 0 && !lastPassOk))
            break;  // the store was down: `team push` catches up later
        lock.unlock();
        const bool ok = pass();
        lock.lock();
        ++passes;
        lastPassOk = ok;
        lastPassFailed = stopping && !ok;  // the last pass, or one that stop() found in flight
        if (last || left)
            break;
    }
    done = true;
    finished.notify_all();
}

bool TeamReplicator::Shared::pass()
{
    // A fresh connection per pass: one that broke (server restarted) is not reused, and an idle run holds none.
    PgConnection server;
    Status outcome = server.open(conninfo);
    if (outcome.ok()) {
        {
            std::lock_guard<std::mutex> lock(mutex);
            if (left)
                return false;
            active = server.canceller();
        }
        TeamPushOptions options;
        options.runIds = {runId};
        Result<TeamPushReport> pushed = pushRunsToTeam(databasePath, server, options);
        if (!pushed)
            outcome = pushed.error();
        std::lock_guard<std::mutex> lock(mutex);
        active.reset();
    }
    if (!outcome.ok()) {
        const bool permission = server.lastErrorWasPermission();
        {
            std::lock_guard<std::mutex> lock(mutex);
            lastFailure = outcome.error().message;
            lastFailureWasPermission = permission;
        }
        warnOnce(permission ? QStringLiteral("warning: the team store is not replicating this run (%1); training goes on, but this "
                                             "role may not write to the store: push with a role that may")
                                  .arg(outcome.error().message)
                            : QStringLiteral("warning: the team store is not replicating this run (%1); training goes on, and "
                                             "`trainyard-cli team push` catches up later")
                                  .arg(outcome.error().message));
    }
    return outcome.ok();
}

void TeamReplicator::Shared::warnOnce(const QString &message)
{
    {
        std::lock_guard<std::mutex> lock(mutex);
        if (warned || left || stopping || !warn)  // once the run has ended, stop() speaks
            return;
        warned = true;
    }
    warn(message);
}

} // namespace ty
