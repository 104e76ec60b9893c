#pragma once
// Whether the process recording a running run is suspended (Ctrl-Z in its terminal, SIGSTOP, the app's Pause),
// and the status to show for such a run: "paused", not "running", and never mistaken for an abandoned run.
// Reads the operating system's process table (/proc on Linux; elsewhere nothing is known to be suspended).
// Thread-safe.

#include "run_records.h"

#include <QString>

namespace ty {

// True when process `pid` exists and is stopped by a signal (Linux: state T in /proc/PID/stat).
bool processIsSuspended(qint64 pid);

// The processes whose parent is `parent` (Linux: the field after the state in /proc/PID/stat); empty elsewhere.
QList<qint64> childProcesses(qint64 parent);

// True when a run recorded as running by (host, pid) is on this host and its process is suspended.
bool runProcessIsSuspended(const QString &host, qint64 pid);

// The status as a user reads it: runStatusName(status), except "paused" for a running run whose process is
// suspended on this host.
QString shownRunStatus(RunStatus status, const QString &host, qint64 pid);

} // namespace ty
