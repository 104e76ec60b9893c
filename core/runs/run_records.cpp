#include "run_records.h"

namespace ty {

QString runStatusName(RunStatus status)
{
    switch (status) {
    case RunStatus::Queued: return QStringLiteral("queued");
    case RunStatus::Running: return QStringLiteral("running");
    case RunStatus::Finished: return QStringLiteral("finished");
    case RunStatus::Failed: return QStringLiteral("failed");
    case RunStatus::Diverged: return QStringLiteral("diverged");
    case RunStatus::Stopped: return QStringLiteral("stopped");
    case RunStatus::Interrupted: return QStringLiteral("interrupted");
    case RunStatus::Pruned: return QStringLiteral("pruned");
    }
    return QStringLiteral("unknown");
}

std::optional<RunStatus> runStatusFromName(const QString &name)
{
    for (RunStatus status : allRunStatuses()) {
        if (runStatusName(status) == name)
            return status;
    }
    return std::nullopt;
}

bool runStatusIsTerminal(RunStatus status)
{
    return status != RunStatus::Queued && status != RunStatus::Running;
}

QList<RunStatus> allRunStatuses()
{
    return {RunStatus::Queued,   RunStatus::Running, RunStatus::Finished,   RunStatus::Failed,
            RunStatus::Diverged, RunStatus::Stopped, RunStatus::Interrupted, RunStatus::Pruned};
}

} // namespace ty
