#pragma once
// The small synthetic classifier the CLI and team suites train: four blobs in 2-D (600 samples unless told, 200 for
// the test), a 16-unit tanh layer, cross-entropy, accuracy and Adam at lr 0.01. A few epochs train it in well under
// a second.

#include <QByteArray>
#include <QFile>
#include <QString>
#include <QTemporaryDir>

namespace tytest {

// Writes blobs.trainyard.json into `dir` with `training` as the inside of its "training" object
// (`"epochs": 3, "batch_size": 32, "device": "cpu"`) and `samples` as the synthetic data's sample count; returns
// its path.
inline QString writeBlobsPreset(const QTemporaryDir &dir, const QByteArray &training, int samples = 600)
{
    const QString path = dir.filePath(QStringLiteral("blobs.trainyard.json"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(path));
    file.write(R"({"format": "trainyard-preset", "version": 1, "name": "blobs",
  "nodes": [
    {"id": "data", "block": "dataset.synthetic", "params": {"samples": )" + QByteArray::number(samples) + R"(, "test_samples": 200, "noise": 1.0}},
    {"id": "fc1", "block": "layer.linear", "params": {"out_features": 16}},
    {"id": "act", "block": "layer.tanh"},
    {"id": "fc2", "block": "layer.linear", "params": {"out_features": 4}},
    {"id": "loss", "block": "loss.cross_entropy"},
    {"id": "accuracy", "block": "metric.accuracy"},
    {"id": "opt", "block": "optimizer.adam", "params": {"lr": 0.01}}
  ],
  "edges": [
    {"from": "data.features", "to": "fc1.in"}, {"from": "fc1.out", "to": "act.in"}, {"from": "act.out", "to": "fc2.in"},
    {"from": "fc2.out", "to": "loss.input"}, {"from": "data.target", "to": "loss.target"},
    {"from": "fc2.out", "to": "accuracy.input"}, {"from": "data.target", "to": "accuracy.target"},
    {"from": "loss.loss", "to": "opt.loss"}
  ],
  "training": {)" + training + R"(}
})");
    return path;
}

// The same for `epochs` epochs of batches of 32 on the CPU, seed 3 (the sweep and bundle suites).
inline QString writeBlobsPreset(const QTemporaryDir &dir, int epochs)
{
    return writeBlobsPreset(dir, QStringLiteral(R"("epochs": %1, "batch_size": 32, "device": "cpu", "seed": 3)").arg(epochs).toUtf8());
}

} // namespace tytest
