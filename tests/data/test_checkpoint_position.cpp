// A checkpoint's position read without LibTorch (checkpoint_position.h): a consistent position is read with every
// field, and each inconsistency is refused naming its key: a step that is not its epoch and batch, a data order
// that repeats a sample, a position inside an epoch without a data order, a stage out of range, a non-finite clock.

#include "test_datasets.h"

#include "checkpoint_position.h"

#include <QTest>
#include <QtEndian>

using namespace ty;

namespace {

NamedTensor permutationOf(const std::vector<qint64> &order)
{
    NamedTensor tensor;
    tensor.name = QStringLiteral("trainyard/permutation");
    tensor.dtype = TensorDType::I64;
    tensor.shape = {qint64(order.size())};
    tensor.data.resize(qsizetype(order.size() * 8));
    for (size_t i = 0; i < order.size(); ++i)
        qToLittleEndian<qint64>(order[i], tensor.data.data() + i * 8);
    return tensor;
}

TensorFile midEpochCheckpoint()
{
    TensorFile file;
    std::vector<qint64> order;
    for (qint64 i = 0; i < 6; ++i)
        order.push_back((i * 5) % 6);
    file.tensors.append(permutationOf(order));
    file.metadata = {{QStringLiteral("version"), QStringLiteral("3")}, {QStringLiteral("stage"), QStringLiteral("1")},
                     {QStringLiteral("stage_start_epoch"), QStringLiteral("2")}, {QStringLiteral("stage_start_step"), QStringLiteral("10")},
                     {QStringLiteral("epoch"), QStringLiteral("3")}, {QStringLiteral("batch"), QStringLiteral("4")},
                     {QStringLiteral("step"), QStringLiteral("21")}, {QStringLiteral("bad_epochs"), QStringLiteral("1")},
                     {QStringLiteral("has_best"), QStringLiteral("1")}, {QStringLiteral("best_metric"), QStringLiteral("0.25")},
                     {QStringLiteral("stop_has_best"), QStringLiteral("0")}, {QStringLiteral("stop_best_metric"), QStringLiteral("0")},
                     {QStringLiteral("elapsed_seconds"), QStringLiteral("12.5")}, {QStringLiteral("loss_scale"), QStringLiteral("1024")},
                     {QStringLiteral("loss_scale_growth"), QStringLiteral("7")}};
    return file;
}

const std::vector<CheckpointStageLength> kTwoStages{{2, 5}, {4, 7}};

} // namespace

void TestDatasets::checkpointPositionIsReadWithoutLibTorch()
{
    const Result<CheckpointPosition> read = readCheckpointPosition(midEpochCheckpoint(), kTwoStages, 6, QStringLiteral("c.safetensors"));
    QVERIFY2(read.ok(), read.ok() ? "" : qPrintable(read.error().toString()));
    const CheckpointPosition &p = read.value();
    QCOMPARE(p.stage, int64_t(1));
    QCOMPARE(p.step, int64_t(21));
    QCOMPARE(p.epoch, int64_t(3));
    QCOMPARE(p.batchInEpoch, int64_t(4));
    QCOMPARE(p.elapsedSeconds, 12.5);
    QCOMPARE(p.lossScale, 1024.0);
    QCOMPARE(p.lossScaleGrowth, int64_t(7));
    QVERIFY(p.hasBest && !p.stopHasBest);
    QCOMPARE(p.permutation, (std::vector<int64_t>{0, 5, 4, 3, 2, 1}));
    QCOMPARE(readCheckpointStage(midEpochCheckpoint(), 2, QStringLiteral("c.safetensors")).value(), int64_t(1));
}

void TestDatasets::checkpointPositionRefusesInconsistencies_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("field");
    QTest::newRow("step not its epoch and batch") << "step" << "22" << "step";
    QTest::newRow("stage out of range") << "stage" << "2" << "stage";
    QTest::newRow("non-finite clock") << "elapsed_seconds" << "nan" << "elapsed_seconds";
    QTest::newRow("negative clock") << "elapsed_seconds" << "-1" << "elapsed_seconds";
    QTest::newRow("batch past the epoch") << "batch" << "7" << "batch";
    QTest::newRow("zero loss scale") << "loss_scale" << "0" << "loss_scale";
    QTest::newRow("a repeated sample") << "" << "" << "trainyard/permutation";
    QTest::newRow("inside an epoch without a data order") << "-" << "" << "trainyard/permutation";
}

void TestDatasets::checkpointPositionRefusesInconsistencies()
{
    QFETCH(QString, key);
    QFETCH(QString, value);
    QFETCH(QString, field);
    TensorFile file = midEpochCheckpoint();
    if (key.isEmpty())
        file.tensors[0] = permutationOf({0, 1, 2, 3, 4, 4});
    else if (key == QStringLiteral("-"))
        file.tensors.clear();
    else
        file.metadata.insert(key, value);
    const Result<CheckpointPosition> read = readCheckpointPosition(file, kTwoStages, 6, QStringLiteral("c.safetensors"));
    QVERIFY(!read.ok());
    QCOMPARE(read.error().field, field);
    QCOMPARE(read.error().file, QStringLiteral("c.safetensors"));
}
