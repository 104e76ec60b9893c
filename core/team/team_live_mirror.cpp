#include "team_live_mirror.h"

#include "pg_connection.h"
#include "team_listener.h"
#include "team_run_cache.h"

#include <QSet>
#include <QThread>
#include <QTimer>

namespace ty {

// The mirror's thread: everything it creates in run() lives there.
class TeamLiveMirror::Thread : public QThread {
public:
    Thread(QString conninfo, QString cachePath, int pullIntervalMs)
        : m_conninfo(std::move(conninfo)), m_cachePath(std::move(cachePath)), m_pullMs(pullIntervalMs)
    {
    }

    TeamMirrorState state() const
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_state;
    }

protected:
    void run() override
    {
        TeamRunCache cache;
        PgConnection reader;
        QSet<QString> pending;  // notified runs not synced yet
        QTimer soon;            // one sync for a burst of notifications
        soon.setSingleShot(true);
        soon.setInterval(0);
        TeamListener listener(
            [&](const TeamRunNotification &notification) {
                pending.insert(notification.uuid);
                update([](TeamMirrorState &s) { ++s.notifications; });
                soon.start();
            },
            [&](const QString &message) { setProblem(message); });

        const auto syncNow = [&](bool all) {
            if (!cache.path().isEmpty() || cache.open(m_cachePath).ok()) {
                if (!listener.isListening()) {
                    const Status listening = listener.listen(m_conninfo);
                    if (!listening.ok()) {
                        setProblem(listening.error().message);
                        return;  // the store cannot be reached: the next pull tries again
                    }
                }
                Status ready = reader.isOpen() ? Status::success() : reader.open(m_conninfo);
                if (ready.ok()) {
                    const QSet<QString> notified = std::exchange(pending, {});
                    Result<TeamCacheSyncReport> synced = all ? cache.sync(reader, notified) : cache.syncRuns(reader, notified);
                    if (synced) {
                        update([&](TeamMirrorState &s) {
                            ++s.syncs;
                            s.metricRows += synced.value().metricRows;
                            if (all)
                                s.runs = synced.value().runs;
                            s.listening = listener.isListening();
                            s.problem = s.listening ? QString() : s.problem;
                        });
                        return;
                    }
                    ready = synced.error();
                    reader.close();  // a broken connection is opened again at the next pull
                }
                setProblem(ready.error().message);
            } else {
                setProblem(QStringLiteral("cannot open the team cache %1").arg(m_cachePath));
            }
        };
        QObject::connect(&soon, &QTimer::timeout, [&] { syncNow(false); });
        QTimer pull;
        pull.setInterval(m_pullMs);
        QObject::connect(&pull, &QTimer::timeout, [&] { syncNow(true); });
        pull.start();
        syncNow(true);
        exec();
    }

private:
    template <typename F>
    void update(F change)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        change(m_state);
    }
    void setProblem(const QString &message)
    {
        update([&](TeamMirrorState &s) {
            s.problem = message;
            s.listening = false;
        });
    }

    const QString m_conninfo;
    const QString m_cachePath;
    const int m_pullMs;
    mutable std::mutex m_mutex;
    TeamMirrorState m_state;
};

TeamLiveMirror::TeamLiveMirror() = default;

TeamLiveMirror::~TeamLiveMirror()
{
    stop();
}

Status TeamLiveMirror::start(const QString &conninfo, const QString &cachePath, int pullIntervalMs)
{
    stop();
    Result<QString> name = redactedConninfo(conninfo);
    if (!name)
        return name.error();
    {
        TeamRunCache cache;  // created here: the caller opens it next
        if (Status opened = cache.open(cachePath); !opened.ok())
            return opened;
    }
    m_storeName = name.value();
    m_thread = std::make_unique<Thread>(conninfo, cachePath, pullIntervalMs);
    m_thread->start();
    return Status::success();
}

void TeamLiveMirror::stop()
{
    if (!m_thread)
        return;
    m_thread->quit();
    m_thread->wait();
    m_thread.reset();
}

bool TeamLiveMirror::isRunning() const
{
    return m_thread != nullptr;
}

TeamMirrorState TeamLiveMirror::state() const
{
    return m_thread ? m_thread->state() : TeamMirrorState{};
}

} // namespace ty
