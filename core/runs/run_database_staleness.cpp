// RunDatabase: marking runs interrupted whose writing process is gone (see run_liveness.h for the rule).

#include "run_database.h"

#include "run_liveness.h"
#include "run_sqlite.h"

#include <QSqlQuery>

namespace ty {

int RunDatabase::markStaleRunsInterrupted()
{
    struct Candidate {
        qint64 id;
        RunStatus status;
        QVariant heartbeat;   // as stored, to detect a writer that moved on in between
        QDateTime lastSign;
    };
    QList<Candidate> candidates;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    {
        QSqlQuery query(m_db);
        query.prepare(QStringLiteral("SELECT id, host, pid, heartbeat_at, started_at, created_at, status FROM runs"
                                     " WHERE status = ? OR status = ?"));
        query.addBindValue(runStatusName(RunStatus::Running));
        query.addBindValue(runStatusName(RunStatus::Queued));
        if (!query.exec()) {
            qWarning("%s", qPrintable(runDbError(QStringLiteral("cannot look for stale runs"), m_path,
                                                 query.lastError()).message));
            return 0;
        }
        while (query.next()) {
            const QVariant heartbeat = query.value(3);
            QDateTime lastSign = fromRunDbTime(heartbeat);
            if (!lastSign.isValid())
                lastSign = fromRunDbTime(query.value(4));
            if (!lastSign.isValid())
                lastSign = fromRunDbTime(query.value(5));
            const QString host = query.value(1).toString();
            const qint64 pid = query.value(2).toLongLong();
            // A queued run has no heartbeat yet (it is loading its data, however long that takes): only its
            // process, gone from this host, tells that it will never start.
            if (query.value(6).toString() == runStatusName(RunStatus::Queued)) {
                if (!host.isEmpty() && host == thisHostName() && pid > 0 && !processMayBeAlive(pid))
                    candidates.append({query.value(0).toLongLong(), RunStatus::Queued, heartbeat, lastSign});
                continue;
            }
            if (runLooksAbandoned(host, pid, lastSign, now))
                candidates.append({query.value(0).toLongLong(), RunStatus::Running, heartbeat, lastSign});
        }
    }
    if (candidates.isEmpty())
        return 0;

    int marked = 0;
    const Status status = inRunWriteTransaction(m_db, m_path, [&]() -> Status {
        QSqlQuery update(m_db);
        update.prepare(QStringLiteral(
            "UPDATE main.runs SET status = ?, status_message = ?, ended_at = ?"
            " WHERE id = ? AND status = ? AND heartbeat_at IS ?"));
        for (const Candidate &candidate : candidates) {
            const QString last = candidate.heartbeat.isNull() ? QStringLiteral("never") : candidate.heartbeat.toString();
            update.addBindValue(runStatusName(RunStatus::Interrupted));
            update.addBindValue(candidate.status == RunStatus::Queued
                                    ? QStringLiteral("the process that created the run stopped before training began")
                                    : QStringLiteral("the writing process stopped without finishing (last heartbeat %1)").arg(last));
            update.addBindValue(candidate.lastSign.isValid() ? toRunDbTime(candidate.lastSign) : toRunDbTime(now));
            update.addBindValue(candidate.id);
            update.addBindValue(runStatusName(candidate.status));
            update.addBindValue(candidate.heartbeat);
            if (!update.exec())
                return runDbError(QStringLiteral("cannot mark run %1 interrupted").arg(candidate.id), m_path,
                                  update.lastError());
            marked += update.numRowsAffected() > 0 ? 1 : 0;
        }
        return Status::success();
    });
    if (!status.ok()) {
        qWarning("%s", qPrintable(status.error().message));
        return 0;
    }
    return marked;
}

} // namespace ty
