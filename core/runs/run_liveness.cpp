#include "run_liveness.h"

#include "run_process_state.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QSysInfo>

#if defined(Q_OS_UNIX)
#include <cerrno>
#include <cstring>
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
    // Suspended (Ctrl-Z, the app's Pause): silent, but it goes on when continued.
    if (runProcessIsSuspended(host, pid))
        return false;
    if (!lastHeartbeat.isValid())
        return true;
    return lastHeartbeat.msecsTo(now) > qint64(kStaleHeartbeatSeconds) * 1000;
}

namespace {

// The file name of the program a process runs, from /proc (Linux); empty when unknown.
QString programOfProcess(qint64 pid)
{
    QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(pid));
    if (!cmdline.open(QIODevice::ReadOnly))
        return QString();
    const QByteArray argv0 = cmdline.readAll().split('\0').value(0);
    return QFileInfo(QString::fromLocal8Bit(argv0)).fileName();
}

} // namespace

Status askRunProcessToStop(const QString &host, qint64 pid)
{
    if (host.isEmpty() || host != thisHostName())
        return Error(QStringLiteral("the run is trained on host \"%1\", not here; stop it there").arg(host));
    if (pid <= 0 || !processMayBeAlive(pid))
        return Error(QStringLiteral("the process of the run (pid %1) is gone").arg(pid));
#if defined(Q_OS_UNIX)
    const QString program = programOfProcess(pid);
    if (QFile::exists(QStringLiteral("/proc/self/cmdline")) && !program.startsWith(QLatin1String("trainyard-cli")))
        return Error(QStringLiteral("pid %1 is no longer the run's trainyard-cli process").arg(pid));
    if (::kill(static_cast<pid_t>(pid), SIGINT) != 0)
        return Error(QStringLiteral("cannot signal pid %1: %2").arg(pid).arg(QString::fromLocal8Bit(std::strerror(errno))));
    return Status::success();
#else
    return Error(QStringLiteral("stopping a run started elsewhere is not supported on this system"));
#endif
}

} // namespace ty
