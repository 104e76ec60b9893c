// Checkpoints: a save and load restores weights, optimizer state and position; bad files are refused with a
// clear message, never a crash.

#include "detail/checkpoint.h"
#include "detail/compiled_pipeline.h"
#include "detail/optimization.h"
#include "engine_fixtures.h"
#include "test_engine_classes.h"
#include "trainer.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

using namespace ty;

namespace {

struct Model {
    ty::detail::CompiledPipeline pipeline;
    std::unique_ptr<torch::optim::Optimizer> optimizer;
};

Model makeModel(uint64_t seed)
{
    torch::manual_seed(seed);
    DatasetShape shape;
    shape.sampleShape = {8};
    shape.numClasses = 4;
    Model m;
    m.pipeline = ty::detail::compilePipeline(test::classifierPreset(QStringLiteral("blobs"), QStringLiteral("optimizer.adam"), 0.01), shape);
    m.optimizer = ty::detail::makeOptimizer(QStringLiteral("optimizer.adam"), QJsonObject{{QStringLiteral("lr"), 0.01}, {QStringLiteral("beta1"), 0.9},
                                                                                    {QStringLiteral("beta2"), 0.999}, {QStringLiteral("eps"), 1e-8},
                                                                                    {QStringLiteral("weight_decay"), 0.0}},
                                        m.pipeline.model->parameters());
    return m;
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
    const QString path = dir.filePath(QStringLiteral("checkpoints/step.pt"));
    Model saved = makeModel(1);
    trainSteps(saved, 5);
    ty::detail::TrainingPosition position;
    position.step = 5;
    position.epoch = 1;
    position.batchInEpoch = 2;
    position.permutation = torch::randperm(40, torch::kLong);
    position.bestMetric = 0.25;
    position.badEpochs = 1;
    position.hasBest = true;
    QVERIFY(ty::detail::saveCheckpoint(path, *saved.pipeline.model, *saved.optimizer, position, QStringLiteral("hash")).ok());
    // Nothing but the checkpoint is left in its folder (the temporary file was renamed into place).
    QCOMPARE(QDir(QFileInfo(path).absolutePath()).entryList(QDir::Files), QStringList{QStringLiteral("step.pt")});

    Model loaded = makeModel(2);
    QVERIFY(!sameParameters(saved, loaded));
    Result<ty::detail::TrainingPosition> restored =
        ty::detail::loadCheckpoint(path, *loaded.pipeline.model, *loaded.optimizer, QStringLiteral("hash"));
    QVERIFY2(restored.ok(), qPrintable(restored.error().toString()));
    QVERIFY(sameParameters(saved, loaded));
    QCOMPARE(restored.value().step, int64_t(5));
    QCOMPARE(restored.value().epoch, int64_t(1));
    QCOMPARE(restored.value().batchInEpoch, int64_t(2));
    QVERIFY(torch::equal(restored.value().permutation, position.permutation));
    QCOMPARE(restored.value().bestMetric, 0.25);
    QCOMPARE(restored.value().badEpochs, int64_t(1));
    QVERIFY(restored.value().hasBest);

    // Continuing both gives the same weights: the optimizer's moments came back too.
    trainSteps(saved, 3);
    trainSteps(loaded, 3);
    QVERIFY(sameParameters(saved, loaded));
}

void TestCheckpoints::truncatedCheckpointIsRefused()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("step.pt"));
    Model m = makeModel(1);
    QVERIFY(ty::detail::saveCheckpoint(path, *m.pipeline.model, *m.optimizer, ty::detail::TrainingPosition{}, QString()).ok());
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadWrite));
    QVERIFY(file.resize(file.size() / 2));
    file.close();
    Result<ty::detail::TrainingPosition> result = ty::detail::loadCheckpoint(path, *m.pipeline.model, *m.optimizer, QString());
    QVERIFY(!result.ok());
    QCOMPARE(result.error().file, path);
    QVERIFY2(result.error().message.contains(QStringLiteral("unreadable checkpoint")), qPrintable(result.error().message));
}

void TestCheckpoints::foreignFileIsRefused()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("foreign.pt"));
    {
        torch::serialize::OutputArchive archive;
        archive.write("weights", torch::ones({3}));
        archive.save_to(path.toStdString());
    }
    Model m = makeModel(1);
    Result<ty::detail::TrainingPosition> result = ty::detail::loadCheckpoint(path, *m.pipeline.model, *m.optimizer, QString());
    QVERIFY(!result.ok());
    QCOMPARE(result.error().message, QStringLiteral("not a Trainyard checkpoint"));

    QFile text(dir.filePath(QStringLiteral("text.pt")));
    QVERIFY(text.open(QIODevice::WriteOnly));
    text.write("this is not a checkpoint");
    text.close();
    QVERIFY(!ty::detail::loadCheckpoint(text.fileName(), *m.pipeline.model, *m.optimizer, QString()).ok());
    QVERIFY(!ty::detail::loadCheckpoint(dir.filePath(QStringLiteral("missing.pt")), *m.pipeline.model, *m.optimizer, QString()).ok());
}

void TestCheckpoints::checkpointOfAnotherPresetIsRefused()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("step.pt"));
    Model m = makeModel(1);
    QVERIFY(ty::detail::saveCheckpoint(path, *m.pipeline.model, *m.optimizer, ty::detail::TrainingPosition{}, QStringLiteral("one")).ok());
    Result<ty::detail::TrainingPosition> result = ty::detail::loadCheckpoint(path, *m.pipeline.model, *m.optimizer, QStringLiteral("two"));
    QVERIFY(!result.ok());
    QVERIFY2(result.error().message.contains(QStringLiteral("different preset")), qPrintable(result.error().message));
}

void TestCheckpoints::resumedRunEqualsUninterrupted_data()
{
    QTest::addColumn<qint64>("stopAt");
    // 34 steps per epoch: mid-epoch, right after an epoch, and in the last epoch.
    QTest::newRow("mid epoch 2") << qint64(45);
    QTest::newRow("epoch boundary") << qint64(34);
    QTest::newRow("last epoch") << qint64(80);
}

void TestCheckpoints::resumedRunEqualsUninterrupted()
{
    QFETCH(qint64, stopAt);
    // Dropout and noise make the RNG state matter; Adam makes the optimizer state matter.
    Preset preset = test::classifierPreset(QStringLiteral("blobs"), QStringLiteral("optimizer.adam"), 0.01, 3);
    preset.graph.nodes.append(Node{QStringLiteral("drop"), QStringLiteral("layer.dropout"), QJsonObject{{QStringLiteral("p"), 0.3}}, {}});
    preset.graph.edges.removeIf([](const Edge &e) { return e.from.node == QStringLiteral("act"); });
    preset.graph.edges.append(Edge{{QStringLiteral("act"), QStringLiteral("out")}, {QStringLiteral("drop"), QStringLiteral("in")}});
    preset.graph.edges.append(Edge{{QStringLiteral("drop"), QStringLiteral("out")}, {QStringLiteral("fc_out"), QStringLiteral("in")}});
    preset.graph.nodes.append(Node{QStringLiteral("schedule"), QStringLiteral("schedule.warmup_cosine"), {}, {}});
    preset.graph.edges.append(Edge{{QStringLiteral("schedule"), QStringLiteral("schedule")}, {QStringLiteral("opt"), QStringLiteral("schedule")}});
    preset.training.insert(QStringLiteral("deterministic"), true);
    preset.training.insert(QStringLiteral("log_every"), 7);

    QTemporaryDir whole, parts;
    test::RecordingObserver uninterrupted;
    QCOMPARE(int(Trainer::train(preset, TrainOptions{whole.path(), {}, {}}, uninterrupted).outcome), int(TrainOutcome::Finished));

    test::RecordingObserver first;
    first.stopAfterSteps = stopAt;
    const TrainResult stopped = Trainer::train(preset, TrainOptions{parts.path(), {}, {}}, first);
    QCOMPARE(int(stopped.outcome), int(TrainOutcome::Stopped));
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
