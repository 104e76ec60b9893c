#include "run_liveness.h"

#include <QCoreApplication>
#include <QSysInfo>

#if defined(Q_OS_UNIX)
#include <cerrno>
#include <signal.h>
#include <sys/types.h>
#endif

namespace ty {

QString thisHostName() { return QSysInfo::machineHostName(); }

qint64 thisProcessId() { return QCoreApplication::applicationPid(); }

bool processMayBeAlive(qint64 pid)
{
#if defined(Q_OS_UNIX)
    if (pid <= 0 || pid != static_cast<qint64>(static_cast<pid_t>(pid)))
        return true;
    if (::kill(static_cast<pid_t>(pid), 0) == 0)
        return true;
    return errno != ESRCH;
#else
    Q_UNUSED(pid);
    return true;
#endif
}

bool runLooksAbandoned(const QString &host, qint64 pid, const QDateTime &lastHeartbeat, const QDateTime &now)
{
    if (!host.isEmpty() && host == thisHostName() && pid > 0 && !processMayBeAlive(pid))
        return true;
    if (!lastHeartbeat.isValid())
        return true;
    return lastHeartbeat.msecsTo(now) > qint64(kStaleHeartbeatSeconds) * 1000;
}

} // namespace ty
