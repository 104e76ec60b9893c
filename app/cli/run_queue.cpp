#include "run_queue.h"

#include "commands.h"
#include "dataset_prefetch.h"
#include "event_kinds.h"
#include "run_database.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QThread>

namespace ty::cli {

namespace {

constexpr int kPollMs = 500;

void reportWaiting(const QueueTurn &turn, const Args &args, Io &io)
{
    const QString message = QStringLiteral("waiting in the run queue: place %1 of %2; %3 of at most %4 running "
                                           "(trainyard-cli queue list)")
                                .arg(turn.place).arg(turn.waiting).arg(turn.occupied).arg(turn.limit);
    if (args.flag(QStringLiteral("events"))) {
        const QJsonObject event{{QStringLiteral("event"), eventKindName(EventKind::Queued)}, {QStringLiteral("message"), message},
                                {QStringLiteral("place"), turn.place}, {QStringLiteral("waiting"), turn.waiting},
                                {QStringLiteral("running"), turn.occupied}, {QStringLiteral("limit"), turn.limit},
                                {QStringLiteral("step"), 0}};
        io.out << QJsonDocument(event).toJson(QJsonDocument::Compact) << '\n';
        io.out.flush();
    } else if (!args.flag(QStringLiteral("json"))) {
        io.err << message << "\n";
        io.err.flush();
    }
}

} // namespace

QueuePlace::QueuePlace(std::unique_ptr<RunDatabase> db, qint64 entryId) : m_db(std::move(db)), m_entryId(entryId) {}

QueuePlace::~QueuePlace() { leave(); }

void QueuePlace::leave()
{
    if (m_entryId == 0)
        return;
    m_db->leaveQueue(m_entryId);
    m_entryId = 0;
}

int waitForTurn(const QString &dbPath, const NewQueueEntry &entry, const Args &args, Io &io, std::unique_ptr<QueuePlace> *place)
{
    place->reset();
    if (!QFileInfo::exists(dbPath))
        return Success;  // a new database has no limit: and bad input must not create it
    Result<std::unique_ptr<RunDatabase>> opened = RunDatabase::open(dbPath);
    if (!opened) {
        reportError(opened.error(), args, io);
        return BadInput;
    }
    const Result<int> limit = opened.value()->maxRunning();
    if (!limit) {
        reportError(limit.error(), args, io);
        return BadInput;
    }
    if (limit.value() == 0)
        return Success;
    const Result<qint64> entered = opened.value()->enqueue(entry);
    if (!entered) {
        reportError(entered.error(), args, io);
        return BadInput;
    }
    RunDatabase &db = *opened.value();
    *place = std::make_unique<QueuePlace>(std::move(opened).value(), entered.value());
    QueueTurn shown;
    for (;;) {
        const Result<QueueTurn> turn = db.takeTurn(entered.value());
        if (!turn) {
            reportError(turn.error(), args, io);
            place->reset();
            return BadInput;
        }
        if (turn.value().kind == QueueTurn::Go)
            return Success;
        if (turn.value().kind == QueueTurn::Cancelled || turn.value().kind == QueueTurn::Gone) {
            place->reset();
            reportError(Error(turn.value().kind == QueueTurn::Cancelled
                                  ? QStringLiteral("cancelled in the run queue: nothing was run or recorded")
                                  : QStringLiteral("this process's place in the run queue is gone (taken for a dead process's "
                                                   "while it was suspended): nothing was run or recorded; start it again")),
                        args, io);
            return Stopped;
        }
        if (turn.value().place != shown.place || turn.value().occupied != shown.occupied || turn.value().limit != shown.limit) {
            shown = turn.value();
            reportWaiting(shown, args, io);
            releasePrefetchedDataset();  // loaded again when its turn comes: no data set held while waiting
        }
        for (int slept = 0; slept < kPollMs; slept += 50) {
            if (stopFlag().load()) {
                place->reset();
                reportError(Error(QStringLiteral("stopped while waiting in the run queue: nothing was run or recorded")), args, io);
                return Stopped;
            }
            QThread::msleep(50);
        }
    }
}

} // namespace ty::cli
