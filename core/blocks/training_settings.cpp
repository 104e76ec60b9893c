#include "training_settings.h"

#include "param_values.h"
#include "saturating.h"

#include <QJsonArray>

namespace ty {

using namespace spec;

const QList<ParamSpec> &trainingSpecs()
{
    static const QList<ParamSpec> specs{
        intParam(QStringLiteral("epochs"), 10, 0, 1e6, QStringLiteral("Passes over the training split (0: only evaluate the weights of init_from)")),
        intParam(QStringLiteral("batch_size"), 128, 1, 1e6, QStringLiteral("Samples per training step")),
        intParam(QStringLiteral("eval_batch_size"), 1000, 1, 1e7, QStringLiteral("Samples per step when evaluating")),
        intParam(QStringLiteral("seed"), 0, 0, 9007199254740991.0, QStringLiteral("Seed of every random generator")),
        choiceParam(QStringLiteral("device"), QStringLiteral("auto"),
                    {QStringLiteral("auto"), QStringLiteral("cpu"), QStringLiteral("cuda")},
                    QStringLiteral("Where to train: auto picks CUDA when available")),
        boolParam(QStringLiteral("deterministic"), false,
                  QStringLiteral("Use deterministic kernels so a run repeats exactly")),
        intParam(QStringLiteral("checkpoint_every"), 1, 0, 1e6,
                 QStringLiteral("Epochs between checkpoints (0: only at the end)")),
        intParam(QStringLiteral("log_every"), 20, 1, 1e6,
                 QStringLiteral("Steps between reads of the training metrics (one device sync each)")),
        stringParam(QStringLiteral("early_stop_metric"), QString(),
                    QStringLiteral("Metric watched for early stopping, e.g. val/loss (empty: off)")),
        choiceParam(QStringLiteral("early_stop_mode"), QStringLiteral("min"), {QStringLiteral("min"), QStringLiteral("max")},
                    QStringLiteral("Whether lower or higher values of the watched metric are better")),
        intParam(QStringLiteral("early_stop_patience"), 5, 1, 1e6,
                 QStringLiteral("Epochs without improvement before stopping")),
        intParam(QStringLiteral("threads"), 0, 0, 1024, QStringLiteral("CPU threads for LibTorch (0: its default)")),
        boolParam(QStringLiteral("mixed_precision"), false,
                  QStringLiteral("On CUDA: the forward pass in float16 where safe (autocast) with dynamic loss scaling; "
                                 "on the CPU a notice, and float32")),
        choiceParam(QStringLiteral("streaming"), QStringLiteral("auto"), {QStringLiteral("auto"), QStringLiteral("on"), QStringLiteral("off")},
                    QStringLiteral("Read image data from disk batch by batch instead of holding it in memory (auto: when "
                                   "the decoded data would take more than half of the memory available)")),
        floatParam(QStringLiteral("clip_grad_value"), 0.0, 0.0, 1e9,
                   QStringLiteral("Clamp every gradient value to [-v, v] before each step (0: off)")),
        floatParam(QStringLiteral("clip_grad_norm"), 0.0, 0.0, 1e9,
                   QStringLiteral("Scale the gradients down so that their total L2 norm is at most this (0: off)")),
        intParam(QStringLiteral("accumulate_steps"), 1, 1, 1e6,
                 QStringLiteral("Split each training batch into this many parts, run one after another, their gradients summed "
                                "into one step: the whole batch's step with a fraction of its activation memory")),
        intParam(QStringLiteral("checkpoint_keep"), 0, 0, 1e6,
                 QStringLiteral("Periodic checkpoints kept, the newest (0: all); the best one is kept apart")),
        stringParam(QStringLiteral("best_metric"), QString(),
                    QStringLiteral("Metric that picks the best checkpoint, e.g. val/accuracy (empty: the early-stopping metric, else val/loss)")),
        choiceParam(QStringLiteral("best_mode"), QStringLiteral("auto"),
                    {QStringLiteral("auto"), QStringLiteral("min"), QStringLiteral("max")},
                    QStringLiteral("Whether lower or higher values of best_metric are better (auto: higher for accuracies, lower otherwise)")),
        pathParam(QStringLiteral("tensorboard_dir"), QString(),
                  QStringLiteral("While the run trains, also write its metric rows into a TensorBoard event file in "
                                 "DIR/<run id>-<run name>/ (relative to the preset's folder; empty: off)")),
        floatListParam(QStringLiteral("profile_steps"), {},
                       QStringLiteral("[FROM, TO]: record these training steps (1-based, both included) with LibTorch's profiler "
                                      "into a Chrome trace in the run's folder (empty: off)")),
        boolParam(QStringLiteral("sync_batch_norm"), false,
                  QStringLiteral("Distributed runs: batch norm layers normalise with the statistics of the whole batch, "
                                 "summed over the processes, instead of each process's shard")),
        choiceParam(QStringLiteral("dist_backend"), QStringLiteral("auto"), {QStringLiteral("auto"), QStringLiteral("gloo"), QStringLiteral("nccl")},
                    QStringLiteral("Distributed runs: c10d's backend for the collectives (auto: NCCL when training on CUDA with a "
                                   "GPU for each process on the machine, else Gloo)")),
        floatParam(QStringLiteral("dist_timeout"), 300.0, 1.0, 86400.0,
                   QStringLiteral("Distributed runs: seconds a process waits for the others (to start, or in a step) before "
                                  "the run ends as interrupted")),
    };
    return specs;
}

const ParamSpec *trainingSpec(const QString &key)
{
    for (const ParamSpec &spec : trainingSpecs())
        if (spec.name == key)
            return &spec;
    return nullptr;
}

TrainingSettings TrainingSettings::fromJson(const QJsonObject &training)
{
    auto value = [&](const char *key) {
        const QString k = QString::fromLatin1(key);
        return training.contains(k) ? training.value(k) : trainingSpec(k)->defaultValue;
    };
    TrainingSettings s;
    s.epochs = value("epochs").toInt();
    s.batchSize = value("batch_size").toInt();
    s.evalBatchSize = value("eval_batch_size").toInt();
    // Validation refuses a seed or step out of its range, but the settings are also read from presets it refused
    // (to plan their stages, to estimate memory): fuzz_preset found a seed of 1e103.
    s.seed = saturatedInt64(value("seed").toDouble());
    s.device = value("device").toString();
    s.deterministic = value("deterministic").toBool();
    s.checkpointEvery = value("checkpoint_every").toInt();
    s.logEvery = value("log_every").toInt();
    s.earlyStopMetric = value("early_stop_metric").toString();
    s.earlyStopMode = value("early_stop_mode").toString();
    s.earlyStopPatience = value("early_stop_patience").toInt();
    s.threads = value("threads").toInt();
    s.streaming = value("streaming").toString();
    s.mixedPrecision = value("mixed_precision").toBool();
    s.clipGradValue = value("clip_grad_value").toDouble();
    s.clipGradNorm = value("clip_grad_norm").toDouble();
    s.accumulateSteps = value("accumulate_steps").toInt();
    s.checkpointKeep = value("checkpoint_keep").toInt();
    s.bestMetric = value("best_metric").toString();
    s.bestMode = value("best_mode").toString();
    s.distTimeout = value("dist_timeout").toDouble();
    s.distBackend = value("dist_backend").toString();
    s.syncBatchNorm = value("sync_batch_norm").toBool();
    const QJsonArray profile = value("profile_steps").toArray();
    if (profile.size() == 2) {
        s.profileFrom = saturatedInt64(profile.at(0).toDouble());
        s.profileTo = saturatedInt64(profile.at(1).toDouble());
    }
    return s;
}

} // namespace ty
