#include "detail/checkpoint.h"

#include <ATen/CPUGeneratorImpl.h>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

namespace ty::detail {

namespace {

Error checkpointError(const QString &path, const QString &message)
{
    Error e;
    e.file = path;
    e.message = message;
    return e;
}

torch::Tensor scalar(int64_t v) { return torch::tensor(v, torch::kLong); }

} // namespace

Status saveCheckpoint(const QString &path, torch::nn::Module &model, torch::optim::Optimizer &optimizer,
                      const TrainingPosition &position, const QString &presetHash)
{
    // Serialised into memory first: LibTorch's file writer throws again from its destructor when a write
    // fails (a full disk), which would end the process. The file is then written with Qt, checked, and
    // renamed into place (QSaveFile: temporary file, then rename).
    QByteArray bytes;
    try {
        torch::serialize::OutputArchive archive;
        archive.write("trainyard/format", scalar(kCheckpointFormat));
        archive.write("trainyard/preset_hash", c10::IValue(presetHash.toStdString()));
        archive.write("position/step", scalar(position.step));
        archive.write("position/epoch", scalar(position.epoch));
        archive.write("position/batch", scalar(position.batchInEpoch));
        archive.write("position/permutation", position.permutation.defined() ? position.permutation.cpu() : torch::empty({0}, torch::kLong));
        archive.write("early/best", torch::tensor(position.bestMetric, torch::kDouble));
        archive.write("early/bad_epochs", scalar(position.badEpochs));
        archive.write("early/has_best", scalar(position.hasBest ? 1 : 0));
        archive.write("position/elapsed", torch::tensor(position.elapsedSeconds, torch::kDouble));
        archive.write("rng/cpu", at::detail::getDefaultCPUGenerator().get_state());
        torch::serialize::OutputArchive modelArchive, optimizerArchive;
        model.save(modelArchive);
        optimizer.save(optimizerArchive);
        archive.write("model", modelArchive);
        archive.write("optimizer", optimizerArchive);
        archive.save_to([&bytes](const void *data, size_t size) -> size_t {
            bytes.append(static_cast<const char *>(data), qsizetype(size));
            return size;
        });
    } catch (const std::exception &e) {
        return checkpointError(path, QStringLiteral("cannot serialise checkpoint: %1").arg(QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0)));
    }
    QDir().mkpath(QFileInfo(path).absolutePath());
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return checkpointError(path, QStringLiteral("cannot write checkpoint: %1").arg(file.errorString()));
    const qint64 written = file.write(bytes);
    if (written != bytes.size() || !file.commit()) {
        file.cancelWriting();
        return checkpointError(path, QStringLiteral("cannot write checkpoint: wrote %1 of %2 bytes (is the disk full?)")
                                         .arg(std::max<qint64>(0, written)).arg(bytes.size()));
    }
    return Status::success();
}

Result<TrainingPosition> loadCheckpoint(const QString &path, torch::nn::Module &model,
                                        torch::optim::Optimizer &optimizer, const QString &presetHash)
{
    if (!QFileInfo::exists(path))
        return checkpointError(path, QStringLiteral("checkpoint not found"));
    try {
        torch::serialize::InputArchive archive;
        archive.load_from(path.toStdString());
        torch::Tensor format;
        if (!archive.try_read("trainyard/format", format))
            return checkpointError(path, QStringLiteral("not a Trainyard checkpoint"));
        if (format.item<int64_t>() != kCheckpointFormat)
            return checkpointError(path, QStringLiteral("checkpoint format %1 is not supported (expected %2)")
                                             .arg(format.item<int64_t>()).arg(kCheckpointFormat));
        c10::IValue hash;
        archive.read("trainyard/preset_hash", hash);
        if (!presetHash.isEmpty() && QString::fromStdString(hash.toStringRef()) != presetHash)
            return checkpointError(path, QStringLiteral("the checkpoint belongs to a different preset"));
        // A fresh tensor per key: reading into a defined tensor would reuse its dtype.
        auto readScalar = [&archive](const char *key) {
            torch::Tensor t;
            archive.read(key, t);
            return t;
        };
        TrainingPosition position;
        position.step = readScalar("position/step").item<int64_t>();
        position.epoch = readScalar("position/epoch").item<int64_t>();
        position.batchInEpoch = readScalar("position/batch").item<int64_t>();
        position.permutation = readScalar("position/permutation");
        if (position.permutation.numel() == 0)
            position.permutation = torch::Tensor();
        position.bestMetric = readScalar("early/best").item<double>();
        position.badEpochs = readScalar("early/bad_epochs").item<int64_t>();
        position.hasBest = readScalar("early/has_best").item<int64_t>() != 0;
        position.elapsedSeconds = readScalar("position/elapsed").item<double>();
        torch::Tensor rng;
        archive.read("rng/cpu", rng);
        torch::serialize::InputArchive modelArchive, optimizerArchive;
        archive.read("model", modelArchive);
        archive.read("optimizer", optimizerArchive);
        model.load(modelArchive);
        optimizer.load(optimizerArchive);
        at::Generator generator = at::detail::getDefaultCPUGenerator();
        std::lock_guard<std::mutex> lock(generator.mutex());
        generator.set_state(rng);
        return position;
    } catch (const std::exception &e) {
        return checkpointError(path, QStringLiteral("unreadable checkpoint (truncated or foreign): %1")
                                         .arg(QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0)));
    }
}

} // namespace ty::detail
