#pragma once
// The typed events of a training worker's `--events` stream (docs/events.md), as EventStreamParser emits them.
// Plain copyable values; safe to pass between threads and through queued signals.

#include "run_records.h"

#include <QList>
#include <QMap>
#include <QMetaType>
#include <QString>

namespace ty {

// "started": training begins (the data is loaded, the run is recorded).
struct TrainingStarted {
    qint64 runId = 0;
    QString dbPath;
    QString device;
    qint64 trainSamples = 0, valSamples = 0, testSamples = 0;
    qint64 stepsPerEpoch = 0;
    qint64 totalSteps = 0;
    int epochs = 0;
    qint64 parameters = 0;
    qint64 resumedAtStep = -1;  // -1 unless resuming
};

// "epoch": an epoch ended and was validated.
struct TrainingEpoch {
    int epoch = 0;  // 1-based
    qint64 step = 0;
    QMap<QString, double> metrics;  // val/* and the last train/loss; NaN where not finite
};

// "checkpoint": a checkpoint file is in place.
struct TrainingCheckpoint {
    qint64 step = 0;
    int epoch = 0;
    QString path;
};

// "warning", "diverged", "early_stop", "resumed": something to tell the user, training may go on.
struct TrainingNote {
    QString kind;
    QString message;
    qint64 step = 0;
};

// "finished": the run ended, whatever the outcome.
struct TrainingFinished {
    qint64 runId = 0;
    QString status;   // finished, failed, diverged, stopped
    QString message;
    QString node;     // the node to blame, or empty
    qint64 steps = 0;
    int epochs = 0;
    QMap<QString, double> summary;  // last value of each metric
    QString checkpoint;
};

// "error": bad input, nothing was recorded.
struct TrainingError {
    QString message;
    QString file;
    QString node;
    QString field;
    int line = 0;
    int column = 0;
};

} // namespace ty

Q_DECLARE_METATYPE(ty::TrainingStarted)
Q_DECLARE_METATYPE(ty::TrainingEpoch)
Q_DECLARE_METATYPE(ty::TrainingCheckpoint)
Q_DECLARE_METATYPE(ty::TrainingNote)
Q_DECLARE_METATYPE(ty::TrainingFinished)
Q_DECLARE_METATYPE(ty::TrainingError)
