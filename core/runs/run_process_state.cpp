#include "run_process_state.h"

#include "run_liveness.h"

#include <QFile>

namespace ty {

bool processIsSuspended(qint64 pid)
{
    if (pid <= 0)
        return false;
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return false;
    // "PID (COMMAND) STATE ...": the command may hold spaces and parentheses, so the state follows the last ')'.
    const QByteArray line = stat.read(4096);
    const int close = int(line.lastIndexOf(')'));
    if (close < 0 || close + 2 >= line.size())
        return false;
    const char state = line.at(close + 2);
    return state == 'T' || state == 't';
}

bool runProcessIsSuspended(const QString &host, qint64 pid)
{
    return pid > 0 && !host.isEmpty() && host == thisHostName() && processIsSuspended(pid);
}

QString shownRunStatus(RunStatus status, const QString &host, qint64 pid)
{
    if (status == RunStatus::Running && runProcessIsSuspended(host, pid))
        return QStringLiteral("paused");
    return runStatusName(status);
}

} // namespace ty
