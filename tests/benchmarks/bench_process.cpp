#include "bench_process.h"

#include "bench_report.h"

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
    // Everything the child needs is made before fork: after it, a child of a threaded process may only exec.
    std::vector<QByteArray> args{program.toLocal8Bit()};
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
    return out;
}

ProcessRun runCli(const QStringList &arguments, const QList<QByteArray> &environment)
{
    return runProcess(QStringLiteral(TRAINYARD_CLI), arguments, environment);
}

} // namespace ty::bench
