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
        if (s.active)
            s.active->cancel();  // a statement waiting on the store (a lock, a slow server) ends with an error
        s.finished.wait_for(lock, milliseconds(kStopWaitMs - kStopCancelAfterMs), [&s] { return s.done; });
    }
    if (s.done) {
        lock.unlock();
        m_thread.join();
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

int TeamReplicator::passes() const
{
    if (!m_shared)
        return 0;
    std::lock_guard<std::mutex> lock(m_shared->mutex);
    return m_shared->passes;
}

bool TeamReplicator::lastPassOk() const
{
    if (!m_shared)
        return false;
    std::lock_guard<std::mutex> lock(m_shared->mutex);
    return m_shared->lastPassOk;
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
        if (warned || left || !warn)
            return;
        warned = true;
    }
    warn(message);
}

} // namespace ty
