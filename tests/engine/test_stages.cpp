// Training stages, frozen nodes and warm start (training.stages, training.init_from): frozen weights and
// batch-norm statistics do not move, overrides take effect at the stage's first step, resuming inside a later
// stage ends as the uninterrupted run did, and warm start copies exactly the tensors asked for.

#include "detail/checkpoint.h"
#include "detail/compiled_pipeline.h"
#include "detail/tensor_codec.h"
#include "detail/warm_start.h"
#include "engine_fixtures.h"
#include "safetensors_file.h"
#include "test_engine_classes.h"
#include "trainer.h"

#include <QDir>

#include <algorithm>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

using namespace ty;

namespace {

// The blobs classifier with a batch norm after fc1: data -> flatten -> fc1 -> bn1 -> act -> fc_out.
Preset normClassifier()
{
    Preset preset = test::classifierPreset(QStringLiteral("blobs"), QStringLiteral("optimizer.adam"), 0.01, 1);
    preset.graph.nodes.append(Node{QStringLiteral("bn1"), QStringLiteral("layer.batchnorm1d"), {}, {}});
    preset.graph.edges.removeIf([](const Edge &e) { return e.from.node == QStringLiteral("fc1"); });
    preset.graph.edges.append(Edge{{QStringLiteral("fc1"), QStringLiteral("out")}, {QStringLiteral("bn1"), QStringLiteral("in")}});
    preset.graph.edges.append(Edge{{QStringLiteral("bn1"), QStringLiteral("out")}, {QStringLiteral("act"), QStringLiteral("in")}});
    preset.training.remove(QStringLiteral("epochs"));
    return preset;
}

QJsonObject stage(const QString &name, int epochs, const QJsonObject &extra = {})
{
    QJsonObject s = extra;
    s.insert(QStringLiteral("name"), name);
    s.insert(QStringLiteral("epochs"), epochs);
    return s;
}

QJsonArray ids(std::initializer_list<const char *> list)
{
    QJsonArray out;
    for (const char *id : list)
        out.append(QString::fromLatin1(id));
    return out;
}

// The tensors of a checkpoint file by name, as raw bytes.
QMap<QString, QByteArray> tensorsOf(const QString &path)
{
    Result<TensorFile> file = readSafetensors(path);
    if (!file)
        qFatal("unreadable checkpoint %s", qPrintable(path));
    QMap<QString, QByteArray> out;
    for (const NamedTensor &t : file.value().tensors)
        out.insert(t.name, t.data);
    return out;
}

// The model's parameters and buffers by name, as raw bytes.
QMap<QString, QByteArray> tensorsOfModel(torch::nn::Module &model)
{
    QMap<QString, QByteArray> out;
    for (const auto &[name, tensor] : ty::detail::modelTensors(model)) {
        const torch::Tensor t = tensor.detach().cpu().contiguous();
        out.insert(name, QByteArray(static_cast<const char *>(t.data_ptr()), int(t.numel() * t.element_size())));
    }
    return out;
}

QString checkpointAt(const QList<CheckpointInfo> &checkpoints, qint64 step)
{
    for (const CheckpointInfo &c : checkpoints)
        if (c.step == step && !c.best)
            return c.path;
    return QString();
}

} // namespace

// Three stages: all train, then fc1 and bn1 frozen, then all again. Across the middle stage fc1's weights and
// bn1's weights and running statistics stay bit-identical while fc_out changes; in the last they move again.
void TestStages::frozenNodesKeepTheirWeightsAndStatistics()
{
    Preset preset = normClassifier();
    preset.training.insert(QStringLiteral("stages"),
                           QJsonArray{stage(QStringLiteral("warm-up"), 1),
                                      stage(QStringLiteral("head"), 2, {{QStringLiteral("freeze"), ids({"fc1", "bn1"})}}),
                                      stage(QStringLiteral("all"), 1, {{QStringLiteral("unfreeze"), ids({"fc1", "bn1"})}})});
    QTemporaryDir dir;
    test::RecordingObserver observer;
    const TrainResult result = Trainer::train(preset, TrainOptions{dir.path(), {}, {}}, observer);
    QCOMPARE(int(result.outcome), int(TrainOutcome::Finished));
    const qint64 perEpoch = observer.start.stepsPerEpoch;
    QCOMPARE(result.steps, 4 * perEpoch);
    const auto headStart = tensorsOf(checkpointAt(observer.checkpoints, perEpoch));
    const auto headMiddle = tensorsOf(checkpointAt(observer.checkpoints, 2 * perEpoch));
    const auto headEnd = tensorsOf(checkpointAt(observer.checkpoints, 3 * perEpoch));
    const auto end = tensorsOf(result.finalCheckpoint);
    for (const char *name : {"fc1.weight", "fc1.bias", "bn1.weight", "bn1.bias", "bn1.running_mean", "bn1.running_var"}) {
        QVERIFY2(headStart.value(QString::fromLatin1(name)) == headEnd.value(QString::fromLatin1(name)), name);
        QVERIFY2(headEnd.value(QString::fromLatin1(name)) != end.value(QString::fromLatin1(name)), name);
    }
    QVERIFY(headStart.value(QStringLiteral("fc_out.weight")) != headEnd.value(QStringLiteral("fc_out.weight")));
    // No optimizer state for the frozen parameters within the frozen stage (reset at its start, as its trainable
    // set changed); none at all right after the next stage began (reset again).
    QVERIFY(!headMiddle.contains(QStringLiteral("optimizer/fc1.weight/exp_avg")));
    QVERIFY(headMiddle.contains(QStringLiteral("optimizer/fc_out.weight/exp_avg")));
    QVERIFY(!headEnd.contains(QStringLiteral("optimizer/fc_out.weight/exp_avg")));
    QVERIFY(result.lastMetrics.value(QStringLiteral("test/accuracy")) > 0.5);
}

// A stage's overrides hold from its first step: the learning rate and the batch size (steps per epoch) change
// exactly at the boundary.
void TestStages::overridesApplyFromTheStagesFirstStep()
{
    Preset preset = normClassifier();
    preset.training.insert(QStringLiteral("log_every"), 1);
    preset.training.insert(QStringLiteral("stages"),
                           QJsonArray{stage(QStringLiteral("fast"), 2),
                                      stage(QStringLiteral("slow"), 1, {{QStringLiteral("set"), QJsonObject{{QStringLiteral("opt.lr"), 0.001},
                                                                                                            {QStringLiteral("training.batch_size"), 64}}}})});
    test::RecordingObserver observer;
    const TrainResult result = Trainer::train(preset, TrainOptions{}, observer);
    QCOMPARE(int(result.outcome), int(TrainOutcome::Finished));
    const qint64 train = observer.start.trainSamples;
    const qint64 boundary = 2 * ((train + 31) / 32);
    QCOMPARE(result.steps, boundary + (train + 63) / 64);
    int rows = 0;
    for (const MetricSample &s : observer.metrics)
        if (s.name == QStringLiteral("train/lr")) {
            QCOMPARE(s.value, s.step <= boundary ? 0.01 : 0.001);
            ++rows;
        }
    QCOMPARE(qint64(rows), result.steps);
}

void TestStages::resumeInsideALaterStageEqualsUninterrupted_data()
{
    QTest::addColumn<qint64>("stopAt");
    QTest::addColumn<bool>("resetOptimizer");
    QTest::newRow("mid second stage, optimizer reset") << qint64(80) << true;
    QTest::newRow("mid second stage, optimizer kept") << qint64(80) << false;
    QTest::newRow("at the stage boundary") << qint64(68) << true;
    QTest::newRow("first step of the second stage") << qint64(69) << false;
    QTest::newRow("in the first stage") << qint64(30) << true;
}

// Stage 1: 2 epochs of 34 steps with fc1 frozen; stage 2: 2 epochs at batch 64 with a schedule and dropout
// (random state matters) with everything trainable. A stop anywhere and a resume give the uninterrupted rows.
void TestStages::resumeInsideALaterStageEqualsUninterrupted()
{
    QFETCH(qint64, stopAt);
    QFETCH(bool, resetOptimizer);
    Preset preset = normClassifier();
    preset.graph.nodes.append(Node{QStringLiteral("drop"), QStringLiteral("layer.dropout"), QJsonObject{{QStringLiteral("p"), 0.2}}, {}});
    preset.graph.edges.removeIf([](const Edge &e) { return e.from.node == QStringLiteral("act"); });
    preset.graph.edges.append(Edge{{QStringLiteral("act"), QStringLiteral("out")}, {QStringLiteral("drop"), QStringLiteral("in")}});
    preset.graph.edges.append(Edge{{QStringLiteral("drop"), QStringLiteral("out")}, {QStringLiteral("fc_out"), QStringLiteral("in")}});
    preset.graph.nodes.append(Node{QStringLiteral("schedule"), QStringLiteral("schedule.warmup_cosine"), {}, {}});
    preset.graph.edges.append(Edge{{QStringLiteral("schedule"), QStringLiteral("schedule")}, {QStringLiteral("opt"), QStringLiteral("schedule")}});
    preset.training.insert(QStringLiteral("deterministic"), true);
    preset.training.insert(QStringLiteral("log_every"), 7);
    preset.training.insert(QStringLiteral("stages"),
                           QJsonArray{stage(QStringLiteral("head"), 2, {{QStringLiteral("freeze"), ids({"fc1"})}}),
                                      stage(QStringLiteral("all"), 2, {{QStringLiteral("unfreeze"), ids({"fc1"})},
                                                                       {QStringLiteral("reset_optimizer"), resetOptimizer},
                                                                       {QStringLiteral("set"), QJsonObject{{QStringLiteral("opt.lr"), 0.003},
                                                                                                           {QStringLiteral("drop.p"), 0.4},
                                                                                                           {QStringLiteral("training.batch_size"), 64}}}})});
    QTemporaryDir whole, parts;
    test::RecordingObserver uninterrupted;
    QCOMPARE(int(Trainer::train(preset, TrainOptions{whole.path(), {}, {}}, uninterrupted).outcome), int(TrainOutcome::Finished));

    test::RecordingObserver first;
    first.stopAfterPolls = stopAt;
    const TrainResult stopped = Trainer::train(preset, TrainOptions{parts.path(), {}, {}}, first);
    QCOMPARE(int(stopped.outcome), int(TrainOutcome::Stopped));
    QCOMPARE(stopped.steps, stopAt);
    test::RecordingObserver second;
    const TrainResult resumed = Trainer::train(preset, TrainOptions{parts.path(), {}, stopped.finalCheckpoint}, second);
    QCOMPARE(int(resumed.outcome), int(TrainOutcome::Finished));
    QCOMPARE(second.start.stage, stopAt >= 68 ? 1 : 0);

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
    QCOMPARE(actual.size(), expected.size());
    for (int i = 0; i < expected.size(); ++i) {
        QCOMPARE(actual.at(i).first, expected.at(i).first);
        QCOMPARE(actual.at(i).second, expected.at(i).second);
    }
}

// Early stopping ends the stage, not the run: the next stage begins.
void TestStages::earlyStoppingEndsOnlyTheStage()
{
    Preset preset = normClassifier();
    preset.training.insert(QStringLiteral("stages"),
                           QJsonArray{stage(QStringLiteral("plateau"), 6, {{QStringLiteral("set"), QJsonObject{{QStringLiteral("opt.lr"), 1e-7},
                                                                                                            {QStringLiteral("training.early_stop_metric"), QStringLiteral("val/accuracy")},
                                                                                                            {QStringLiteral("training.early_stop_mode"), QStringLiteral("max")},
                                                                                                            {QStringLiteral("training.early_stop_patience"), 1}}}}),
                                      stage(QStringLiteral("learn"), 2, {{QStringLiteral("set"), QJsonObject{{QStringLiteral("opt.lr"), 0.01},
                                                                                                         {QStringLiteral("training.early_stop_metric"), QString()}}}})});
    struct StageObserver : test::RecordingObserver {
        void onStage(const StageStart &s) override { stages << s; }
        QList<StageStart> stages;
    } observer;
    const TrainResult result = Trainer::train(preset, TrainOptions{}, observer);
    QCOMPARE(int(result.outcome), int(TrainOutcome::Finished));
    QCOMPARE(observer.stages.size(), 2);
    QVERIFY2(observer.stages.at(1).epoch < 6, "the first stage should have stopped early");
    QCOMPARE(result.epochs, observer.stages.at(1).epoch + 2);
    QVERIFY(result.lastMetrics.value(QStringLiteral("test/accuracy")) > 0.5);
}

// Warm start copies the listed nodes' tensors, bit for bit, and nothing else; without a list every node whose
// tensors match; a listed node that does not match is an error naming node, tensor and both shapes.
void TestStages::warmStartCopiesExactlyTheRequestedTensors()
{
    DatasetShape shape;
    shape.sampleShape = {8};
    shape.numClasses = 4;
    torch::manual_seed(1);
    ty::detail::CompiledPipeline source = ty::detail::compilePipeline(normClassifier(), shape);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("source.safetensors"));
    auto optimizer = source.optimizerFactory(source.plan.optimizerParams, source.model->parameters());
    QVERIFY(ty::detail::saveCheckpoint(path, *source.model, *optimizer, ty::detail::TrainingPosition{}, QString()).ok());

    torch::manual_seed(2);
    ty::detail::CompiledPipeline target = ty::detail::compilePipeline(normClassifier(), shape);
    const auto before = tensorsOfModel(*target.model);
    const Result<ty::detail::WarmStartReport> copied = ty::detail::warmStart(path, *target.model, {QStringLiteral("fc1")}, true);
    QVERIFY2(copied.ok(), qPrintable(copied.error().toString()));
    QCOMPARE(copied.value().copiedNodes, QStringList{QStringLiteral("fc1")});
    QCOMPARE(copied.value().copiedTensors, 2);
    const auto after = tensorsOfModel(*target.model), wanted = tensorsOfModel(*source.model);
    for (auto it = after.constBegin(); it != after.constEnd(); ++it) {
        const bool requested = it.key().startsWith(QStringLiteral("fc1."));
        QVERIFY2((it.value() == (requested ? wanted : before).value(it.key())), qPrintable(it.key()));
        if (!requested && it.key().endsWith(QStringLiteral("weight")) && !it.key().startsWith(QStringLiteral("bn")))
            QVERIFY2(it.value() != wanted.value(it.key()), qPrintable(it.key()));
    }

    // A head of another width: copied by default except the head; asked for strictly, refused.
    DatasetShape sixClasses = shape;
    sixClasses.numClasses = 6;
    Preset six = normClassifier();
    six.graph.node(QStringLiteral("fc_out"))->params.insert(QStringLiteral("out_features"), 6);
    ty::detail::CompiledPipeline other = ty::detail::compilePipeline(six, sixClasses);
    QVERIFY(other.report.ok());
    const Result<ty::detail::WarmStartReport> matching = ty::detail::warmStart(path, *other.model, {}, true);
    QVERIFY2(matching.ok(), qPrintable(matching.error().toString()));
    QCOMPARE(matching.value().copiedNodes, (QStringList{QStringLiteral("fc1"), QStringLiteral("bn1")}));
    QCOMPARE(matching.value().skipped.size(), 1);
    QVERIFY(matching.value().skipped.first().startsWith(QStringLiteral("fc_out: ")));
    const auto otherBefore = tensorsOfModel(*other.model);
    const Result<ty::detail::WarmStartReport> strict = ty::detail::warmStart(path, *other.model, {QStringLiteral("fc1"), QStringLiteral("fc_out")}, true);
    QVERIFY(!strict.ok());
    QCOMPARE(strict.error().node, QStringLiteral("fc_out"));
    QVERIFY2(strict.error().message.contains(QStringLiteral("fc_out.weight is F32 [4, 32] there, F32 [6, 32] here")),
             qPrintable(strict.error().message));
    QVERIFY(tensorsOfModel(*other.model) == otherBefore);  // refused: nothing changed, not even fc1
    const Result<ty::detail::WarmStartReport> lenient = ty::detail::warmStart(path, *other.model, {QStringLiteral("fc1"), QStringLiteral("fc_out")}, false);
    QVERIFY(lenient.ok());
    QCOMPARE(lenient.value().copiedNodes, QStringList{QStringLiteral("fc1")});
}

// init_from in a preset: the run starts from the file's weights (its first loss is the trained model's, far below
// a fresh model's) and says what it copied.
void TestStages::initFromFileStartsFromThoseWeights()
{
    QTemporaryDir dir;
    Preset preset = test::classifierPreset(QStringLiteral("blobs"), QStringLiteral("optimizer.adam"), 0.01, 3);
    test::RecordingObserver trained;
    const TrainResult parent = Trainer::train(preset, TrainOptions{dir.filePath(QStringLiteral("parent")), {}, {}}, trained);
    QCOMPARE(int(parent.outcome), int(TrainOutcome::Finished));

    preset.training.insert(QStringLiteral("epochs"), 1);
    preset.training.insert(QStringLiteral("log_every"), 1);
    test::RecordingObserver fresh;
    QCOMPARE(int(Trainer::train(preset, TrainOptions{}, fresh).outcome), int(TrainOutcome::Finished));
    preset.training.insert(QStringLiteral("init_from"), QJsonObject{{QStringLiteral("file"), parent.finalCheckpoint}});
    test::RecordingObserver warm;
    QCOMPARE(int(Trainer::train(preset, TrainOptions{}, warm).outcome), int(TrainOutcome::Finished));
    QVERIFY2(warm.start.warmStart.startsWith(QStringLiteral("fc1, fc_out (4 tensors) from ")), qPrintable(warm.start.warmStart));
    const double warmFirst = warm.values(QStringLiteral("train/loss")).first();
    const double freshFirst = fresh.values(QStringLiteral("train/loss")).first();
    QVERIFY2(warmFirst < 0.5 * freshFirst, qPrintable(QStringLiteral("%1 vs %2").arg(warmFirst).arg(freshFirst)));

    // A run id needs the database: the engine alone refuses it, naming the key.
    preset.training.insert(QStringLiteral("init_from"), QJsonObject{{QStringLiteral("run"), 3}});
    const Result<std::unique_ptr<PreparedTraining>> refused = Trainer::prepare(preset, TrainOptions{});
    QVERIFY(!refused.ok());
    QCOMPARE(refused.error().field, QStringLiteral("training.init_from.run"));
}

namespace {

// Records checkpoints (or, with `records` false, refuses to, as a failing run database does) and the files removed.
struct CheckpointFilesObserver : test::RecordingObserver {
    bool records = true;
    QStringList removed;
    bool onCheckpoint(const CheckpointInfo &c) override
    {
        checkpoints << c;
        return records;
    }
    void onCheckpointRemoved(const QString &path) override { removed << path; }
};

} // namespace

// A checkpoint the observer could not record (the run database failed) deletes nothing: every file a resume may
// need stays, whatever checkpoint_keep says.
void TestStages::unrecordedCheckpointsDeleteNothing()
{
    QTemporaryDir dir;
    Preset preset = test::classifierPreset(QStringLiteral("blobs"), QStringLiteral("optimizer.adam"), 0.01, 4);
    preset.training.insert(QStringLiteral("checkpoint_keep"), 1);
    preset.training.insert(QStringLiteral("best_metric"), QStringLiteral("val/accuracy"));
    CheckpointFilesObserver observer;
    observer.records = false;
    const TrainResult result = Trainer::train(preset, TrainOptions{dir.path(), {}, {}}, observer);
    QCOMPARE(int(result.outcome), int(TrainOutcome::Finished));
    QVERIFY(observer.removed.isEmpty());
    const QStringList left = QDir(dir.filePath(QStringLiteral("checkpoints"))).entryList({QStringLiteral("step-*")}, QDir::Files);
    QCOMPARE(left.size(), 4);
}

// training.checkpoint_keep keeps the newest periodic checkpoints; training.best_metric picks the best one by
// its own direction (higher for an accuracy).
void TestStages::keptAndBestCheckpoints()
{
    QTemporaryDir dir;
    Preset preset = test::classifierPreset(QStringLiteral("blobs"), QStringLiteral("optimizer.adam"), 0.01, 5);
    preset.training.insert(QStringLiteral("checkpoint_keep"), 2);
    preset.training.insert(QStringLiteral("best_metric"), QStringLiteral("val/accuracy"));
    CheckpointFilesObserver observer;
    const TrainResult result = Trainer::train(preset, TrainOptions{dir.path(), {}, {}}, observer);
    QCOMPARE(int(result.outcome), int(TrainOutcome::Finished));
    const QStringList left = QDir(dir.filePath(QStringLiteral("checkpoints"))).entryList({QStringLiteral("step-*")}, QDir::Files, QDir::Name);
    QCOMPARE(left.size(), 2);
    // Three periodic files went with their records, and every best but the last (each replaced by a newer best).
    QCOMPARE(observer.removed.filter(QStringLiteral("/step-")).size(), 3);
    const qsizetype bests = std::count_if(observer.checkpoints.begin(), observer.checkpoints.end(), [](const CheckpointInfo &c) { return c.best; });
    QCOMPARE(observer.removed.filter(QStringLiteral("/best-step-")).size(), bests - 1);
    QCOMPARE(QDir(dir.filePath(QStringLiteral("checkpoints"))).entryList({QStringLiteral("best-step-*")}, QDir::Files).size(), 1);
    QVERIFY(result.finalCheckpoint.endsWith(left.last()));
    // The best checkpoint is the epoch with the highest validation accuracy.
    QList<double> accuracy;
    for (const MetricSample &s : observer.metrics)
        if (s.name == QStringLiteral("val/accuracy"))
            accuracy << s.value;
    QCOMPARE(accuracy.size(), 5);
    int bestEpoch = 0;
    for (int i = 1; i < accuracy.size(); ++i)
        if (accuracy[i] > accuracy[bestEpoch])
            bestEpoch = i;
    CheckpointInfo best;
    for (const CheckpointInfo &c : observer.checkpoints)
        if (c.best)
            best = c;
    QCOMPARE(best.epoch, bestEpoch + 1);
    QVERIFY(QFileInfo::exists(best.path));
}
