#include "run_database_watcher.h"

#include "run_database.h"

#include <QPointer>
#include <QTimer>

#include <algorithm>

namespace ty {

RunDatabaseWatcher::RunDatabaseWatcher(QObject *parent) : QObject(parent), m_timer(new QTimer(this))
{
    m_timer->setSingleShot(true);  // rescheduled after each poll: fast while runs are active, slow when idle
    connect(m_timer, &QTimer::timeout, this, &RunDatabaseWatcher::poll);
}

RunDatabaseWatcher::~RunDatabaseWatcher() = default;

Status RunDatabaseWatcher::open(const QString &path, const QString &teamCopy)
{
    Result<std::unique_ptr<RunDatabase>> opened = RunDatabase::open(path);
    if (!opened)
        return opened.error();
    if (!teamCopy.isEmpty())
        if (Status attached = opened.value()->attachTeamCopy(teamCopy); !attached.ok())
            return attached;
    std::unique_ptr<RunDatabase> old = std::move(m_db);
    m_db = std::move(opened).value();
    m_queries = 0;
    m_commits = CommitStamp();
    m_runsStamp = RunsChangeStamp();
    m_runsStampStale = true;
    m_pollsSinceTick = 0;
    ++m_generation;
    readCommits();
    readRunsStamp();  // which poll comes next: fast when runs are active
    // The views move to the new connection while the old one still exists, then it closes.
    Q_EMIT connectionReplaced(m_db.get());
    old.reset();
    schedule();
    return Status::success();
}

QString RunDatabaseWatcher::path() const { return m_db ? m_db->path() : QString(); }

void RunDatabaseWatcher::setPollInterval(int milliseconds)
{
    m_pollMs = std::max(10, milliseconds);
    schedule();
}

bool RunDatabaseWatcher::isPollingFast() const { return !m_runsStamp.activeIds.isEmpty(); }

void RunDatabaseWatcher::poll() { look(false); }

void RunDatabaseWatcher::checkNow() { look(true); }

void RunDatabaseWatcher::look(bool tickNow)
{
    if (!m_db)
        return;
    // A slot below may open another database: the connection is asked for again after every signal.
    const QPointer<RunDatabaseWatcher> alive(this);
    const RunDatabase *looked = m_db.get();
    if (readCommits()) {
        ++m_generation;
        m_runsStampStale = true;
        Q_EMIT changed();
        if (!alive || m_db.get() != looked)
            return;
    }
    m_pollsSinceTick += isPollingFast() ? 1 : kPollsPerTick;
    if (tickNow || m_pollsSinceTick >= kPollsPerTick) {
        m_pollsSinceTick = 0;
        if (m_runsStampStale && readRunsStamp()) {
            Q_EMIT runsChanged();
            if (!alive || m_db.get() != looked)
                return;
        }
        Q_EMIT ticked();
        if (!alive || m_db.get() != looked)
            return;
    }
    schedule();
}

bool RunDatabaseWatcher::readCommits()
{
    ++m_queries;
    const Result<CommitStamp> stamp = m_db->commitStamp();
    if (!stamp)
        return true;  // cannot tell: the views read again and meet the problem themselves
    if (stamp.value() == m_commits)
        return false;
    m_commits = stamp.value();
    return true;
}

bool RunDatabaseWatcher::readRunsStamp()
{
    m_queries += 2;
    const Result<RunsChangeStamp> stamp = m_db->changeStamp();
    if (!stamp)
        return true;  // stays stale; the run browser reads it itself and shows why it cannot
    m_runsStampStale = false;
    if (stamp.value() == m_runsStamp)
        return false;
    m_runsStamp = stamp.value();
    return true;
}

void RunDatabaseWatcher::schedule()
{
    if (!m_db)
        return;
    m_timer->start(isPollingFast() ? m_pollMs : m_pollMs * kPollsPerTick);
}

} // namespace ty
