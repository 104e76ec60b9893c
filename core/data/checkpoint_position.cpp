#include "checkpoint_position.h"

#include <QtEndian>

#include <algorithm>
#include <cmath>
#include <optional>

namespace ty {

namespace {

const QString kPermutation = QStringLiteral("trainyard/permutation");

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

bool isStaged(const TensorFile &file)
{
    return file.metadata.value(QStringLiteral("version")) != QStringLiteral("2");
}

// The data order, when the file holds one: a permutation of 0..trainSamples-1 as int64.
Status readPermutation(const TensorFile &file, int64_t trainSamples, const QString &path, std::vector<int64_t> *order)
{
    const NamedTensor *permutation = file.find(kPermutation);
    if (!permutation || permutation->elementCount() == 0)
        return Status::success();
    if (permutation->dtype != TensorDType::I64 || permutation->shape != QList<qint64>{trainSamples})
        return Error::inFile(path, QStringLiteral("the data order is %1 %2, not a permutation of the %3 training samples")
                                       .arg(tensorDTypeName(permutation->dtype), permutation->shapeText()).arg(trainSamples), kPermutation);
    std::vector<bool> seen(size_t(trainSamples), false);
    order->resize(size_t(trainSamples));
    const uchar *bytes = reinterpret_cast<const uchar *>(permutation->data.constData());
    for (int64_t i = 0; i < trainSamples; ++i) {
        const qint64 index = qFromLittleEndian<qint64>(bytes + i * 8);
        if (index < 0 || index >= trainSamples || seen[size_t(index)]) {
            order->clear();
            return Error::inFile(path, QStringLiteral("the data order is not a permutation of the %1 training samples").arg(trainSamples), kPermutation);
        }
        seen[size_t(index)] = true;
        (*order)[size_t(i)] = index;
    }
    return Status::success();
}

} // namespace

Result<int64_t> readCheckpointStage(const TensorFile &file, int64_t stageCount, const QString &path)
{
    if (!isStaged(file))
        return int64_t(0);
    MetadataReader meta(file.metadata, path);
    const int64_t stage = meta.integer(QStringLiteral("stage"), 0, std::max<int64_t>(0, stageCount - 1));
    if (meta.error())
        return *meta.error();
    return stage;
}

Result<CheckpointPosition> readCheckpointPosition(const TensorFile &file, const std::vector<CheckpointStageLength> &stages,
                                                  int64_t trainSamples, const QString &path)
{
    MetadataReader meta(file.metadata, path);
    const bool staged = isStaged(file);
    const int64_t stageCount = int64_t(stages.size());
    CheckpointPosition position;
    int64_t epochsBefore = 0, stepsBefore = 0;  // of the stages before the checkpoint's
    if (staged) {
        position.stage = meta.integer(QStringLiteral("stage"), 0, std::max<int64_t>(0, stageCount - 1));
        for (int64_t i = 0; i < position.stage; ++i) {
            epochsBefore += stages[size_t(i)].epochs;
            stepsBefore += stages[size_t(i)].epochs * stages[size_t(i)].stepsPerEpoch;
        }
        // A stage begins after at least one epoch of each earlier stage, and early stopping may end one sooner.
        position.stageStartEpoch = meta.integer(QStringLiteral("stage_start_epoch"), position.stage, epochsBefore);
        position.stageStartStep = meta.integer(QStringLiteral("stage_start_step"), 0, stepsBefore);
    }
    const CheckpointStageLength stage = stageCount > 0 ? stages[size_t(position.stage)] : CheckpointStageLength{};
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
        CheckpointPlateau &plateau = position.plateau;
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
    if (Status order = readPermutation(file, trainSamples, path, &position.permutation); !order)
        return order.error();
    if (position.batchInEpoch > 0 && position.permutation.empty())
        return Error::inFile(path, QStringLiteral("the checkpoint is within an epoch but holds no data order"), kPermutation);
    return position;
}

} // namespace ty
