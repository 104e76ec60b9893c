#include "detail/checkpoint.h"

#include "checkpoint_position.h"

#include "detail/optimizer_state.h"
#include "detail/tensor_codec.h"
#include "regular_file.h"
#include "safetensors_file.h"
#include "sha256.h"

#include <ATen/CPUGeneratorImpl.h>
#include <QFile>
#include <QFileInfo>
#include <QSet>

#include <cmath>
#include <map>

namespace ty::detail {

namespace {

const QString kPermutation = QStringLiteral("trainyard/permutation");
const QString kRngCpu = QStringLiteral("trainyard/rng_cpu");
const QString kOptimizerTensors = QStringLiteral("optimizer_tensors");  // how many optimizer/* tensors were written
const QString kFormatName = QStringLiteral("trainyard-checkpoint");

QString number(double v) { return QString::number(v, 'g', 17); }

// The position in the metadata and the data order (checkpoint_position.h, without LibTorch), as the engine keeps it.
Result<TrainingPosition> readPosition(const TensorFile &file, const CheckpointExpectations &expected, const QString &path)
{
    std::vector<CheckpointStageLength> stages;
    for (const StageLength &stage : expected.stages)
        stages.push_back({stage.epochs, stage.stepsPerEpoch});
    Result<CheckpointPosition> read = readCheckpointPosition(file, stages, expected.trainSamples, path);
    if (!read)
        return read.error();
    const CheckpointPosition &p = read.value();
    TrainingPosition position;
    position.step = p.step;
    position.epoch = p.epoch;
    position.batchInEpoch = p.batchInEpoch;
    position.stage = p.stage;
    position.stageStartEpoch = p.stageStartEpoch;
    position.stageStartStep = p.stageStartStep;
    position.bestMetric = p.bestMetric;
    position.hasBest = p.hasBest;
    position.stopBestMetric = p.stopBestMetric;
    position.stopHasBest = p.stopHasBest;
    position.badEpochs = p.badEpochs;
    position.elapsedSeconds = p.elapsedSeconds;
    position.plateau = PlateauState{p.plateau.scale, p.plateau.best, p.plateau.hasBest, p.plateau.badEpochs, p.plateau.cooldown};
    position.lossScale = p.lossScale;
    position.lossScaleGrowth = p.lossScaleGrowth;
    if (!p.permutation.empty())
        position.permutation = torch::tensor(p.permutation, torch::kLong);
    return position;
}

// The stored value of each of the model's tensors (`own`, from modelTensors), each with the model's shape and
// dtype and finite. Tensors of the file that are not the model's are left to the caller.
Result<std::vector<torch::Tensor>> checkModelTensors(const TensorFile &file,
                                                     const std::vector<std::pair<QString, torch::Tensor>> &own,
                                                     const QString &path)
{
    std::vector<torch::Tensor> weights;
    for (const auto &[name, tensor] : own) {
        const NamedTensor *stored = file.find(name);
        if (!stored)
            return Error::inFile(path, QStringLiteral("the checkpoint has no tensor \"%1\"").arg(name), name);
        const torch::Tensor loaded = fromNamedTensor(*stored);
        if (loaded.sizes() != tensor.sizes() || loaded.scalar_type() != tensor.scalar_type())
            return Error::inFile(path, QStringLiteral("tensor \"%1\" is %2 %3, the model's is %4 %5")
                                           .arg(name, tensorDTypeName(stored->dtype), stored->shapeText(),
                                                tensorDTypeName(tensorDTypeOf(tensor.scalar_type()).value_or(TensorDType::F32)),
                                                QString::fromStdString(c10::str(tensor.sizes()))), name);
        if (!allFinite(loaded))
            return Error::inFile(path, QStringLiteral("tensor \"%1\" holds NaN or infinite values").arg(name), name);
        weights.push_back(loaded);
    }
    return weights;
}

// Refuses LibTorch archives of format 1 without parsing them.
std::optional<Error> refuseLibTorchArchive(const QString &path)
{
    if (Status regular = requireRegularFile(path); !regular)  // opening a FIFO would block
        return regular.error();
    QFile probe(path);
    if (probe.open(QIODevice::ReadOnly) && probe.read(4) == QByteArray("PK\x03\x04", 4))
        return Error::inFile(path, QStringLiteral("this checkpoint is a LibTorch archive written by an older Trainyard (format 1); "
                                                  "loading such a file can run code stored in it, so it is not loaded. "
                                                  "Start the run again, or resume from a checkpoint written by this version"));
    return std::nullopt;
}

} // namespace

Result<QString> saveCheckpoint(const QString &path, torch::nn::Module &model, torch::optim::Optimizer &optimizer,
                               const TrainingPosition &position, const QString &presetHash, int64_t runId)
{
    QByteArray bytes;
    try {
        TensorFile file;
        for (const auto &[name, tensor] : modelTensors(model))
            file.tensors.append(toNamedTensor(name, tensor));
        qint64 optimizerTensors = 0;
        for (const auto &[name, tensor] : optimizerStateTensors(optimizer, model)) {
            file.tensors.append(toNamedTensor(name, tensor));
            ++optimizerTensors;
        }
        if (position.permutation.defined())
            file.tensors.append(toNamedTensor(kPermutation, position.permutation));
        file.tensors.append(toNamedTensor(kRngCpu, at::detail::getDefaultCPUGenerator().get_state()));
        file.metadata = {
            {QStringLiteral("format"), kFormatName},
            {QStringLiteral("version"), QString::number(kCheckpointFormat)},
            {QStringLiteral("preset_hash"), presetHash},
            {QStringLiteral("run"), runId >= 0 ? QString::number(runId) : QString()},
            {QStringLiteral("step"), QString::number(position.step)},
            {QStringLiteral("epoch"), QString::number(position.epoch)},
            {QStringLiteral("batch"), QString::number(position.batchInEpoch)},
            {QStringLiteral("stage"), QString::number(position.stage)},
            {kOptimizerTensors, QString::number(optimizerTensors)},
            {QStringLiteral("stage_start_epoch"), QString::number(position.stageStartEpoch)},
            {QStringLiteral("stage_start_step"), QString::number(position.stageStartStep)},
            {QStringLiteral("best_metric"), number(position.bestMetric)},
            {QStringLiteral("has_best"), position.hasBest ? QStringLiteral("1") : QStringLiteral("0")},
            {QStringLiteral("stop_best_metric"), number(position.stopBestMetric)},
            {QStringLiteral("stop_has_best"), position.stopHasBest ? QStringLiteral("1") : QStringLiteral("0")},
            {QStringLiteral("bad_epochs"), QString::number(position.badEpochs)},
            {QStringLiteral("elapsed_seconds"), number(position.elapsedSeconds)},
            {QStringLiteral("plateau_scale"), number(position.plateau.scale)},
            {QStringLiteral("plateau_best"), number(position.plateau.best)},
            {QStringLiteral("plateau_has_best"), position.plateau.hasBest ? QStringLiteral("1") : QStringLiteral("0")},
            {QStringLiteral("plateau_bad_epochs"), QString::number(position.plateau.badEpochs)},
            {QStringLiteral("plateau_cooldown"), QString::number(position.plateau.cooldown)},
        };
        if (position.lossScale > 0) {
            file.metadata.insert(QStringLiteral("loss_scale"), number(position.lossScale));
            file.metadata.insert(QStringLiteral("loss_scale_growth"), QString::number(position.lossScaleGrowth));
        }
        bytes = encodeSafetensors(file);
    } catch (const std::exception &e) {
        return Error::inFile(path, QStringLiteral("cannot serialise checkpoint: %1").arg(QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0)));
    }
    const Status written = writeFileAtomically(path, bytes);
    if (!written)
        return Error::inFile(path, QStringLiteral("cannot write checkpoint: %1").arg(written.error().message));
    return Sha256::hexHash(bytes);
}

Result<TrainingPosition> loadCheckpoint(const QString &path, torch::nn::Module &model, torch::optim::Optimizer &optimizer,
                                        const CheckpointExpectations &expected)
{
    if (std::optional<Error> refused = refuseLibTorchArchive(path))
        return *refused;
    Result<TensorFile> read = readSafetensors(path);
    if (!read)
        return Error::inFile(path, QStringLiteral("unreadable checkpoint (truncated or foreign): %1").arg(read.error().message), read.error().field);
    const TensorFile &file = read.value();
    if (file.metadata.value(QStringLiteral("format")) != kFormatName)
        return Error::inFile(path, QStringLiteral("not a Trainyard checkpoint"));
    const QString version = file.metadata.value(QStringLiteral("version"));
    if (version != QString::number(kCheckpointFormat) && version != QStringLiteral("2"))
        return Error::inFile(path, QStringLiteral("checkpoint format %1 is not supported (expected 2 or %2)")
                                       .arg(version.left(20)).arg(kCheckpointFormat), QStringLiteral("version"));
    if (!expected.presetHash.isEmpty() && file.metadata.value(QStringLiteral("preset_hash")) != expected.presetHash)
        return Error::inFile(path, QStringLiteral("the checkpoint belongs to a different preset"), QStringLiteral("preset_hash"));
    if (expected.runId >= 0 && file.metadata.value(QStringLiteral("run")) != QString::number(expected.runId))
        return Error::inFile(path, QStringLiteral("the checkpoint belongs to another run (%1, not %2)")
                                       .arg(file.metadata.value(QStringLiteral("run")).left(20), QString::number(expected.runId)), QStringLiteral("run"));
    try {
        Result<TrainingPosition> position = readPosition(file, expected, path);
        if (!position)
            return position.error();

        // Every tensor of the model, with its shape and dtype, finite; nothing unknown.
        const auto ownTensors = modelTensors(model);
        Result<std::vector<torch::Tensor>> checked = checkModelTensors(file, ownTensors, path);
        if (!checked)
            return checked.error();
        const std::vector<torch::Tensor> &weights = checked.value();
        QSet<QString> known{kPermutation, kRngCpu};
        for (const auto &named : ownTensors)
            known.insert(named.first);
        std::map<QString, torch::Tensor> state;
        for (const NamedTensor &t : file.tensors) {
            if (t.name.startsWith(optimizerStatePrefix()))
                state[t.name] = fromNamedTensor(t);
            else if (!known.contains(t.name))
                return Error::inFile(path, QStringLiteral("tensor \"%1\" is not part of this model").arg(t.name), t.name);
        }
        if (const Status ok = restoreOptimizerState(optimizer, model, state, /*apply=*/false); !ok)
            return Error::inFile(path, ok.error().message, ok.error().field);
        // The writer counted the optimizer's tensors: a checkpoint stripped of some (or all: a run would go on with
        // fresh moments instead of continuing) is refused. An empty state can be right (a reset at a stage's start,
        // loss-scaled steps all skipped), so the count decides, not the emptiness. Older checkpoints have no count.
        if (file.metadata.contains(kOptimizerTensors)) {
            bool counted = false;
            const qint64 written = file.metadata.value(kOptimizerTensors).toLongLong(&counted);
            if (!counted || written != qint64(state.size()))
                return Error::inFile(path, QStringLiteral("the checkpoint holds %1 optimizer state tensors; its writer recorded %2: "
                                                          "resuming from it would not continue the run")
                                               .arg(state.size()).arg(file.metadata.value(kOptimizerTensors).left(20)),
                                     optimizerStatePrefix());
        }
        at::Generator generator = at::detail::getDefaultCPUGenerator();
        const NamedTensor *rng = file.find(kRngCpu);
        const torch::Tensor currentRng = generator.get_state();
        if (!rng || rng->dtype != TensorDType::U8 || rng->shape != QList<qint64>{currentRng.numel()})
            return Error::inFile(path, QStringLiteral("the random number generator state is missing or malformed"), kRngCpu);
        const torch::Tensor rngState = fromNamedTensor(*rng);

        // Everything checked: now change the model, the optimizer and the generator.
        {
            torch::NoGradGuard noGrad;
            for (size_t i = 0; i < ownTensors.size(); ++i)
                ownTensors[i].second.copy_(weights[i]);
        }
        restoreOptimizerState(optimizer, model, state, /*apply=*/true);
        std::lock_guard<std::mutex> lock(generator.mutex());
        generator.set_state(rngState);
        return position;
    } catch (const std::exception &e) {
        return Error::inFile(path, QStringLiteral("unreadable checkpoint: %1").arg(QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0)));
    }
}

Result<int64_t> checkpointStage(const QString &path, int64_t stageCount)
{
    if (std::optional<Error> refused = refuseLibTorchArchive(path))
        return *refused;
    Result<TensorFile> read = readSafetensors(path);
    if (!read)
        return Error::inFile(path, QStringLiteral("unreadable checkpoint (truncated or foreign): %1").arg(read.error().message), read.error().field);
    return readCheckpointStage(read.value(), stageCount, path);
}

Status loadModelWeights(const QString &path, torch::nn::Module &model, const QString &presetHash)
{
    if (std::optional<Error> refused = refuseLibTorchArchive(path))
        return *refused;
    Result<TensorFile> read = readSafetensors(path);
    if (!read)
        return Error::inFile(path, QStringLiteral("unreadable weights file (truncated or foreign): %1").arg(read.error().message), read.error().field);
    const TensorFile &file = read.value();
    const QString format = file.metadata.value(QStringLiteral("format"));
    if (format != kFormatName && format != QLatin1String(kWeightsFormatName))
        return Error::inFile(path, QStringLiteral("not a Trainyard checkpoint or weights file"), QStringLiteral("format"));
    if (!presetHash.isEmpty() && file.metadata.value(QStringLiteral("preset_hash")) != presetHash)
        return Error::inFile(path, QStringLiteral("the weights belong to a different preset"), QStringLiteral("preset_hash"));
    try {
        const auto ownTensors = modelTensors(model);
        Result<std::vector<torch::Tensor>> checked = checkModelTensors(file, ownTensors, path);
        if (!checked)
            return checked.error();
        QSet<QString> known;
        for (const auto &named : ownTensors)
            known.insert(named.first);
        for (const NamedTensor &t : file.tensors)
            if (!known.contains(t.name) && !t.name.startsWith(optimizerStatePrefix()) && !t.name.startsWith(QStringLiteral("trainyard/")))
                return Error::inFile(path, QStringLiteral("tensor \"%1\" is not part of this model").arg(t.name), t.name);
        torch::NoGradGuard noGrad;
        for (size_t i = 0; i < ownTensors.size(); ++i)
            ownTensors[i].second.copy_(checked.value()[i]);
        return Status::success();
    } catch (const std::exception &e) {
        return Error::inFile(path, QStringLiteral("unreadable weights: %1").arg(QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0)));
    }
}

} // namespace ty::detail
