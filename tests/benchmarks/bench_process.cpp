#include "bench_process.h"

#include "bench_report.h"

#include <QFileInfo>
#include <QTemporaryFile>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

namespace ty::bench {

namespace {

QByteArray nameOf(const QByteArray &entry)
{
    return entry.left(entry.indexOf('=') + 1);
}

} // namespace

ProcessRun runProcess(const QString &program, const QStringList &arguments, const QList<QByteArray> &environment)
{
    ProcessRun out;
    // The child's own peak resident set and faults come from GNU time when it is installed: wait4's figures for a
    // child of this process count what the child was before its exec, a copy of this benchmark with LibTorch
    // loaded (the kernel keeps the larger peak across exec). GNU time is small, so its child's figures are true.
    QTemporaryFile measured;
    const bool timed = QFileInfo(QStringLiteral("/usr/bin/time")).isExecutable() && measured.open();
    std::vector<QByteArray> args;
    if (timed)
        args = {QByteArrayLiteral("/usr/bin/time"), QByteArrayLiteral("-f"), QByteArrayLiteral("%M %R %U %S"), QByteArrayLiteral("-o"),
                measured.fileName().toLocal8Bit()};
    args.push_back(program.toLocal8Bit());
    for (const QString &a : arguments)
        args.push_back(a.toLocal8Bit());
    std::vector<char *> argv;
    for (QByteArray &a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<QByteArray> env(environment.begin(), environment.end());
    for (char **e = environ; *e; ++e) {
        const QByteArray entry(*e);
        bool replaced = false;
        for (const QByteArray &mine : environment)
            replaced = replaced || nameOf(entry) == nameOf(mine);
        if (!replaced)
            env.push_back(entry);
    }
    std::vector<char *> envp;
    for (QByteArray &e : env)
        envp.push_back(e.data());
    envp.push_back(nullptr);

    int pipeFds[2];
    if (::pipe(pipeFds) != 0)
        return out;
    const double start = now();
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(pipeFds[0]);
        ::close(pipeFds[1]);
        return out;
    }
    if (pid == 0) {
        ::dup2(pipeFds[1], 1);
        ::dup2(pipeFds[1], 2);
        ::close(pipeFds[0]);
        ::execve(argv[0], argv.data(), envp.data());
        ::_exit(127);
    }
    ::close(pipeFds[1]);
    QByteArray output;
    char buffer[4096];
    for (;;) {
        const ssize_t got = ::read(pipeFds[0], buffer, sizeof buffer);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        output.append(buffer, qsizetype(got));
    }
    ::close(pipeFds[0]);
    int status = 0;
    struct rusage usage {};
    while (::wait4(pid, &status, 0, &usage) < 0) {
        if (errno != EINTR)
            return out;
    }
    out.seconds = now() - start;
    out.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    out.ok = out.exitCode == 0;
    out.peakMb = double(usage.ru_maxrss) / 1024.0;
    out.minorFaults = usage.ru_minflt;
    out.userSeconds = double(usage.ru_utime.tv_sec) + double(usage.ru_utime.tv_usec) / 1e6;
    out.systemSeconds = double(usage.ru_stime.tv_sec) + double(usage.ru_stime.tv_usec) / 1e6;
    out.output = QString::fromLocal8Bit(output);
    if (timed) {
        // "PEAK_KB FAULTS USER SYSTEM", after a "Command exited with non-zero status N" line when it failed.
        const QStringList figures = QString::fromLocal8Bit(measured.readAll()).trimmed().split(QLatin1Char('\n')).last().split(QLatin1Char(' '));
        if (figures.size() == 4) {
            out.peakMb = figures.at(0).toDouble() / 1024.0;
            out.minorFaults = figures.at(1).toLong();
            out.userSeconds = figures.at(2).toDouble();
            out.systemSeconds = figures.at(3).toDouble();
        }
    }
    return out;
}

ProcessRun runCli(const QStringList &arguments, const QList<QByteArray> &environment)
{
    return runProcess(QStringLiteral(TRAINYARD_CLI), arguments, environment);
}

} // namespace ty::bench
