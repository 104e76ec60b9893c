// Checkpoints: a save and load restores weights, optimizer state and position; bad files and hostile values
// are refused with a clear message, never a crash, and a refused checkpoint changes nothing.

#include "detail/checkpoint.h"
#include "detail/compiled_pipeline.h"
#include "detail/optimization.h"
#include "engine_fixtures.h"
#include "test_engine_classes.h"
#include "safetensors_file.h"
#include "trainer.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QCryptographicHash>
#include <QTemporaryDir>
#include <QtTest>
#include <ATen/CPUGeneratorImpl.h>

#include <cmath>
#include <cstring>
#include <functional>

using namespace ty;

namespace {

struct Model {
    ty::detail::CompiledPipeline pipeline;
    std::unique_ptr<torch::optim::Optimizer> optimizer;
};

QJsonObject optimizerParams()
{
    return QJsonObject{{QStringLiteral("lr"), 0.01}, {QStringLiteral("beta1"), 0.9}, {QStringLiteral("beta2"), 0.999},
                       {QStringLiteral("eps"), 1e-8}, {QStringLiteral("weight_decay"), 0.0}, {QStringLiteral("momentum"), 0.9},
                       {QStringLiteral("alpha"), 0.99}, {QStringLiteral("lr_decay"), 0.0}};
}

Model makeModel(uint64_t seed, const QString &optimizer = QStringLiteral("optimizer.adam"))
{
    torch::manual_seed(seed);
    DatasetShape shape;
    shape.sampleShape = {8};
    shape.numClasses = 4;
    Model m;
    m.pipeline = ty::detail::compilePipeline(test::classifierPreset(QStringLiteral("blobs"), optimizer, 0.01), shape);
    m.optimizer = ty::detail::makeOptimizer(optimizer, optimizerParams(), m.pipeline.model->parameters());
    return m;
}

// A run of 40 training samples, 10 steps per epoch, 3 epochs.
ty::detail::CheckpointExpectations expectations(const QString &hash = QString(), int64_t runId = -1)
{
    return ty::detail::CheckpointExpectations{hash, 40, {{3, 10}}, runId};
}

ty::detail::TrainingPosition midEpochPosition()
{
    ty::detail::TrainingPosition position;
    position.step = 12;
    position.epoch = 1;
    position.batchInEpoch = 2;
    position.permutation = torch::randperm(40, torch::kLong);
    position.bestMetric = 0.25;
    position.badEpochs = 1;
    position.hasBest = true;
    position.elapsedSeconds = 3.5;
    return position;
}

// A few Adam steps so the optimizer has state worth saving.
void trainSteps(Model &m, int steps)
{
    torch::manual_seed(3);
    for (int i = 0; i < steps; ++i) {
        const torch::Tensor x = torch::randn({16, 8});
        const torch::Tensor y = torch::randint(0, 4, {16}, torch::kLong);
        const torch::Tensor loss = torch::nn::functional::cross_entropy(
            m.pipeline.model->forward(x, m.pipeline.model->slotOf(QStringLiteral("fc_out"))), y);
        m.pipeline.model->zero_grad(true);
        loss.backward();
        m.optimizer->step();
    }
}

bool sameParameters(Model &a, Model &b)
{
    const auto pa = a.pipeline.model->parameters(), pb = b.pipeline.model->parameters();
    if (pa.size() != pb.size())
        return false;
    for (size_t i = 0; i < pa.size(); ++i)
        if (!torch::equal(pa[i], pb[i]))
            return false;
    return true;
}

} // namespace

void TestCheckpoints::roundTripRestoresWeightsOptimizerAndPosition()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("checkpoints/step.safetensors"));
    Model saved = makeModel(1);
    trainSteps(saved, 5);
    ty::detail::TrainingPosition position = midEpochPosition();
    position.lossScale = 1024;  // as a run with mixed precision on CUDA keeps it
    position.lossScaleGrowth = 17;
    const Result<QString> sha256 = ty::detail::saveCheckpoint(path, *saved.pipeline.model, *saved.optimizer, position, QStringLiteral("hash"));
    QVERIFY2(sha256.ok(), qPrintable(sha256.error().toString()));
    QCOMPARE(sha256.value().size(), 64);
    QFile written(path);
    QVERIFY(written.open(QIODevice::ReadOnly));
    QCOMPARE(sha256.value(), QString::fromLatin1(QCryptographicHash::hash(written.readAll(), QCryptographicHash::Sha256).toHex()));
    // Nothing but the checkpoint is left in its folder (the temporary file was renamed into place).
    QCOMPARE(QDir(QFileInfo(path).absolutePath()).entryList(QDir::Files), QStringList{QStringLiteral("step.safetensors")});

    Model loaded = makeModel(2);
    QVERIFY(!sameParameters(saved, loaded));
    Result<ty::detail::TrainingPosition> restored =
        ty::detail::loadCheckpoint(path, *loaded.pipeline.model, *loaded.optimizer, expectations(QStringLiteral("hash")));
    QVERIFY2(restored.ok(), qPrintable(restored.error().toString()));
    QVERIFY(sameParameters(saved, loaded));
    QCOMPARE(restored.value().step, int64_t(12));
    QCOMPARE(restored.value().elapsedSeconds, 3.5);
    QCOMPARE(restored.value().epoch, int64_t(1));
    QCOMPARE(restored.value().batchInEpoch, int64_t(2));
    QVERIFY(torch::equal(restored.value().permutation, position.permutation));
    QCOMPARE(restored.value().bestMetric, 0.25);
    QCOMPARE(restored.value().badEpochs, int64_t(1));
    QVERIFY(restored.value().hasBest);
    QCOMPARE(restored.value().lossScale, 1024.0);
    QCOMPARE(restored.value().lossScaleGrowth, int64_t(17));

    // Continuing both gives the same weights: the optimizer's moments came back too.
    trainSteps(saved, 3);
    trainSteps(loaded, 3);
    QVERIFY(sameParameters(saved, loaded));
}

void TestCheckpoints::truncatedCheckpointIsRefused()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("step.safetensors"));
    Model m = makeModel(1);
    QVERIFY(ty::detail::saveCheckpoint(path, *m.pipeline.model, *m.optimizer, ty::detail::TrainingPosition{}, QString()).ok());
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadWrite));
    QVERIFY(file.resize(file.size() / 2));
    file.close();
    Result<ty::detail::TrainingPosition> result = ty::detail::loadCheckpoint(path, *m.pipeline.model, *m.optimizer, expectations());
    QVERIFY(!result.ok());
    QCOMPARE(result.error().file, path);
    QVERIFY2(result.error().message.contains(QStringLiteral("unreadable checkpoint")), qPrintable(result.error().message));
}

void TestCheckpoints::foreignFileIsRefused()
{
    QTemporaryDir dir;
    Model m = makeModel(1);
    // A LibTorch archive (the old format, which can carry code) is refused without being opened by LibTorch.
    const QString archivePath = dir.filePath(QStringLiteral("old.pt"));
    {
        torch::serialize::OutputArchive archive;
        archive.write("weights", torch::ones({3}));
        archive.save_to(archivePath.toStdString());
    }
    Result<ty::detail::TrainingPosition> result = ty::detail::loadCheckpoint(archivePath, *m.pipeline.model, *m.optimizer, expectations());
    QVERIFY(!result.ok());
    QVERIFY2(result.error().message.contains(QStringLiteral("LibTorch archive")), qPrintable(result.error().message));

    // A safetensors file that is not ours.
    const QString foreign = dir.filePath(QStringLiteral("foreign.safetensors"));
    TensorFile weights;
    weights.tensors.append(NamedTensor{QStringLiteral("w"), TensorDType::F32, {2}, QByteArray(8, '\0')});
    QVERIFY(writeFileAtomically(foreign, encodeSafetensors(weights)).ok());
    result = ty::detail::loadCheckpoint(foreign, *m.pipeline.model, *m.optimizer, expectations());
    QVERIFY(!result.ok());
    QCOMPARE(result.error().message, QStringLiteral("not a Trainyard checkpoint"));

    QFile text(dir.filePath(QStringLiteral("text.safetensors")));
    QVERIFY(text.open(QIODevice::WriteOnly));
    text.write("this is not a checkpoint");
    text.close();
    QVERIFY(!ty::detail::loadCheckpoint(text.fileName(), *m.pipeline.model, *m.optimizer, expectations()).ok());
    QVERIFY(!ty::detail::loadCheckpoint(dir.filePath(QStringLiteral("missing.safetensors")), *m.pipeline.model, *m.optimizer, expectations()).ok());
    // A folder or a FIFO is not read.
    QVERIFY(!ty::detail::loadCheckpoint(dir.path(), *m.pipeline.model, *m.optimizer, expectations()).ok());
}

void TestCheckpoints::checkpointOfAnotherPresetIsRefused()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("step.safetensors"));
    Model m = makeModel(1);
    QVERIFY(ty::detail::saveCheckpoint(path, *m.pipeline.model, *m.optimizer, ty::detail::TrainingPosition{}, QStringLiteral("one")).ok());
    Result<ty::detail::TrainingPosition> result = ty::detail::loadCheckpoint(path, *m.pipeline.model, *m.optimizer, expectations(QStringLiteral("two")));
    QVERIFY(!result.ok());
    QVERIFY2(result.error().message.contains(QStringLiteral("different preset")), qPrintable(result.error().message));
}

// Any safetensors reader can open a checkpoint: the weights under their node names, the optimizer's state
// beside them, the position as metadata strings.
void TestCheckpoints::checkpointIsPlainSafetensors()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("step.safetensors"));
    Model m = makeModel(1);
    trainSteps(m, 2);
    QVERIFY(ty::detail::saveCheckpoint(path, *m.pipeline.model, *m.optimizer, midEpochPosition(), QStringLiteral("h")).ok());
    const Result<TensorFile> file = readSafetensors(path);
    QVERIFY2(file.ok(), qPrintable(file.error().toString()));
    const NamedTensor *weight = file.value().find(QStringLiteral("fc1.weight"));
    QVERIFY(weight);
    QCOMPARE(weight->dtype, TensorDType::F32);
    const torch::Tensor actual = m.pipeline.model->named_parameters()["fc1.weight"];
    QCOMPARE(weight->shapeText(), QStringLiteral("[%1, %2]").arg(actual.size(0)).arg(actual.size(1)));
    QCOMPARE(std::memcmp(weight->data.constData(), actual.contiguous().data_ptr(), size_t(weight->data.size())), 0);
    QVERIFY(file.value().find(QStringLiteral("optimizer/fc1.weight/exp_avg")));
    QVERIFY(file.value().find(QStringLiteral("optimizer/fc1.weight/step")));
    QCOMPARE(file.value().metadata.value(QStringLiteral("format")), QStringLiteral("trainyard-checkpoint"));
    QCOMPARE(file.value().metadata.value(QStringLiteral("step")), QStringLiteral("12"));
}

using Mutation = std::function<void(TensorFile &)>;
Q_DECLARE_METATYPE(Mutation)

namespace {

NamedTensor *tensorNamed(TensorFile &file, const QString &name)
{
    for (NamedTensor &t : file.tensors)
        if (t.name == name)
            return &t;
    return nullptr;
}

void setFloat(TensorFile &file, const QString &name, int index, float value)
{
    std::memcpy(tensorNamed(file, name)->data.data() + index * 4, &value, 4);
}

} // namespace

void TestCheckpoints::hostileValuesAreRefusedChangingNothing_data()
{
    QTest::addColumn<Mutation>("mutate");
    QTest::addColumn<QString>("expected");  // part of the message
    auto meta = [](const char *key, const char *value) {
        return Mutation([=](TensorFile &f) { f.metadata[QString::fromLatin1(key)] = QString::fromLatin1(value); });
    };
    QTest::newRow("step beyond the run") << meta("step", "999999") << "step";
    QTest::newRow("step not at the position") << meta("step", "13") << "is not batch 2 of epoch 1";
    QTest::newRow("epoch beyond the run") << meta("epoch", "7") << "\"epoch\" must be an integer from 0 to 3";
    QTest::newRow("batch beyond the epoch") << meta("batch", "10") << "\"batch\" must be an integer from 0 to 9";
    QTest::newRow("negative batch") << meta("batch", "-1") << "\"batch\"";
    QTest::newRow("step not a number") << meta("step", "12; rm -rf ~") << "\"step\" must be an integer";
    QTest::newRow("NaN best metric") << meta("best_metric", "nan") << "\"best_metric\" must be a finite number";
    QTest::newRow("other format version") << meta("version", "1") << "checkpoint format 1 is not supported";
    QTest::newRow("another run's") << meta("run", "4") << "the checkpoint belongs to another run (4, not 3)";
    QTest::newRow("negative loss scale") << meta("loss_scale", "-3") << "\"loss_scale\" must be above 0";
    QTest::newRow("infinite loss scale") << meta("loss_scale", "inf") << "\"loss_scale\" must be a finite number";
    QTest::newRow("loss scale without its count") << meta("loss_scale", "1024") << "\"loss_scale_growth\" must be an integer";
    QTest::newRow("permutation with a repeat") << Mutation([](TensorFile &f) {
        NamedTensor *p = tensorNamed(f, QStringLiteral("trainyard/permutation"));
        std::memcpy(p->data.data(), p->data.constData() + 8, 8);
    }) << "not a permutation of the 40 training samples";
    QTest::newRow("permutation out of range") << Mutation([](TensorFile &f) {
        const qint64 big = 1000000;
        std::memcpy(tensorNamed(f, QStringLiteral("trainyard/permutation"))->data.data(), &big, 8);
    }) << "not a permutation";
    QTest::newRow("permutation of another size") << Mutation([](TensorFile &f) {
        NamedTensor *p = tensorNamed(f, QStringLiteral("trainyard/permutation"));
        p->shape = {39};
        p->data.chop(8);
    }) << "not a permutation of the 40 training samples";
    QTest::newRow("no permutation within an epoch") << Mutation([](TensorFile &f) {
        f.tensors.removeIf([](const NamedTensor &t) { return t.name == QStringLiteral("trainyard/permutation"); });
    }) << "holds no data order";
    QTest::newRow("weight of another shape") << Mutation([](TensorFile &f) {
        NamedTensor *w = tensorNamed(f, QStringLiteral("fc1.bias"));
        w->shape = {w->shape.at(0) - 1};
        w->data.chop(4);
    }) << "tensor \"fc1.bias\" is F32";
    QTest::newRow("weight of another dtype") << Mutation([](TensorFile &f) {
        NamedTensor *w = tensorNamed(f, QStringLiteral("fc1.bias"));
        w->dtype = TensorDType::I32;
    }) << "tensor \"fc1.bias\" is I32";
    QTest::newRow("missing weight") << Mutation([](TensorFile &f) {
        f.tensors.removeIf([](const NamedTensor &t) { return t.name == QStringLiteral("fc_out.weight"); });
    }) << "has no tensor \"fc_out.weight\"";
    QTest::newRow("NaN weight") << Mutation([](TensorFile &f) { setFloat(f, QStringLiteral("fc1.weight"), 3, std::nanf("")); })
                                << "\"fc1.weight\" holds NaN";
    QTest::newRow("unknown tensor") << Mutation([](TensorFile &f) {
        f.tensors.append(NamedTensor{QStringLiteral("payload"), TensorDType::U8, {4}, QByteArray("evil", 4)});
    }) << "\"payload\" is not part of this model";
    QTest::newRow("optimizer state of no parameter") << Mutation([](TensorFile &f) {
        f.tensors.append(NamedTensor{QStringLiteral("optimizer/nope.weight/exp_avg"), TensorDType::F32, {1}, QByteArray(4, '\0')});
    }) << "names no parameter of this model";
    QTest::newRow("optimizer field unknown") << Mutation([](TensorFile &f) {
        NamedTensor t = *tensorNamed(f, QStringLiteral("optimizer/fc1.bias/exp_avg"));
        t.name = QStringLiteral("optimizer/fc1.bias/momentum_buffer");
        f.tensors.append(t);
    }) << "is not part of this optimizer's state";
    QTest::newRow("optimizer state of another shape") << Mutation([](TensorFile &f) {
        NamedTensor *t = tensorNamed(f, QStringLiteral("optimizer/fc1.bias/exp_avg"));
        t->shape = {1};
        t->data.truncate(4);
    }) << "does not match the parameter's";
    QTest::newRow("negative optimizer step") << Mutation([](TensorFile &f) {
        const qint64 minusOne = -1;
        std::memcpy(tensorNamed(f, QStringLiteral("optimizer/fc1.bias/step"))->data.data(), &minusOne, 8);
    }) << "a step must be one integer >= 0";
    // Forged together with their recorded sha256, they would pass every check of the file as a whole.
    QTest::newRow("no optimizer state") << Mutation([](TensorFile &f) {
        f.tensors.removeIf([](const NamedTensor &t) { return t.name.startsWith(QStringLiteral("optimizer/")); });
    }) << "holds 0 optimizer state tensors; its writer recorded";
    QTest::newRow("optimizer state missing a field") << Mutation([](TensorFile &f) {
        f.tensors.removeIf([](const NamedTensor &t) { return t.name == QStringLiteral("optimizer/fc1.bias/exp_avg_sq"); });
    }) << "\"optimizer/fc1.bias/exp_avg_sq\": missing";
    QTest::newRow("negative second moment") << Mutation([](TensorFile &f) { setFloat(f, QStringLiteral("optimizer/fc1.weight/exp_avg_sq"), 2, -0.5f); })
                                            << "holds negative values, which exp_avg_sq never has";
    QTest::newRow("RNG state cut short") << Mutation([](TensorFile &f) {
        NamedTensor *t = tensorNamed(f, QStringLiteral("trainyard/rng_cpu"));
        t->shape = {16};
        t->data.truncate(16);
    }) << "random number generator state";
}

void TestCheckpoints::hostileValuesAreRefusedChangingNothing()
{
    QFETCH(Mutation, mutate);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("step.safetensors"));
    Model saved = makeModel(1);
    trainSteps(saved, 3);
    QVERIFY(ty::detail::saveCheckpoint(path, *saved.pipeline.model, *saved.optimizer, midEpochPosition(), QString(), 3).ok());
    Result<TensorFile> file = readSafetensors(path);
    QVERIFY(file.ok());
    TensorFile hostile = file.value();
    mutate(hostile);
    QVERIFY(writeFileAtomically(path, encodeSafetensors(hostile)).ok());

    Model target = makeModel(2);
    trainSteps(target, 1);
    std::vector<torch::Tensor> before;
    for (const torch::Tensor &p : target.pipeline.model->parameters())
        before.push_back(p.clone());
    const size_t stateBefore = target.optimizer->state().size();
    const torch::Tensor rngBefore = at::detail::getDefaultCPUGenerator().get_state();
    Result<ty::detail::TrainingPosition> result = ty::detail::loadCheckpoint(path, *target.pipeline.model, *target.optimizer,
                                                                             expectations(QString(), 3));
    QVERIFY(!result.ok());
    QVERIFY2(result.error().message.contains(expected), qPrintable(result.error().message));
    QCOMPARE(result.error().file, path);
    const auto after = target.pipeline.model->parameters();
    for (size_t i = 0; i < before.size(); ++i)
        QVERIFY(torch::equal(before[i], after[i]));
    QCOMPARE(target.optimizer->state().size(), stateBefore);
    QVERIFY(torch::equal(rngBefore, at::detail::getDefaultCPUGenerator().get_state()));
}

// Each optimizer's state comes back: continuing after a load matches continuing without one.
void TestCheckpoints::optimizerStateRoundTrips_data()
{
    QTest::addColumn<QString>("optimizer");
    for (const char *type : {"optimizer.sgd", "optimizer.adam", "optimizer.adamw", "optimizer.rmsprop", "optimizer.adagrad"})
        QTest::newRow(type) << QString::fromLatin1(type);
}

void TestCheckpoints::optimizerStateRoundTrips()
{
    QFETCH(QString, optimizer);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("step.safetensors"));
    Model saved = makeModel(1, optimizer);
    trainSteps(saved, 4);
    QVERIFY(ty::detail::saveCheckpoint(path, *saved.pipeline.model, *saved.optimizer, ty::detail::TrainingPosition{}, QString()).ok());
    Model loaded = makeModel(2, optimizer);
    const Result<ty::detail::TrainingPosition> restored = ty::detail::loadCheckpoint(path, *loaded.pipeline.model, *loaded.optimizer, expectations());
    QVERIFY2(restored.ok(), qPrintable(restored.error().toString()));
    QVERIFY(sameParameters(saved, loaded));
    trainSteps(saved, 3);
    trainSteps(loaded, 3);
    QVERIFY(sameParameters(saved, loaded));
}

void TestCheckpoints::resumedRunEqualsUninterrupted_data()
{
    QTest::addColumn<qint64>("stopAt");
    QTest::addColumn<bool>("exactStep");  // stop at exactly that step, else at the first read interval past it
    QTest::addColumn<QString>("schedule");
    // 34 steps per epoch, a read every 7 steps: mid-epoch, right after an epoch, in the last epoch, and in
    // the middle of read intervals (a Ctrl-C comes at any step).
    QTest::newRow("mid epoch 2") << qint64(45) << false << QStringLiteral("schedule.warmup_cosine");
    QTest::newRow("epoch boundary") << qint64(34) << false << QStringLiteral("schedule.warmup_cosine");
    QTest::newRow("last epoch") << qint64(80) << false << QStringLiteral("schedule.warmup_cosine");
    QTest::newRow("step 45, mid interval") << qint64(45) << true << QStringLiteral("schedule.warmup_cosine");
    QTest::newRow("step 10, mid interval") << qint64(10) << true << QStringLiteral("schedule.warmup_cosine");
    QTest::newRow("step 68, epoch end") << qint64(68) << true << QStringLiteral("schedule.warmup_cosine");
    // Reduce on plateau keeps state across epochs (the best loss, bad epochs, the rate's scale) that must resume.
    QTest::newRow("plateau, mid epoch 2") << qint64(45) << true << QStringLiteral("schedule.reduce_on_plateau");
    QTest::newRow("plateau, epoch 3") << qint64(75) << true << QStringLiteral("schedule.reduce_on_plateau");
}

void TestCheckpoints::resumedRunEqualsUninterrupted()
{
    QFETCH(qint64, stopAt);
    QFETCH(bool, exactStep);
    QFETCH(QString, schedule);
    // Dropout and noise make the RNG state matter; Adam makes the optimizer state matter.
    Preset preset = test::classifierPreset(QStringLiteral("blobs"), QStringLiteral("optimizer.adam"), 0.01, 3);
    preset.graph.nodes.append(Node{QStringLiteral("drop"), QStringLiteral("layer.dropout"), QJsonObject{{QStringLiteral("p"), 0.3}}, {}});
    preset.graph.edges.removeIf([](const Edge &e) { return e.from.node == QStringLiteral("act"); });
    preset.graph.edges.append(Edge{{QStringLiteral("act"), QStringLiteral("out")}, {QStringLiteral("drop"), QStringLiteral("in")}});
    preset.graph.edges.append(Edge{{QStringLiteral("drop"), QStringLiteral("out")}, {QStringLiteral("fc_out"), QStringLiteral("in")}});
    // Reduce on plateau with patience 0 and factor 0.5 cuts the rate after every epoch whose loss is not the best.
    const QJsonObject plateau{{QStringLiteral("patience"), 0}, {QStringLiteral("factor"), 0.5}, {QStringLiteral("threshold"), 1.0}};
    preset.graph.nodes.append(Node{QStringLiteral("schedule"), schedule,
                                   schedule == QStringLiteral("schedule.reduce_on_plateau") ? plateau : QJsonObject{}, {}});
    preset.graph.edges.append(Edge{{QStringLiteral("schedule"), QStringLiteral("schedule")}, {QStringLiteral("opt"), QStringLiteral("schedule")}});
    preset.training.insert(QStringLiteral("deterministic"), true);
    preset.training.insert(QStringLiteral("log_every"), 7);

    QTemporaryDir whole, parts;
    test::RecordingObserver uninterrupted;
    QCOMPARE(int(Trainer::train(preset, TrainOptions{whole.path(), {}, {}}, uninterrupted).outcome), int(TrainOutcome::Finished));

    test::RecordingObserver first;
    (exactStep ? first.stopAfterPolls : first.stopAfterSteps) = stopAt;
    const TrainResult stopped = Trainer::train(preset, TrainOptions{parts.path(), {}, {}}, first);
    QCOMPARE(int(stopped.outcome), int(TrainOutcome::Stopped));
    if (exactStep)
        QCOMPARE(stopped.steps, stopAt);
    else
        QVERIFY(stopped.steps >= stopAt);
    test::RecordingObserver second;
    const TrainResult resumed = Trainer::train(preset, TrainOptions{parts.path(), {}, stopped.finalCheckpoint}, second);
    QCOMPARE(int(resumed.outcome), int(TrainOutcome::Finished));
    QCOMPARE(second.start.resumedAtStep, stopped.steps);

    // What the database keeps (rows up to the checkpoint from the first part, the rest from the resumed part)
    // equals the uninterrupted run, value for value.
    auto rows = [](const QList<MetricSample> &samples, qint64 from, qint64 to) {
        QList<QPair<QString, double>> out;
        for (const MetricSample &s : samples)
            if (s.step > from && s.step <= to)
                out << qMakePair(s.name + QLatin1Char('@') + QString::number(s.step), s.value);
        return out;
    };
    const qint64 end = std::numeric_limits<qint64>::max();
    const auto expected = rows(uninterrupted.metrics, -1, end);
    const auto actual = rows(first.metrics, -1, stopped.steps) + rows(second.metrics, stopped.steps, end);
    QVERIFY(rows(second.metrics, stopped.steps, end).size() > 10);
    QCOMPARE(actual.size(), expected.size());
    for (int i = 0; i < expected.size(); ++i) {
        QCOMPARE(actual.at(i).first, expected.at(i).first);
        QCOMPARE(actual.at(i).second, expected.at(i).second);
    }
}
