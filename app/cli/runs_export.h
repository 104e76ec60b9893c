#pragma once
// trainyard-cli runs export ID... --tensorboard DIR: each run's metric rows as a TensorBoard event file in
// DIR/<id>-<name>/ (tensorboard_events.h), the folder TensorBoard shows as the run's name.

#include "commands.h"

namespace ty {
class RunDatabase;
}

namespace ty::cli {

int exportRunsToTensorBoard(RunDatabase &db, const QList<qint64> &ids, const QString &folder, Io &io);

} // namespace ty::cli
