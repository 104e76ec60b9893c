#pragma once
// One child process, timed as a user feels it: wall time from fork to exit, and what the kernel counted for it
// (peak resident set, page faults, user and system time: through GNU time, /usr/bin/time, when installed, else
// wait4's rusage, whose peak then includes this benchmark's own). Used by the sections that measure whole
// processes (streaming, whole runs, runs list).

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

namespace ty::bench {

struct ProcessRun {
    bool ok = false;          // exited with code 0
    int exitCode = -1;        // -1 when it did not exit normally (or could not start)
    double seconds = -1;      // wall time
    double peakMb = 0;        // peak resident set
    long minorFaults = 0;     // page faults served without I/O: fresh or reclaimed pages
    double userSeconds = 0, systemSeconds = 0;
    QString output;           // standard output and error, interleaved
};

// Runs `program` with `arguments`; `environment` entries ("NAME=value") replace or add to this process's.
ProcessRun runProcess(const QString &program, const QStringList &arguments, const QList<QByteArray> &environment = {});

// trainyard-cli, as built beside this benchmark.
ProcessRun runCli(const QStringList &arguments, const QList<QByteArray> &environment = {});

} // namespace ty::bench
