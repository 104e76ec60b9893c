#pragma once
// Internal to ty_engine (includes LibTorch). One training run: its set-up (prepare's steps: training_setup.cpp),
// the epoch loop, evaluation and checkpoints (training_run.cpp), each training step (training_step.cpp); its
// stages, warm start, best and early-stopping metrics and the checkpoints kept (training_stage.cpp). Lives on the
// thread that calls Trainer::train.

#include "detail/checkpoint.h"
#include "detail/collectives.h"
#include "detail/compiled_pipeline.h"
#include "detail/device_data.h"
#include "detail/gradient_reducer.h"
#include "detail/logged_steps.h"
#include "detail/mixed_precision.h"
#include "detail/step_timing.h"
#include "trainer.h"
#include "training_settings.h"
#include "training_stages.h"

#include <torch/csrc/autograd/profiler_legacy.h>

#include <QElapsedTimer>

#include <optional>
#include <utility>

namespace ty::detail {

class BatchStream;

class TrainingRun {
public:
    TrainingRun(const Preset &preset, const TrainOptions &options);
    // Loads data, compiles, builds the optimizer, loads the resume checkpoint. False with `error` set when
    // the input is to blame. May throw; Trainer catches at this boundary.
    bool prepare(Error *error);
    const TrainStart &start() const { return m_start; }
    void setRunFolder(const QString &folder, qint64 runId, const QList<TrainOptions::OwnedCheckpoint> &owned)
    {
        m_options.runFolder = folder;
        if (runId >= 0)
            m_options.runId = runId;
        m_options.ownedCheckpoints = owned;
    }
    TrainResult run(TrainObserver &observer);  // may throw
    // The learning-rate range test instead of run() (learning_rate_search.cpp): fills `result` as it goes, so the
    // points before an exception are kept. May throw.
    void findLearningRate(const LrFindOptions &options, const LrFindProgress &progress, LrFindResult *result);
    // Distributed runs (training_ranks.cpp): after prepare() on every rank, whether all of them prepared the same
    // preset; then rank 0's weights everywhere. False with `failure` set (this rank's own error when it failed).
    bool joinRanks(bool prepared, Error *failure);
    // The ending of a run whose group lost a process (PeerLost): interrupted, resumable from its last checkpoint.
    TrainResult interrupted(const QString &message);

private:
    TrainResult fail(const QString &message, const QString &node = {});
    // The set-up (training_setup.cpp), in the order prepare() runs it. Each returns false with `failure` set when
    // the run cannot start.
    bool planRun(Error *failure);     // the training section's errors, the stages, the dataset node
    bool chooseDevice(Error *failure);  // the device (one GPU per local rank), threads, determinism, cuDNN autotuning
    // Whether the data set streams from disk (training.streaming; auto weighs the memory estimate against the device
    // and the host): sets m_streaming and fills `estimate`.
    bool decideStreaming(ShapeReport *estimate, Error *failure);
    // Mixed precision (set up on CUDA, a notice elsewhere) and a notice for sync batch norm in a run of one process.
    void noteSettingsThatDoNotApply();
    bool checkMemory(ShapeReport *estimate, Error *failure);  // the estimate against the device, before allocating
    bool loadData(Error *failure);      // the splits, onto the device; the start's data fingerprint and load time
    CheckpointExpectations planSteps();  // every stage's steps, and what a resumed checkpoint must match
    bool resumedStage(int *stage, Error *failure);  // the stage the resume checkpoint is in; 0 for a new run
    bool compileStage(int stage, Error *failure);   // the model and optimizer of the first stage to run, its checks
    // Resuming: the checkpoint's weights, optimizer state, position and loss scale. Else training.init_from's weights.
    bool restoreOrWarmStart(const CheckpointExpectations &expected, Error *failure);
    void describeStart();  // m_start, for the observer
    const Node *m_datasetNode = nullptr;  // of m_preset
    bool trainEpoch(TrainResult *ending);  // false when the run ends inside the epoch
    // One training step (training_step.cpp), in the order trainEpoch runs them.
    struct StepBatch {
        torch::Tensor index;     // this rank's shard of the batch's sample indices
        torch::Tensor streamed;  // their inputs, read ahead, when the split streams from disk
        int64_t count = 0;       // the whole batch's samples, on every rank
        double share = 1.0;      // 0 for an idle rank's stand-in sample (a last batch smaller than the group)
    };
    struct StepSums {
        torch::Tensor loss;                  // the step's loss, each part weighted by its share of the batch
        std::vector<torch::Tensor> metrics;  // the statistics of each metric head, likewise
    };
    void ensurePermutation();   // the epoch's data order: a pure function of the seed and the epoch
    void applyScheduledRate();  // the stage's schedule (and any plateau reduction) at this step
    StepBatch stepBatch(BatchStream *stream);
    // zero_grad, then the forward and backward passes of the batch's parts, summed over the ranks.
    StepSums forwardBackward(const StepBatch &step);
    void trainPart(const torch::Tensor &x, const torch::Tensor &y, const StepBatch &step, int64_t samples,
                   bool armReducer, StepSums *sums);
    void optimizerStep();  // unscale (mixed precision), clip, step unless the gradients overflowed
    // Reports the logged steps whose values reached the host; with `wait`, all of them. False when the loss
    // diverged.
    bool flushPending(TrainResult *ending, bool wait);
    bool publish(const LoggedSteps::Interval &interval, TrainResult *ending);
    QMap<QString, double> evaluate(const DeviceSplit &split, const QString &prefix);
    // Distributed (training_ranks.cpp): the reducer of the parameters that train in this stage, made at its first
    // use (buildStage drops the one of the stage before).
    GradientReducer &reducer();
    // Then, after the step's backward passes: first the step's gradients summed over the ranks (those the
    // reducer did not send during the backward pass), then whether any rank failed in this step (`stepFailure`:
    // this rank's error, empty when none, or else the reducer's; then every rank throws) or was asked to stop, then the step's loss and metric
    // statistics summed (each already weighted by its share of the global batch).
    void sumAcrossRanks(torch::Tensor *loss, std::vector<torch::Tensor> *metricSums, const QString &stepFailure);
    // Rank 0's buffers (batch norm's running statistics) on every rank, before an evaluation, as DDP keeps them.
    void shareRankZeroBuffers();
    // training.profile_steps: LibTorch's profiler from step FROM to step TO, into a Chrome trace in the run folder.
    void startProfile();
    void finishProfile();
    std::unique_ptr<torch::autograd::profiler::RecordProfile> m_profile;
    QString m_profilePath;
    std::optional<StepTiming> m_timing;  // the speed report, made once the device is known
    Collectives *m_group = nullptr;  // of options.group; null for one process
    std::unique_ptr<GradientReducer> m_reducer;  // distributed: for the parameters that train in this stage
    std::shared_ptr<BatchNormSync> m_batchNormSync;  // training.sync_batch_norm in a distributed run; else null
    bool m_stopAgreed = false;       // some rank was asked to stop: every rank stops before its next step
    // Reports the metrics of an evaluation pass ("loss" and metric node ids) as PREFIX/NAME rows; returns them so.
    // A metric without a value on the split (ROC AUC of one class) has no row: a notice says why, once per name.
    QMap<QString, double> publishEvaluation(const QString &prefix, const EvaluationReport &pass);
    // True when this epoch is the best so far by training.best_metric (training_stage.cpp).
    bool checkBest(const QMap<QString, double> &epochMetrics);
    // True when early stopping is on and its patience ran out within the stage.
    bool checkEarlyStop(const QMap<QString, double> &epochMetrics);
    // Reduce on plateau, when the stage's schedule reacts to epoch metrics: may lower the rate from the next step.
    void updatePlateau(const QMap<QString, double> &epochMetrics);
    // Writes checkpoints/PREFIXstep-NNNNNNNN.safetensors at the current position (with the clock and the loss
    // scale): its path and sha256; nothing when the run has no folder, or the write failed (a warning says why).
    std::optional<std::pair<QString, QString>> writeCheckpoint(const QString &prefix);
    void checkpoint();  // at the current position, when the run has a folder
    void bestCheckpoint();  // the weights of an epoch that improved the best metric, replacing the previous best
    void dropOldCheckpoints();  // training.checkpoint_keep
    void listOwnedCheckpoints();  // those the run recorded before, when resuming (TrainOptions::ownedCheckpoints)
    // Deletes a checkpoint this run wrote, and drops its record, only when it is still that file: a regular file in
    // the run's own checkpoints/ folder with the sha256 it was written with. A file replaced since keeps its place
    // (its record goes, with a warning); a file outside the folder or reached through a link is not touched.
    void removeOwnCheckpoint(const TrainOptions::OwnedCheckpoint &checkpoint);
    // runFolder/checkpoints, or why nothing may be written or deleted there (it or the run folder is a link).
    Result<QString> checkpointFolder() const;
    std::optional<TrainOptions::OwnedCheckpoint> m_bestCheckpoint;
    QList<TrainOptions::OwnedCheckpoint> m_periodicCheckpoints;  // oldest first

    // Stages (training_stage.cpp). Builds the model and optimizer of stage `index`: the first time from the
    // seeded generator, later with the weights (and, unless the stage resets it, the optimizer state) of the
    // stage before. Leaves the random generator as it found it.
    bool buildStage(int index, Error *failure);
    // At the end of a stage: the next one begins at the current position.
    void beginNextStage();
    StageStart stageStart() const;
    bool warmStart(Error *failure);  // training.init_from, for a new run
    void resolveBestMetric();
    QList<StagePlan> m_stages;
    int m_builtStage = -1;
    int m_totalEpochs = 0;
    QString m_bestMetric;   // resolved training.best_metric
    bool m_bestMaximize = false;
    DatasetShape m_datasetShape;
    double elapsed() const { return m_clockOffset + m_clock.elapsed() / 1000.0; }

    const Preset m_preset;
    TrainOptions m_options;
    TrainObserver *m_observerPtr = nullptr;
    TrainStart m_start;
    TrainObserver &observer() { return *m_observerPtr; }
    TrainingSettings m_settings;
    CompiledPipeline m_pipeline;
    torch::Device m_device{torch::kCPU};
    DeviceSplit m_train, m_val, m_test;
    QStringList m_classNames;  // of the data set, when known
    std::unique_ptr<torch::optim::Optimizer> m_optimizer;
    double m_baseLr = 0;
    int64_t m_stepsPerEpoch = 0;  // of the current stage
    int64_t m_stageSteps = 0;     // the current stage's length in steps (its schedule runs over these)
    int64_t m_totalSteps = 0;     // of the whole run, every stage at full length
    TrainingPosition m_position;
    std::optional<LoggedSteps> m_logged;  // made once the device is known
    QMap<QString, double> m_last;
    QString m_presetHash;
    QString m_lastCheckpoint;
    QElapsedTimer m_clock;
    double m_clockOffset = 0;  // seconds trained before a resumed checkpoint
    bool m_streaming = false;  // the data set is read batch by batch (training.streaming)
    QStringList m_notices;     // said once the run starts
    bool m_plateauMissingSaid = false;
    QStringList m_undefinedSaid;  // PREFIX/NAME of the metrics whose missing value a notice has explained
    MixedPrecision m_precision;  // training.mixed_precision on CUDA; off otherwise
    qint64 m_streamedBatches = 0;
    double m_dataWaitSeconds = 0, m_trainSeconds = 0;
};

} // namespace ty::detail
