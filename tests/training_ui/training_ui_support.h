#pragma once
// Fixtures of the training UI suite: tiny presets the real worker trains in about a second, and run databases
// filled through RunDatabase and RunWriter (as a worker would) in a temporary folder. Test thread only.

#include "evaluation_report.h"
#include "preset.h"
#include "run_database.h"

#include <QList>
#include <QPalette>
#include <QString>
#include <QTemporaryDir>

#include <memory>
#include <optional>

namespace tytest {

// The trainyard-cli built with this tree (a compile definition).
QString workerPath();

// Synthetic blobs -> linear -> relu -> linear -> cross entropy, accuracy, SGD; CPU, deterministic, one thread.
// `epochs` and `samples` size the run: the defaults train in well under a second.
ty::Preset tinyPreset(int epochs = 2, int samples = 512);
// A preset that validation refuses: the classifier's out_features (3) do not match the 4 classes, pinned to
// node "fc2".
ty::Preset brokenPreset();

// A run database in a temporary folder.
struct RunsFixture {
    QTemporaryDir dir;
    std::unique_ptr<ty::RunDatabase> db;
    QString path;

    bool open();
    // A run recorded as a worker would: created, started, `steps` train/loss rows (value 1/step), one
    // val/accuracy row per 10 steps (step/1000), then ended with `status` (Running leaves it unfinished).
    qint64 addRun(const QString &name, ty::RunStatus status, int steps, const QStringList &tags = {},
                  const QString &presetName = QString());
    // Only the run's record (queued, no rows): of tinyPreset() or `preset`, with `provenance`.
    qint64 createRun(const QString &name, const QJsonObject &provenance = {},
                     const std::optional<ty::Preset> &preset = std::nullopt);
};

// Stores a classification `report` of run `runId` as the worker stores one (its summary, no sample rows); returns
// the evaluation's id.
qint64 addClassificationEvaluation(ty::RunDatabase &db, qint64 runId, const ty::EvaluationReport &report);

// A dark palette (the Base, Window and Text roles of the app's dark scheme) and a light one, for the charts' tests.
QPalette darkPalette();
QPalette lightPalette();

} // namespace tytest
