#include "team_listener.h"

#include <QSocketNotifier>

namespace ty {

QString teamNotificationPayload(const QString &uuid, qint64 step)
{
    return uuid + QLatin1Char(' ') + QString::number(step);
}

std::optional<TeamRunNotification> parseTeamNotification(const QByteArray &payload)
{
    const QList<QByteArray> parts = payload.split(' ');
    if (parts.size() != 2 || parts[0].isEmpty())
        return std::nullopt;
    bool ok = false;
    const qint64 step = parts[1].toLongLong(&ok);
    if (!ok)
        return std::nullopt;
    return TeamRunNotification{QString::fromLatin1(parts[0]), step};
}

TeamListener::TeamListener(Notified notified, Lost lost) : m_notified(std::move(notified)), m_lost(std::move(lost)) {}

TeamListener::~TeamListener()
{
    stop();
}

Status TeamListener::listen(const QString &conninfo)
{
    stop();
    if (Status opened = m_connection.open(conninfo); !opened.ok())
        return opened;
    if (Status listening = m_connection.command(QStringLiteral("LISTEN %1").arg(QLatin1String(kTeamRunsChannel)),
                                                QStringLiteral("cannot listen for new runs"));
        !listening.ok()) {
        m_connection.close();
        return listening;
    }
    m_notifier = std::make_unique<QSocketNotifier>(qintptr(m_connection.socketDescriptor()), QSocketNotifier::Read);
    QObject::connect(m_notifier.get(), &QSocketNotifier::activated, [this] { readSocket(); });
    readSocket();  // any that arrived while LISTEN was answered
    return Status::success();
}

void TeamListener::stop()
{
    m_notifier.reset();
    m_connection.close();
}

void TeamListener::readSocket()
{
    if (!m_notifier)
        return;
    Result<QList<QByteArray>> payloads = m_connection.takeNotifications(QByteArray(kTeamRunsChannel));
    if (!payloads) {
        stop();
        if (m_lost)
            m_lost(payloads.error().message);
        return;
    }
    for (const QByteArray &payload : payloads.value())
        if (const std::optional<TeamRunNotification> notification = parseTeamNotification(payload)) {
            ++m_received;
            if (m_notified)
                m_notified(*notification);
        }
}

} // namespace ty
