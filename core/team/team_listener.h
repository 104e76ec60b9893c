#pragma once
// Live notification from the team store (docs/team.md): after a push pass committed something new of a run, the
// pusher sends one NOTIFY on the channel trainyard_runs whose payload is "<run uuid> <last metric step>" (-1 when
// the run has no metric row yet). A TeamListener LISTENs on a connection of its own and hands each notification
// to a callback as soon as its socket is readable: a QSocketNotifier on libpq's socket, PQconsumeInput and
// PQnotifies, no polling. A broken connection is reported once through `lost` and the listener stops; the owner
// listens again (TeamLiveMirror does at its next pull).
//
// Threads: a TeamListener belongs to the thread that calls listen(), which must run a Qt event loop; the callbacks
// run on it.

#include "error.h"
#include "pg_connection.h"

#include <QString>

#include <functional>
#include <memory>
#include <optional>

class QSocketNotifier;

namespace ty {

inline constexpr char kTeamRunsChannel[] = "trainyard_runs";

struct TeamRunNotification {
    QString uuid;
    qint64 step = -1;
};

QString teamNotificationPayload(const QString &uuid, qint64 step);
// Nothing for a payload that is not "<uuid> <step>" (another program's NOTIFY on the channel).
std::optional<TeamRunNotification> parseTeamNotification(const QByteArray &payload);

class TeamListener {
public:
    using Notified = std::function<void(const TeamRunNotification &)>;
    using Lost = std::function<void(const QString &message)>;

    TeamListener(Notified notified, Lost lost);
    ~TeamListener();
    TeamListener(const TeamListener &) = delete;
    TeamListener &operator=(const TeamListener &) = delete;

    // Connects with `conninfo` and LISTENs; notifications then arrive through the callback.
    Status listen(const QString &conninfo);
    void stop();
    bool isListening() const { return m_notifier != nullptr; }
    qint64 received() const { return m_received; }

private:
    void readSocket();

    Notified m_notified;
    Lost m_lost;
    PgConnection m_connection;
    std::unique_ptr<QSocketNotifier> m_notifier;
    qint64 m_received = 0;
};

} // namespace ty
