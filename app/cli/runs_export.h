#pragma once
// trainyard-cli runs export ID... --tensorboard DIR: each run's metric rows as a TensorBoard event file in
// DIR/<id>-<name>/ (tensorboard_events.h), the folder TensorBoard shows as the run's name.

#include "commands.h"
#include "run_records.h"

namespace ty {
class RunDatabase;
}

namespace ty::cli {

// The records of `ids`, every one checked before any is used: false after reporting the first that is missing.
bool readRuns(RunDatabase &db, const QList<qint64> &ids, QList<RunInfo> *runs, Io &io);

int exportRunsToTensorBoard(RunDatabase &db, const QList<qint64> &ids, const QString &folder, Io &io);

} // namespace ty::cli
