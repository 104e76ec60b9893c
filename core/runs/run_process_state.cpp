#include "run_process_state.h"

#include "run_liveness.h"

#include <QDir>
#include <QFile>

namespace ty {

namespace {

// The fields of /proc/PID/stat after the command: "STATE PPID ...". The command may hold spaces and
// parentheses, so they follow the last ')'. Empty when the process is gone.
QList<QByteArray> statFields(qint64 pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (pid <= 0 || !stat.open(QIODevice::ReadOnly))
        return {};
    const QByteArray line = stat.read(4096);
    const int close = int(line.lastIndexOf(')'));
    return close < 0 ? QList<QByteArray>() : line.mid(close + 2).split(' ');
}

} // namespace

bool processIsSuspended(qint64 pid)
{
    const QList<QByteArray> fields = statFields(pid);
    const char state = fields.isEmpty() || fields.first().isEmpty() ? 0 : fields.first().at(0);
    return state == 'T' || state == 't';
}

QList<qint64> childProcesses(qint64 parent)
{
    QList<qint64> children;
    for (const QString &entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        bool numeric = false;
        const qint64 pid = entry.toLongLong(&numeric);
        if (!numeric)
            continue;
        const QList<QByteArray> fields = statFields(pid);
        if (fields.size() > 1 && fields.at(1).toLongLong() == parent)
            children << pid;
    }
    return children;
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
