#pragma once
// Plain types of the engine's public API (no LibTorch types).

#include "evaluation_report.h"
#include "issue.h"
#include "shape_types.h"

#include <QHash>
#include <QList>
#include <QMap>
#include <QString>

#include <memory>
#include <vector>

namespace ty {

// One metric value; names are SPLIT/NAME: train/loss, val/accuracy, test/accuracy, train/lr.
struct MetricSample {
    QString name;
    qint64 step = 0;
    int epoch = 0;
    double time = 0;   // seconds since the run started
    double value = 0;
};

// Interrupted: another process of a distributed run died or stopped answering (training.dist_timeout).
enum class TrainOutcome { Finished, Failed, Diverged, Stopped, Interrupted };

struct TrainResult {
    TrainOutcome outcome = TrainOutcome::Failed;
    QString message;
    QString errorNode;                 // the node to blame, when there is one
    qint64 steps = 0;
    int epochs = 0;                    // completed epochs
    QMap<QString, double> lastMetrics; // last value of each metric by name
    QString finalCheckpoint;
    // A finished run's final model on the test split (nullptr when the data set has no test split).
    std::shared_ptr<const EvaluationReport> testEvaluation;
    // A run that streamed its data: the batches read from disk, and the seconds the steps waited for them.
    bool streamed = false;
    qint64 streamedBatches = 0;
    double dataWaitSeconds = 0;
    double trainSeconds = 0;           // time in the epochs' training steps (with that waiting)
};

} // namespace ty
