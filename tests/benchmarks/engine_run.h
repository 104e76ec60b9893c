#pragma once
// Timing the real engine on a bundled preset.

#include <QString>

namespace ty::bench {

// Samples per second of the engine training presets/NAME with `batch`, measured from the metric rows' own
// times between step `warmup` and step `warmup + steps`. With `record`, metrics go to a real run database
// through the same recorder as `trainyard-cli run`; without, to an observer that drops them. With `record` and a
// `tensorBoardDir`, also to a live TensorBoard file in it, as `trainyard-cli run --tensorboard DIR` writes it. With
// `record` and a `teamStore` (a libpq connection string), the run's replicator pushes to it while it trains, as
// `trainyard-cli run --team URL` does (docs/team.md).
double engineSamplesPerSecond(const QString &preset, int batch, int warmup, int steps, bool record,
                              const QString &device = QStringLiteral("cpu"), const QString &tensorBoardDir = QString(),
                              const QString &teamStore = QString());

} // namespace ty::bench
