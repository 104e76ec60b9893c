#pragma once
// The `training` section of a preset: its keys are declared as ParamSpecs, like block parameters, so that
// presets, --set training.KEY=VALUE and the inspector all share one schema with defaults and docs.

#include "block_descriptor.h"

#include <QJsonObject>

namespace ty {

// Every training key with type, default, range and doc. Two more keys hold structured values and are read by
// core/presets/training_stages.h: `stages` and `init_from`.
const QList<ParamSpec> &trainingSpecs();
const ParamSpec *trainingSpec(const QString &key);

struct TrainingSettings {
    int epochs = 10;
    int batchSize = 128;
    int evalBatchSize = 1000;
    qint64 seed = 0;
    QString device = QStringLiteral("auto");  // auto, cpu, cuda
    bool deterministic = false;
    int checkpointEvery = 1;       // epochs between checkpoints; 0: only at the end
    int logEvery = 20;             // steps between reads of the training metrics
    QString earlyStopMetric;       // e.g. "val/loss"; empty: no early stopping
    QString earlyStopMode = QStringLiteral("min");
    int earlyStopPatience = 5;
    int threads = 0;               // CPU threads for LibTorch; 0: its default
    double distTimeout = 300;      // seconds a rank of a distributed run waits for the others
    QString distBackend = QStringLiteral("auto");  // auto, gloo, nccl: c10d's backend of a distributed run
    bool syncBatchNorm = false;    // distributed: batch norm statistics of the whole batch, over the ranks
    qint64 profileFrom = 0, profileTo = 0;  // training.profile_steps: steps traced by the profiler (0: off)
    QString streaming = QStringLiteral("auto");  // auto, on, off: image data read from disk batch by batch
    bool mixedPrecision = false;   // autocast and loss scaling on CUDA
    double clipGradValue = 0;      // each gradient value clamped to [-v, v]; 0: off
    double clipGradNorm = 0;       // gradients scaled to a total L2 norm of at most this (after the clamp); 0: off
    int accumulateSteps = 1;       // parts of each training batch run one after another into one step's gradients
    int checkpointKeep = 0;        // periodic checkpoints kept (the newest); 0: all
    QString bestMetric;            // picks the best checkpoint; empty: earlyStopMetric, else val/loss
    QString bestMode = QStringLiteral("auto");  // auto, min, max

    // Effective settings from a preset's `training` object (defaults for missing keys). The object is
    // expected to have been checked by validateTraining().
    static TrainingSettings fromJson(const QJsonObject &training);
};

} // namespace ty
