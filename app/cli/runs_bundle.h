#pragma once
// trainyard-cli runs export ID... --bundle FILE, sweeps export ID --bundle FILE and runs import FILE: the command
// line of run bundles (core/runs/run_bundle_export.h, run_bundle_import.h; docs/run-database.md#run-bundles).

#include "commands.h"

#include <QList>
#include <QString>

namespace ty::cli {

// Writes the runs `runIds` and the sweeps `sweepIds` (with every trial) of `database` into `bundle`.
int exportBundle(const QString &database, const QList<qint64> &runIds, const QList<qint64> &sweepIds, const QString &bundle,
                 bool withCheckpoints, Io &io);

// Merges `bundle` into `database`; with `json` the report as one JSON object.
int importBundle(const QString &database, const QString &bundle, bool json, Io &io);

} // namespace ty::cli
