#pragma once
// `trainyard-cli run PRESET`: the preset's data set decoded on a thread while the training module loads
// (core/data/dataset_prefetch.h). Only where the engine would load the same data set into memory anyway: a
// kind that cannot stream, a preset that loads and validates, and an estimate that fits this machine's memory
// (as the engine checks it before loading); otherwise nothing starts and the engine loads as ever.

#include "dataset_prefetch.h"

#include <QStringList>

namespace ty::cli {

// Starts the load for `run`'s arguments, when they qualify (above).
void startRunDataPrefetch(const QStringList &runArguments);
// The functions to give the training module's setDatasetPrefetch().
DatasetPrefetch runDataPrefetch();
// Waits for a load still under way and frees what was not taken.
void finishRunDataPrefetch();

} // namespace ty::cli
