#pragma once
// `run`, `resume` and sweep trials wait here for a free slot when the run database has a limit on runs trained at
// once (`trainyard-cli queue limit N`; docs/sweeps.md#the-run-queue): before they load any data, so a waiting
// process holds little memory. Without a limit (the default) nothing is written and nothing waits.

#include "cli.h"
#include "cli_args.h"
#include "run_records.h"

#include <memory>

namespace ty {
class RunDatabase;
}

namespace ty::cli {

// A place in the queue, with the connection that took it: leaves it when destroyed (or at leave(), once the run is
// recorded). On the thread that waited.
class QueuePlace {
public:
    QueuePlace(std::unique_ptr<RunDatabase> db, qint64 entryId);
    ~QueuePlace();
    QueuePlace(const QueuePlace &) = delete;
    QueuePlace &operator=(const QueuePlace &) = delete;
    void leave();

private:
    std::unique_ptr<RunDatabase> m_db;
    qint64 m_entryId;
};

// Success when this process may start (`*place` is set when it went through the queue), Stopped when a stop
// request or the queue's Cancel ended the wait (the error says which; nothing is recorded), BadInput when the
// database cannot be used. Prints where it waits (an "queued" event with --events), and again when that changes.
int waitForTurn(const QString &dbPath, const NewQueueEntry &entry, const Args &args, Io &io, std::unique_ptr<QueuePlace> *place);

} // namespace ty::cli
