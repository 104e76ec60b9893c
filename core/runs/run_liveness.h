#pragma once
// Deciding whether a run whose status says "running" is still being written by a live process.
// Pure functions of their inputs plus the operating system's process table; thread-safe.

#include "error.h"

#include <QDateTime>
#include <QString>

namespace ty {

// A running run whose heartbeat is older than this is considered abandoned, wherever it runs.
constexpr int kStaleHeartbeatSeconds = 30;

QString thisHostName();    // QSysInfo::machineHostName()
qint64 thisProcessId();    // QCoreApplication::applicationPid()

// kill(pid, 0) on POSIX: false only when the process certainly does not exist (ESRCH); true when it exists or
// when that cannot be known (pid <= 0, permission denied, non-POSIX systems).
bool processMayBeAlive(qint64 pid);

// True when a run recorded as running by (host, pid) with the given last heartbeat must be marked interrupted:
// its host is this host and its pid is not alive, or its heartbeat is invalid or more than
// kStaleHeartbeatSeconds older than `now` and its process is not suspended on this host (run_process_state.h).
bool runLooksAbandoned(const QString &host, qint64 pid, const QDateTime &lastHeartbeat, const QDateTime &now);

// Asks the process recording a running run to stop as after Ctrl-C: SIGINT, so it writes a checkpoint and ends
// the run as stopped. Refused with a reason when the run is on another host, its process is gone, or (on Linux)
// the pid now belongs to a program other than trainyard-cli.
Status askRunProcessToStop(const QString &host, qint64 pid);

} // namespace ty
