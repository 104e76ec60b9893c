#pragma once
// Plain value types of the run database: a run's status, what a trainer knows when it creates a run, what
// the database knows about a run, and the rows a run writes while it trains. No behaviour beyond naming
// statuses; all are copyable values, safe to pass between threads.

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <optional>

namespace ty {

// Stored in the database as the lowercase names ("queued", "running", ...); see docs/run-database.md.
// Pruned: a sweep's early-stopping rule ended the trial (docs/sweeps.md).
enum class RunStatus { Queued, Running, Finished, Failed, Diverged, Stopped, Interrupted, Pruned };

QString runStatusName(RunStatus status);
std::optional<RunStatus> runStatusFromName(const QString &name);
// Finished, Failed, Diverged, Stopped, Interrupted and Pruned: the run is over and has an end time.
bool runStatusIsTerminal(RunStatus status);
// Every status in declaration order (for tests, filters and combo boxes).
QList<RunStatus> allRunStatuses();

// What a run is (the runs table's kind): a training run, or a learning-rate range test (trainyard-cli lrfind), which
// trains a copy of the model for a few steps and is never a candidate where runs are compared by their results.
inline constexpr char kRunKindTrain[] = "train";
inline constexpr char kRunKindLrFind[] = "lrfind";

// What a trainer knows when it creates a run.
struct NewRun {
    QString name;
    QJsonObject preset;              // the whole preset JSON as run (after overrides)
    QString presetHash;              // sha256 hex of the canonical preset JSON (caller computes)
    QMap<QString, QString> params;   // flattened parameters: "conv1.out_channels" -> "32", "training.epochs" -> "10"
    QString appVersion, torchVersion, qtVersion, device;
    qint64 seed = 0;
    QJsonObject provenance;          // anything else worth recording (data fingerprints, command line, host)
    qint64 sweepId = 0;              // the sweep this run is a trial of (0: none), and which trial
    int sweepTrial = -1;
    QString kind = QStringLiteral("train");  // kRunKindTrain or kRunKindLrFind
};

// One row of `runs` plus its tags. Times are UTC; a time never set is an invalid QDateTime.
struct RunInfo {
    qint64 id = 0;
    QString name;
    RunStatus status = RunStatus::Queued;
    QString statusMessage;
    QString errorNode;               // the graph node an error is pinned to, if any
    QJsonObject preset;
    QString presetHash;
    QDateTime createdAt, startedAt, endedAt, heartbeatAt;
    QString appVersion, torchVersion, qtVersion, device, host;
    qint64 pid = 0;
    qint64 seed = 0;
    QJsonObject provenance;
    QString folder;                  // absolute path of the run's own folder (RunDatabase::runFolder)
    QString notes;
    QStringList tags;                // sorted
    qint64 sweepId = 0;              // 0 unless the run is a trial of a sweep
    int sweepTrial = -1;
    QString uuid;                    // random, 128 bits: the run's identity across databases
    QString kind = QStringLiteral("train");  // kRunKindTrain or kRunKindLrFind
    QJsonObject result;              // what a run of another kind than training found (lrfind: its suggestions)
};

// What a sweep driver records when it starts a sweep.
struct NewSweep {
    QString name;
    QJsonObject spec;                // sweepSpecToJson
    QJsonObject preset;              // the base preset, overlays and fixed overrides applied
    QString presetFile;              // relative data paths resolve against it
    QJsonArray trials;               // [{"index": 0, "set": ["opt.lr=0.01", ...]}, ...]
    QString metric;
    bool maximize = false;
};

// One row of `sweeps`. `status` is "running", "finished", "stopped" or "failed" as written, and reads
// "interrupted" when it says running but its driver process on this host is gone.
struct SweepRecord : NewSweep {
    qint64 id = 0;
    QString status;
    qint64 bestRun = 0;              // 0 while no trial has a value of the metric
    QDateTime createdAt, endedAt;
    QString host;
    qint64 pid = 0;
    QString uuid;                    // random, 128 bits: the sweep's identity across databases
};

// One metric sample. A NaN value is stored as SQL NULL and read back as NaN.
struct MetricPoint {
    QString name;        // "train/loss", "test/accuracy", ...
    qint64 step = 0;     // global optimizer step, one axis across stages
    int epoch = 0;
    double time = 0;     // seconds since run start
    double value = 0;
};

// A stage boundary, checkpoint, warning, ... on the run's time line.
struct RunEvent {
    qint64 step = 0;
    double time = 0;     // seconds since run start
    QString kind;        // "stage", "checkpoint", "warning", ...
    QString message;
};

struct CheckpointRecord {
    qint64 step = 0;
    int epoch = 0;
    QString path;        // where the checkpoint file is, as the trainer wrote it
    QString sha256;      // of the file as written (hex); empty for checkpoints recorded before schema 3
    bool best = false;   // the weights of the best epoch so far by the monitored metric (stored as kind "best")
};

// One training stage of a run (presets with training.stages).
struct StageRecord {
    int index = 0;
    QString name;
    qint64 startStep = 0;
    qint64 endStep = -1;   // -1 while the stage has not ended
    int startEpoch = 0;
    int epochs = 0;        // its planned length
    QStringList frozen;    // node ids
};

// One evaluation of a run's weights on a split (docs/evaluation.md). `summary` is the report's JSON: scores,
// per-class table, confusion matrix, worst samples.
struct EvaluationRecord {
    qint64 id = 0;
    qint64 runId = 0;
    QString split;               // "test", "val", "train"
    qint64 checkpointStep = 0;
    QDateTime createdAt;
    QString task;                // "classification" or "regression"
    qint64 sampleCount = 0;
    double accuracy = 0;         // classification only
    QJsonObject summary;
};

// One sample's prediction in an evaluation. Classification: class indices and the predicted class's probability.
// Regression: the first target and prediction and the residual's norm.
struct EvaluationSampleRow {
    qint64 index = 0;
    double label = 0, predicted = 0, confidence = 0;
};

// A process asking the run queue for a slot (docs/sweeps.md#the-run-queue): what it will train.
struct NewQueueEntry {
    QString name;                    // the run's name, as `runs list` will show it
    QString kind;                    // "run", "resume" or "trial"
    qint64 runId = 0;                // the run a "resume" continues
    qint64 sweepId = 0;              // the sweep and trial a "trial" belongs to
    int sweepTrial = -1;
};

// One row of `queue`. state: "waiting", "admitted" (its process may start; it leaves the queue once its run is
// recorded) or "cancelled" (its process ends without recording anything).
struct QueueEntry : NewQueueEntry {
    qint64 id = 0;
    double position = 0;             // lower goes first
    QString state;
    bool startNow = false;           // admitted whatever the limit
    QString host;
    qint64 pid = 0;
    QDateTime createdAt, heartbeatAt;
};

// What the queue says to a waiting process.
struct QueueTurn {
    // Gone: the entry is no longer there (another host took it for a dead process's while this one was suspended).
    enum Kind { Wait, Go, Cancelled, Gone } kind = Wait;
    int place = 0;                   // 1-based among the waiting entries (Wait only)
    int waiting = 0;                 // entries waiting, this one included
    int occupied = 0;                // runs queued or running and admitted entries, against...
    int limit = 0;                   // ...the limit (0: none)
};

} // namespace ty
