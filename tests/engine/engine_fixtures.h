#pragma once
// Small pipelines for engine tests, built from JSON so they read like preset files.

#include "preset.h"
#include "trainer.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>

namespace ty::test {

// A preset from node and edge lists: nodes as {id, block, params}, edges as "from -> to" strings.
Preset makePreset(const QJsonArray &nodes, const QStringList &edges, const QJsonObject &training = {});

// Synthetic classification pipeline: data (dataset.synthetic `kind`) -> hidden layers -> fc_out, cross
// entropy, accuracy, `optimizer` with `lr`.
Preset classifierPreset(const QString &kind, const QString &optimizer, double lr, int epochs = 3);

// Synthetic regression pipeline with `loss` (loss.mse, loss.l1, loss.huber) and an MAE metric.
Preset regressionPreset(const QString &loss, double lr, int epochs = 3);

// The bundled preset presets/NAME.trainyard.json.
Preset bundledPreset(const QString &name);
// Writes the first `limit` Fashion-MNIST images of each split as PNG files under `outDir` with the bundled script
// (presets/fashion_mnist_to_png.py) and points the preset's data node there. False (nothing changed) when
// Fashion-MNIST or python3 is missing, or the script fails (with a warning).
bool useSmallImageFolder(Preset &preset, const QString &outDir, int limit);

// Records everything a run reports; can ask for a stop after `stopAfterSteps` steps.
class RecordingObserver : public TrainObserver {
public:
    void onStarted(const TrainStart &s) override { start = s; }
    void onMetrics(const QList<MetricSample> &samples) override { metrics += samples; }
    void onSpeed(const QList<MetricSample> &samples) override { speed += samples; }
    void onEpochEnd(int epoch, qint64, const QMap<QString, double> &) override { epochs << epoch; }
    bool onCheckpoint(const CheckpointInfo &c) override
    {
        checkpoints << c;
        return true;
    }
    void onEvent(const QString &kind, const QString &message, qint64) override { events << kind + QStringLiteral(": ") + message; }
    void onProgress(qint64 step, qint64, int, double) override { lastStep = step; }
    // Polled once before every step: stopAfterPolls stops after exactly that many steps of this run, wherever
    // a read interval stands; stopAfterSteps after the first read at or past that step.
    bool stopRequested() override
    {
        ++polls;
        return (stopAfterSteps >= 0 && lastStep >= stopAfterSteps) || (stopAfterPolls >= 0 && polls > stopAfterPolls);
    }

    QList<double> values(const QString &name) const;  // of the metrics
    QList<double> speedValues(const QString &name) const;  // of the speed reports

    TrainStart start;
    QList<MetricSample> metrics;
    QList<MetricSample> speed;
    QList<int> epochs;
    QList<CheckpointInfo> checkpoints;
    QStringList events;
    qint64 lastStep = 0;
    qint64 stopAfterSteps = -1;
    qint64 stopAfterPolls = -1;
    qint64 polls = 0;
};

} // namespace ty::test
