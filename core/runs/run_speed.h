#pragma once
// A run's speed report as recorded (speed/* metrics, docs/training-ui.md "Speed"): the median of each figure over
// its reports, the largest peak memory, and the samples per second over the steps. Shared by `runs show` and the
// app's Speed tab.

#include "error.h"
#include "run_records.h"

#include <QList>
#include <QMap>

namespace ty {

class RunDatabase;

struct RunSpeed {
    int reports = 0;                    // timed steps recorded (0: a run from before the speed report)
    double samplesPerSecond = 0;        // median
    double stepMs = 0;                  // median
    QMap<QString, double> phaseMs;      // median per phase: data, forward, backward, allreduce, optimizer, logging
    double peakRssMb = 0;               // largest
    double peakCudaMb = -1;             // largest on a CUDA device; -1 when the run recorded none (the CPU)
    QList<MetricPoint> rate;            // speed/samples_per_s at each report, in step order
    bool empty() const { return reports == 0; }
};

// The phases in the order of a step.
const QStringList &speedPhases();

Result<RunSpeed> runSpeed(const RunDatabase &db, qint64 runId);

// "60,336 samples/s; a step 2.17 ms (data 0.09, forward 0.72, ...); peak memory 432 MB (medians of 21 reports)",
// with "peak memory 1210 MB, GPU 388 MB" on a CUDA device.
QString runSpeedText(const RunSpeed &speed);

} // namespace ty
