#include "team_replicator.h"

#include "pg_connection.h"
#include "team_push.h"

#include <chrono>
#include <memory>

namespace ty {

void TeamReplicator::start(const QString &databasePath, const QString &conninfo, qint64 runId, int intervalMs,
                           std::function<void(const QString &)> warn)
{
    stop();
    m_databasePath = databasePath;
    m_conninfo = conninfo;
    m_runId = runId;
    m_intervalMs = intervalMs;
    m_warn = std::move(warn);
    m_stopping = false;
    m_warned = false;
    m_thread = std::thread([this] { loop(); });
}

void TeamReplicator::stop()
{
    if (!m_thread.joinable())
        return;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    m_thread.join();
}

void TeamReplicator::loop()
{
    std::unique_lock<std::mutex> lock(m_mutex);
    for (;;) {
        m_wake.wait_for(lock, std::chrono::milliseconds(m_intervalMs), [this] { return m_stopping; });
        const bool last = m_stopping;
        if (last && m_passes.load() > 0 && !m_lastPassOk.load())
            return;  // the store was down: `team push` catches up later
        lock.unlock();
        pass();
        lock.lock();
        if (last)
            return;
    }
}

bool TeamReplicator::pass()
{
    // A fresh connection per pass: one that broke (server restarted) is not reused, and an idle run holds none.
    PgConnection server;
    Status outcome = server.open(m_conninfo);
    if (outcome.ok()) {
        TeamPushOptions options;
        options.runIds = {m_runId};
        Result<TeamPushReport> pushed = pushRunsToTeam(m_databasePath, server, options);
        if (!pushed)
            outcome = pushed.error();
    }
    ++m_passes;
    m_lastPassOk = outcome.ok();
    if (!outcome.ok() && !m_warned && m_warn) {
        m_warned = true;
        m_warn(QStringLiteral("warning: the team store is not replicating this run (%1); training goes on, and "
                              "`trainyard-cli team push` catches up later")
                   .arg(outcome.error().message));
    }
    return outcome.ok();
}

} // namespace ty
