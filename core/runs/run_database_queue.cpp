// RunDatabase: the run queue. Processes that would start a run while the database's limit on runs trained at once
// is reached wait here, in order; the app and `trainyard-cli queue` reorder, cancel or start them now.

#include "run_database.h"

#include "run_liveness.h"
#include "run_sqlite.h"

#include <QSqlQuery>

#include <algorithm>
#include <functional>

namespace ty {

namespace {

const char kQueueColumns[] =
    "id, name, kind, run_id, sweep_id, sweep_trial, position, state, start_now, host, pid, created_at, heartbeat_at";

QueueEntry entryFromRow(const QSqlQuery &query)
{
    QueueEntry entry;
    entry.id = query.value(0).toLongLong();
    entry.name = query.value(1).toString();
    entry.kind = query.value(2).toString();
    entry.runId = query.value(3).toLongLong();
    entry.sweepId = query.value(4).toLongLong();
    entry.sweepTrial = query.value(5).isNull() ? -1 : query.value(5).toInt();
    entry.position = query.value(6).toDouble();
    entry.state = query.value(7).toString();
    entry.startNow = query.value(8).toInt() != 0;
    entry.host = query.value(9).toString();
    entry.pid = query.value(10).toLongLong();
    entry.createdAt = fromRunDbTime(query.value(11));
    entry.heartbeatAt = fromRunDbTime(query.value(12));
    return entry;
}

// Entries in order (waiting and admitted; cancelled ones too when asked), from inside or outside a transaction.
Result<QList<QueueEntry>> readEntries(const QSqlDatabase &db, const QString &path, bool withCancelled)
{
    QSqlQuery query(db);
    if (!query.exec(QStringLiteral("SELECT %1 FROM queue %2 ORDER BY position, id")
                        .arg(QLatin1String(kQueueColumns), withCancelled ? QString() : QStringLiteral("WHERE state != 'cancelled'"))))
        return runDbError(QStringLiteral("cannot read the run queue"), path, query.lastError());
    QList<QueueEntry> entries;
    while (query.next())
        entries.append(entryFromRow(query));
    if (const std::optional<Error> cut = rowsCutShort(query, QStringLiteral("cannot read the run queue"), path))
        return *cut;
    return entries;
}

Status execBound(const QSqlDatabase &db, const QString &path, const QString &sql, const QVariantList &binds, const QString &what)
{
    QSqlQuery query(db);
    query.prepare(sql);
    for (const QVariant &bind : binds)
        query.addBindValue(bind);
    if (!query.exec())
        return runDbError(what, path, query.lastError());
    return Status::success();
}

// An entry whose process is gone: on this host, its pid is dead; on another, a waiting entry has not polled for
// kStaleHeartbeatSeconds (an admitted one no longer polls while it loads its data, so only its run's own
// liveness can tell, once it is recorded).
bool entryIsGone(const QueueEntry &entry, const QDateTime &now)
{
    if (entry.host == thisHostName())
        return !processMayBeAlive(entry.pid);
    if (entry.state == QLatin1String("admitted"))
        return false;
    return !entry.heartbeatAt.isValid() || entry.heartbeatAt.secsTo(now) > kStaleHeartbeatSeconds;
}

} // namespace

Result<int> RunDatabase::maxRunning() const
{
    QSqlQuery query(m_db);
    if (!query.exec(QStringLiteral("SELECT value FROM settings WHERE key = 'max_running'")))
        return runDbError(QStringLiteral("cannot read the queue's limit"), m_path, query.lastError());
    return query.next() ? qMax(0, query.value(0).toInt()) : 0;
}

Status RunDatabase::setMaxRunning(int limit)
{
    if (limit < 0)
        return Error(QStringLiteral("the limit on runs at once must be 0 (none) or more, not %1").arg(limit));
    return inRunWriteTransaction(m_db, m_path, [&]() -> Status {
        return execBound(m_db, m_path, QStringLiteral("INSERT OR REPLACE INTO settings (key, value) VALUES ('max_running', ?)"),
                         {QString::number(limit)}, QStringLiteral("cannot set the queue's limit"));
    });
}

Result<qint64> RunDatabase::enqueue(const NewQueueEntry &entry)
{
    if (Status intact = checkIntegrity(); !intact)
        return intact.error();
    qint64 id = 0;
    const Status status = inRunWriteTransaction(m_db, m_path, [&]() -> Status {
        QSqlQuery insert(m_db);
        insert.prepare(QStringLiteral("INSERT INTO queue (name, kind, run_id, sweep_id, sweep_trial, position, state, host, pid,"
                                      " created_at, heartbeat_at) VALUES (?, ?, ?, ?, ?,"
                                      " (SELECT coalesce(max(position), 0) + 1 FROM queue), 'waiting', ?, ?, ?, ?)"));
        insert.addBindValue(nullIfEmpty(entry.name));
        insert.addBindValue(entry.kind);
        insert.addBindValue(entry.runId > 0 ? QVariant(entry.runId) : QVariant());
        insert.addBindValue(entry.sweepId > 0 ? QVariant(entry.sweepId) : QVariant());
        insert.addBindValue(entry.sweepId > 0 ? QVariant(entry.sweepTrial) : QVariant());
        insert.addBindValue(thisHostName());
        insert.addBindValue(thisProcessId());
        insert.addBindValue(runDbNow());
        insert.addBindValue(runDbNow());
        if (!insert.exec())
            return runDbError(QStringLiteral("cannot join the run queue"), m_path, insert.lastError());
        id = insert.lastInsertId().toLongLong();
        return Status::success();
    });
    if (!status)
        return status.error();
    return id;
}

Result<QueueTurn> RunDatabase::takeTurn(qint64 entryId)
{
    markStaleRunsInterrupted();  // a dead run frees its slot
    QueueTurn turn;
    const Status status = inRunWriteTransaction(m_db, m_path, [&]() -> Status {
        Result<QList<QueueEntry>> all = readEntries(m_db, m_path, true);
        if (!all)
            return all.error();
        const QDateTime now = QDateTime::currentDateTimeUtc();
        QList<QueueEntry> live;
        for (const QueueEntry &entry : all.value()) {
            if (entry.id != entryId && entryIsGone(entry, now)) {
                if (Status dropped = execBound(m_db, m_path, QStringLiteral("DELETE FROM queue WHERE id = ?"), {entry.id},
                                               QStringLiteral("cannot clean the run queue"));
                    !dropped)
                    return dropped;
                continue;
            }
            live.append(entry);
        }
        const auto own = std::find_if(live.begin(), live.end(), [&](const QueueEntry &e) { return e.id == entryId; });
        if (own == live.end() || own->state == QLatin1String("cancelled")) {
            turn.kind = own == live.end() ? QueueTurn::Gone : QueueTurn::Cancelled;
            return Status::success();
        }
        if (Status beat = execBound(m_db, m_path, QStringLiteral("UPDATE queue SET heartbeat_at = ? WHERE id = ?"), {runDbNow(), entryId},
                                    QStringLiteral("cannot renew the queue entry"));
            !beat)
            return beat;
        if (own->state == QLatin1String("admitted")) {
            turn.kind = QueueTurn::Go;
            return Status::success();
        }
        Result<int> limit = maxRunning();
        if (!limit)
            return limit.error();
        turn.limit = limit.value();
        QSqlQuery count(m_db);
        if (!count.exec(QStringLiteral("SELECT count(*) FROM runs WHERE status IN ('queued', 'running')")) || !count.next())
            return runDbError(QStringLiteral("cannot count the running runs"), m_path, count.lastError());
        turn.occupied = count.value(0).toInt();
        int place = 0;
        for (const QueueEntry &entry : live) {
            if (entry.state == QLatin1String("admitted"))
                ++turn.occupied;
            else if (entry.state == QLatin1String("waiting")) {
                ++turn.waiting;
                if (entry.position < own->position || (entry.position == own->position && entry.id < own->id))
                    ++place;
            }
        }
        turn.place = place + 1;
        const bool fits = turn.limit == 0 || place < turn.limit - turn.occupied;
        if (!own->startNow && !fits)
            return Status::success();
        turn.kind = QueueTurn::Go;
        return execBound(m_db, m_path, QStringLiteral("UPDATE queue SET state = 'admitted' WHERE id = ?"), {entryId},
                         QStringLiteral("cannot take a turn in the run queue"));
    });
    if (!status)
        return status.error();
    return turn;
}

Status RunDatabase::leaveQueue(qint64 entryId)
{
    return inRunWriteTransaction(m_db, m_path, [&]() -> Status {
        return execBound(m_db, m_path, QStringLiteral("DELETE FROM queue WHERE id = ?"), {entryId}, QStringLiteral("cannot leave the run queue"));
    });
}

Result<QList<QueueEntry>> RunDatabase::queueEntries() const
{
    Result<QList<QueueEntry>> all = readEntries(m_db, m_path, false);
    if (!all)
        return all;
    // An entry whose process is gone is not waiting, even before the next waiter's poll deletes it.
    const QDateTime now = QDateTime::currentDateTimeUtc();
    QList<QueueEntry> live;
    for (const QueueEntry &entry : all.value())
        if (!entryIsGone(entry, now))
            live.append(entry);
    return live;
}

namespace {

// Runs `change` on a waiting entry inside a write transaction; an entry that is gone or not waiting is refused.
Status onWaitingEntry(const QSqlDatabase &db, const QString &path, qint64 entryId,
                      const std::function<Status(const QList<QueueEntry> &, int)> &change)
{
    return inRunWriteTransaction(db, path, [&]() -> Status {
        Result<QList<QueueEntry>> entries = readEntries(db, path, false);
        if (!entries)
            return entries.error();
        QList<QueueEntry> waiting;
        for (const QueueEntry &entry : entries.value())
            if (entry.state == QLatin1String("waiting"))
                waiting.append(entry);
        for (int i = 0; i < waiting.size(); ++i)
            if (waiting.at(i).id == entryId)
                return change(waiting, i);
        return Error(QStringLiteral("no waiting entry %1 in the run queue of %2 (it may have started or ended)").arg(entryId).arg(path));
    });
}

} // namespace

Status RunDatabase::cancelQueued(qint64 entryId)
{
    return onWaitingEntry(m_db, m_path, entryId, [&](const QList<QueueEntry> &, int) {
        return execBound(m_db, m_path, QStringLiteral("UPDATE queue SET state = 'cancelled' WHERE id = ?"), {entryId},
                         QStringLiteral("cannot cancel a queued run"));
    });
}

Status RunDatabase::startQueuedNow(qint64 entryId)
{
    return onWaitingEntry(m_db, m_path, entryId, [&](const QList<QueueEntry> &, int) {
        return execBound(m_db, m_path, QStringLiteral("UPDATE queue SET start_now = 1 WHERE id = ?"), {entryId},
                         QStringLiteral("cannot start a queued run"));
    });
}

Status RunDatabase::moveQueued(qint64 entryId, int steps)
{
    return onWaitingEntry(m_db, m_path, entryId, [&](const QList<QueueEntry> &waiting, int index) -> Status {
        const int target = qBound(0, index + steps, int(waiting.size()) - 1);
        if (target == index)
            return Status::success();
        // Between the neighbours at the target place: before the one there when moving up, after it when down.
        const double anchor = waiting.at(target).position;
        const double beyond = steps < 0 ? (target > 0 ? waiting.at(target - 1).position : anchor - 2)
                                        : (target + 1 < waiting.size() ? waiting.at(target + 1).position : anchor + 2);
        return execBound(m_db, m_path, QStringLiteral("UPDATE queue SET position = ? WHERE id = ?"), {(anchor + beyond) / 2, entryId},
                         QStringLiteral("cannot move a queued run"));
    });
}

} // namespace ty
