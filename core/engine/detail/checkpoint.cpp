#include "detail/checkpoint.h"

#include "detail/optimizer_state.h"
#include "detail/tensor_codec.h"
#include "regular_file.h"
#include "safetensors_file.h"

#include <ATen/CPUGeneratorImpl.h>
#include <QCryptographicHash>
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

// The metadata values of a checkpoint, each parsed strictly; the first problem is kept.
class MetadataReader {
public:
    MetadataReader(const QMap<QString, QString> &metadata, const QString &path) : m_metadata(metadata), m_path(path) {}

    int64_t integer(const QString &key, int64_t min, int64_t max)
    {
        bool ok = false;
        const qlonglong v = m_metadata.value(key).toLongLong(&ok);
        if (!ok || v < min || v > max) {
            fail(key, QStringLiteral("\"%1\" must be an integer from %2 to %3, not \"%4\"").arg(key).arg(min).arg(max).arg(excerpt(key)));
            return min;
        }
        return v;
    }
    double finite(const QString &key)
    {
        bool ok = false;
        const double v = m_metadata.value(key).toDouble(&ok);
        if (!ok || !std::isfinite(v)) {
            fail(key, QStringLiteral("\"%1\" must be a finite number, not \"%2\"").arg(key, excerpt(key)));
            return 0;
        }
        return v;
    }
    void fail(const QString &key, const QString &message)
    {
        if (!m_error)
            m_error = Error::inFile(m_path, message, key);
    }
    const std::optional<Error> &error() const { return m_error; }

private:
    QString excerpt(const QString &key) const { return m_metadata.value(key).left(40); }
    const QMap<QString, QString> &m_metadata;
    QString m_path;
    std::optional<Error> m_error;
};

// The position in the metadata, checked against the run it is to continue.
Result<TrainingPosition> readPosition(const TensorFile &file, const CheckpointExpectations &expected, const QString &path)
{
    MetadataReader meta(file.metadata, path);
    const bool staged = file.metadata.value(QStringLiteral("version")) != QStringLiteral("2");
    const int64_t stageCount = int64_t(expected.stages.size());
    TrainingPosition position;
    int64_t epochsBefore = 0, stepsBefore = 0;  // of the stages before the checkpoint's
    if (staged) {
        position.stage = meta.integer(QStringLiteral("stage"), 0, std::max<int64_t>(0, stageCount - 1));
        for (int64_t i = 0; i < position.stage; ++i) {
            epochsBefore += expected.stages[size_t(i)].epochs;
            stepsBefore += expected.stages[size_t(i)].epochs * expected.stages[size_t(i)].stepsPerEpoch;
        }
        // A stage begins after at least one epoch of each earlier stage, and early stopping may end one sooner.
        position.stageStartEpoch = meta.integer(QStringLiteral("stage_start_epoch"), position.stage, epochsBefore);
        position.stageStartStep = meta.integer(QStringLiteral("stage_start_step"), 0, stepsBefore);
    }
    const StageLength stage = stageCount > 0 ? expected.stages[size_t(position.stage)] : StageLength{};
    position.epoch = meta.integer(QStringLiteral("epoch"), position.stageStartEpoch, position.stageStartEpoch + stage.epochs);
    position.batchInEpoch = meta.integer(QStringLiteral("batch"), 0, std::max<int64_t>(0, stage.stepsPerEpoch - 1));
    position.step = meta.integer(QStringLiteral("step"), 0, stepsBefore + stage.stepsPerEpoch * stage.epochs);
    position.badEpochs = meta.integer(QStringLiteral("bad_epochs"), 0, std::max<int64_t>(0, stage.epochs));
    position.hasBest = meta.integer(QStringLiteral("has_best"), 0, 1) == 1;
    position.bestMetric = meta.finite(QStringLiteral("best_metric"));
    if (staged) {
        position.stopHasBest = meta.integer(QStringLiteral("stop_has_best"), 0, 1) == 1;
        position.stopBestMetric = meta.finite(QStringLiteral("stop_best_metric"));
    } else {
        position.stopHasBest = position.hasBest;
        position.stopBestMetric = position.bestMetric;
    }
    // Reduce on plateau's state; checkpoints written before it existed had none, which is the state of a run
    // without that schedule.
    if (file.metadata.contains(QStringLiteral("plateau_scale"))) {
        PlateauState &plateau = position.plateau;
        plateau.scale = meta.finite(QStringLiteral("plateau_scale"));
        if (!(plateau.scale > 0 && plateau.scale <= 1))
            meta.fail(QStringLiteral("plateau_scale"), QStringLiteral("\"plateau_scale\" must be in (0, 1]"));
        plateau.hasBest = meta.integer(QStringLiteral("plateau_has_best"), 0, 1) == 1;
        plateau.best = meta.finite(QStringLiteral("plateau_best"));
        plateau.badEpochs = meta.integer(QStringLiteral("plateau_bad_epochs"), 0, std::max<int64_t>(0, stage.epochs));
        plateau.cooldown = meta.integer(QStringLiteral("plateau_cooldown"), 0, 1000000000);
    }
    if (file.metadata.contains(QStringLiteral("loss_scale"))) {
        position.lossScale = meta.finite(QStringLiteral("loss_scale"));
        if (!(position.lossScale > 0))
            meta.fail(QStringLiteral("loss_scale"), QStringLiteral("\"loss_scale\" must be above 0"));
        position.lossScaleGrowth = meta.integer(QStringLiteral("loss_scale_growth"), 0, 1000000000);
    }
    position.elapsedSeconds = meta.finite(QStringLiteral("elapsed_seconds"));
    if (position.elapsedSeconds < 0)
        meta.fail(QStringLiteral("elapsed_seconds"), QStringLiteral("\"elapsed_seconds\" is negative"));
    const int64_t expectedStep = position.stageStartStep + (position.epoch - position.stageStartEpoch) * stage.stepsPerEpoch + position.batchInEpoch;
    if (!meta.error() && position.step != expectedStep)
        meta.fail(QStringLiteral("step"), QStringLiteral("step %1 is not batch %2 of epoch %3 at %4 steps per epoch (stage %5 began at step %6, epoch %7)")
                                              .arg(position.step).arg(position.batchInEpoch).arg(position.epoch).arg(stage.stepsPerEpoch)
                                              .arg(position.stage + 1).arg(position.stageStartStep).arg(position.stageStartEpoch));
    if (meta.error())
        return *meta.error();

    const NamedTensor *permutation = file.find(kPermutation);
    if (permutation && permutation->elementCount() > 0) {
        if (permutation->dtype != TensorDType::I64 || permutation->shape != QList<qint64>{expected.trainSamples})
            return Error::inFile(path, QStringLiteral("the data order is %1 %2, not a permutation of the %3 training samples")
                                           .arg(tensorDTypeName(permutation->dtype), permutation->shapeText()).arg(expected.trainSamples), kPermutation);
        const torch::Tensor order = fromNamedTensor(*permutation);
        if (!torch::equal(std::get<0>(order.sort()), torch::arange(expected.trainSamples, torch::kLong)))
            return Error::inFile(path, QStringLiteral("the data order is not a permutation of the %1 training samples").arg(expected.trainSamples), kPermutation);
        position.permutation = order;
    }
    if (position.batchInEpoch > 0 && !position.permutation.defined())
        return Error::inFile(path, QStringLiteral("the checkpoint is within an epoch but holds no data order"), kPermutation);
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
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
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
    if (read.value().metadata.value(QStringLiteral("version")) == QStringLiteral("2"))
        return int64_t(0);
    MetadataReader meta(read.value().metadata, path);
    const int64_t stage = meta.integer(QStringLiteral("stage"), 0, std::max<int64_t>(0, stageCount - 1));
    if (meta.error())
        return *meta.error();
    return stage;
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
