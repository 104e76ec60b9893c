#pragma once
// Training a preset from start to end: data loading, the compiled model, optimizer and schedule, the loop with
// per-step metrics, validation each epoch, test evaluation, checkpoints, early stopping, divergence and stop
// handling. Runs on the calling thread; reports through a TrainObserver called on that same thread.

#include "distributed.h"
#include "engine_types.h"
#include "error.h"
#include "learning_rate_finder.h"
#include "preset.h"
#include "training_stages.h"

#include <QJsonObject>
#include <QString>

#include <memory>
#include <optional>

namespace ty {

struct TrainStart {
    QString device;          // "cpu" or "cuda:0"
    int cpuThreads = 0;      // LibTorch's intra-op CPU threads for this run (training.threads, else its default)
    qint64 trainSamples = 0, valSamples = 0, testSamples = 0;
    qint64 stepsPerEpoch = 0, totalSteps = 0;
    int epochs = 0;
    qint64 parameters = 0;
    QString dataFingerprint; // sha256 over the dataset's source files
    double loadSeconds = 0;  // time to read and decode the data (or to wait for it, when loaded ahead)
    bool dataLoadedAhead = false;  // decoded while LibTorch loaded (core/data/dataset_prefetch.h)
    qint64 resumedAtStep = -1; // the checkpoint's step when resuming, else -1
    int stages = 0;            // training stages (0 for a preset without training.stages)
    int stage = 0;             // the stage it starts (or resumes) in
    QString warmStart;         // what init_from copied, e.g. "conv1, conv2 (4 tensors) from FILE"; empty without
    QJsonObject importReport;  // init_from's import report (ImportReport::toJson, core/shapes/weight_import.h); empty without
    QStringList importLines;   // the same as text, one line per tensor after a summary line
};

// A training stage beginning (only for presets with training.stages).
struct StageStart {
    int index = 0;             // 0-based
    QString name;
    qint64 step = 0;           // steps taken before it
    int epoch = 0;             // epochs completed before it
    int epochs = 0;            // its length (early stopping may end it sooner)
    QStringList frozen;        // frozen node ids
    qint64 trainableParams = 0, frozenParams = 0;
    bool optimizerReset = true;
};

struct CheckpointInfo {
    QString path;
    qint64 step = 0;
    int epoch = 0;
    QString sha256;  // of the file as written (hex)
    bool best = false;  // the best weights so far by the monitored metric (training.early_stop_metric, else val/loss)
};

class TrainObserver {
public:
    virtual ~TrainObserver() = default;
    virtual void onStarted(const TrainStart &start) {}
    virtual void onMetrics(const QList<MetricSample> &samples) {}  // in step order, batched by log interval
    virtual void onEpochEnd(int epoch, qint64 step, const QMap<QString, double> &epochMetrics) {}
    // Returns whether the checkpoint was recorded: when not (the run database failed), the run deletes no older
    // checkpoint for it (checkpoint_keep, a replaced best), so a resume still finds the last recorded one.
    virtual bool onCheckpoint(const CheckpointInfo &checkpoint) { return true; }
    virtual void onCheckpointRemoved(const QString &path) {}  // an older checkpoint deleted (training.checkpoint_keep)
    virtual void onStage(const StageStart &stage) {}
    virtual void onEvent(const QString &kind, const QString &message, qint64 step) {}
    virtual void onProgress(qint64 step, qint64 totalSteps, int epoch, double loss) {}  // at each metrics read
    // The speed report: speed/* rows (samples per second, each phase's time in the last step of a log interval,
    // peak memory). Timings, so not part of an exact resume's promise; kept apart from onMetrics for that.
    virtual void onSpeed(const QList<MetricSample> &samples) {}
    virtual bool stopRequested() { return false; }  // polled every step
};

struct TrainOptions {
    QString runFolder;       // checkpoints go to runFolder/checkpoints/ (nothing written when empty)
    QString device;          // overrides training.device when not empty: auto, cpu, cuda
    QString resumeCheckpoint;// continue from this checkpoint (weights, optimizer, RNG, data position, step)
    qint64 runId = -1;       // the run's id in its database, written into checkpoints; a resume checkpoint of
                             // another run is refused (unchecked when -1)
    // The first weights (training.init_from, resolved by the caller: a run's checkpoint becomes its file). When
    // not set, a preset's init_from of a file is read from there; one of a run is an error. Ignored when
    // resuming.
    struct WarmStartSource {
        QString path;
        QStringList nodes;   // empty: every matching node
        bool strict = true;
        WeightMap map;       // how another tool's file names its tensors; not given for Trainyard's own files
    };
    std::optional<WarmStartSource> initFrom;
    // A data-parallel run (docs/distributed.md): this process trains its shard of every batch with the others of
    // the group. Only the process that writes the run (rank 0) should be given a runFolder.
    std::shared_ptr<ProcessGroup> group;
    int threads = 0;  // LibTorch's CPU threads when > 0, over training.threads (processes sharing a machine)
    // The checkpoint files this run wrote and recorded before (a resume). Besides the files it writes now, these
    // are the only ones it may delete (training.checkpoint_keep, a newer best), and only while they are regular
    // files in runFolder/checkpoints/ with the recorded sha256: a file it did not write is never deleted.
    struct OwnedCheckpoint {
        QString path;
        QString sha256;
        qint64 step = 0;
        bool best = false;
    };
    QList<OwnedCheckpoint> ownedCheckpoints;
};

namespace detail {
class TrainingRun;
}

// A run whose data is loaded onto the device, whose model and optimizer are built and, when resuming, whose
// checkpoint is loaded: everything that can fail because of the input has been checked. Owned by the caller;
// used on one thread.
class PreparedTraining {
public:
    explicit PreparedTraining(std::unique_ptr<detail::TrainingRun> run);
    ~PreparedTraining();
    const TrainStart &info() const;
    // Where checkpoints go, the run they belong to, and the checkpoints it recorded before (TrainOptions), when
    // not known at prepare() time.
    void setRunFolder(const QString &folder, qint64 runId = -1, const QList<TrainOptions::OwnedCheckpoint> &owned = {});
    // Trains to the end (once). Never throws: failures end in a TrainResult with outcome Failed.
    TrainResult run(TrainObserver &observer);
    // Instead of run() (once, on a new run): the learning-rate range test (learning_rate_finder.h) on the first
    // stage's model and optimizer. Writes nothing. Never throws: a failure ends in a result with `failed` set.
    LrFindResult findLearningRate(const LrFindOptions &options, const LrFindProgress &progress);

private:
    std::unique_ptr<detail::TrainingRun> m_run;
};

class Trainer {
public:
    // Loads and checks everything; an Error names the node and field to blame (a missing or truncated data
    // file, a shape problem, a bad checkpoint). Never throws.
    static Result<std::unique_ptr<PreparedTraining>> prepare(const Preset &preset, const TrainOptions &options);
    // prepare() then run(); a preparation error becomes a Failed result.
    static TrainResult train(const Preset &preset, const TrainOptions &options, TrainObserver &observer);
};

} // namespace ty
