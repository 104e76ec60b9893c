#pragma once
// A large run database for the run browser's figures, written in one transaction straight through SQL (the
// schema comes from RunDatabase::open, so it is the real one).

#include <QString>

namespace ty::bench {

// Writes <folder>/runs.sqlite with `runs` runs of the bundled presets (their JSON stored whole, as runs store
// it): mostly finished, some failed, stopped, interrupted, diverged
// and queued; 25 metric rows each (train/loss, val/loss, val/accuracy, test/accuracy) with their
// metric_summaries, 8 parameters, tags on a third of them, notes on some. Returns the path; qFatal on failure.
QString writeRunDatabase(const QString &folder, int runs);

} // namespace ty::bench
