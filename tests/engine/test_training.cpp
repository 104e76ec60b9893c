// Training end to end on small data with fixed seeds: learning happens, metrics are complete, runs end
// truthfully (diverged, stopped, early-stopped).

#include "required_data.h"
#include "detail/fused_adam.h"
#include "detail/optimization.h"
#include "engine_fixtures.h"
#include "test_engine_classes.h"
#include "shape_inference.h"
#include "trainer.h"

#include <QDir>
#include <QtTest>

using namespace ty;

namespace {

TrainResult train(const Preset &preset, test::RecordingObserver &observer, const QString &folder = {})
{
    return Trainer::train(preset, TrainOptions{folder, QString()}, observer);
}

QString describe(const TrainResult &r)
{
    QStringList parts{r.message};
    for (auto it = r.lastMetrics.constBegin(); it != r.lastMetrics.constEnd(); ++it)
        parts << QStringLiteral("%1=%2").arg(it.key()).arg(it.value());
    return parts.join(QStringLiteral(" "));
}

} // namespace

void TestTraining::optimizersLearnBlobs_data()
{
    QTest::addColumn<QString>("optimizer");
    QTest::addColumn<double>("lr");
    QTest::newRow("sgd") << "optimizer.sgd" << 0.1;
    QTest::newRow("adam") << "optimizer.adam" << 0.01;
    QTest::newRow("adamw") << "optimizer.adamw" << 0.01;
    QTest::newRow("rmsprop") << "optimizer.rmsprop" << 0.005;
    QTest::newRow("adagrad") << "optimizer.adagrad" << 0.1;
}

void TestTraining::optimizersLearnBlobs()
{
    QFETCH(QString, optimizer);
    QFETCH(double, lr);
    test::RecordingObserver observer;
    const TrainResult result = train(test::classifierPreset(QStringLiteral("blobs"), optimizer, lr), observer);
    QCOMPARE(int(result.outcome), int(TrainOutcome::Finished));
    // Four classes: chance is 0.25.
    QVERIFY2(result.lastMetrics.value(QStringLiteral("test/accuracy")) > 0.8, qPrintable(describe(result)));
    const QList<double> losses = observer.values(QStringLiteral("train/loss"));
    QVERIFY(losses.size() > 10);
    QVERIFY2(losses.last() < losses.first(), qPrintable(describe(result)));
}

void TestTraining::regressionLossesLearn_data()
{
    QTest::addColumn<QString>("loss");
    QTest::newRow("mse") << "loss.mse";
    QTest::newRow("l1") << "loss.l1";
    QTest::newRow("huber") << "loss.huber";
}

void TestTraining::regressionLossesLearn()
{
    QFETCH(QString, loss);
    test::RecordingObserver observer;
    const TrainResult result = train(test::regressionPreset(loss, 0.05, 8), observer);
    QCOMPARE(int(result.outcome), int(TrainOutcome::Finished));
    const QList<double> trainMae = observer.values(QStringLiteral("train/mae"));
    QVERIFY(!trainMae.isEmpty());
    // The mean absolute error falls to a fraction of where it started.
    QVERIFY2(result.lastMetrics.value(QStringLiteral("test/mae")) < 0.25 * trainMae.first(), qPrintable(describe(result)));
}

void TestTraining::cnnLearnsSyntheticImages()
{
    auto node = [](const char *id, const char *block, const QJsonObject &params = {}) {
        return QJsonObject{{QStringLiteral("id"), QString::fromLatin1(id)}, {QStringLiteral("block"), QString::fromLatin1(block)},
                           {QStringLiteral("params"), params}};
    };
    const Preset preset = test::makePreset(
        {node("data", "dataset.synthetic", {{QStringLiteral("kind"), QStringLiteral("images")}, {QStringLiteral("features"), 12},
                                            {QStringLiteral("classes"), 4}, {QStringLiteral("noise"), 0.5}, {QStringLiteral("samples"), 800}}),
         node("conv", "layer.conv2d", {{QStringLiteral("out_channels"), 8}, {QStringLiteral("padding"), 1}}),
         node("bn", "layer.batchnorm2d"), node("relu", "layer.leaky_relu"), node("pool", "layer.avgpool2d"),
         node("flatten", "layer.flatten"), node("drop", "layer.dropout", {{QStringLiteral("p"), 0.1}}),
         node("fc", "layer.linear", {{QStringLiteral("out_features"), 4}}),
         node("loss", "loss.cross_entropy", {{QStringLiteral("label_smoothing"), 0.1}}), node("accuracy", "metric.accuracy"),
         node("top2", "metric.top_k_accuracy", {{QStringLiteral("k"), 2}}),
         node("opt", "optimizer.sgd", {{QStringLiteral("lr"), 0.05}, {QStringLiteral("momentum"), 0.9}, {QStringLiteral("nesterov"), true}}),
         node("schedule", "schedule.warmup_cosine")},
        {QStringLiteral("data.features -> conv.in"), QStringLiteral("conv.out -> bn.in"), QStringLiteral("bn.out -> relu.in"),
         QStringLiteral("relu.out -> pool.in"), QStringLiteral("pool.out -> flatten.in"), QStringLiteral("flatten.out -> drop.in"),
         QStringLiteral("drop.out -> fc.in"), QStringLiteral("fc.out -> loss.input"), QStringLiteral("data.target -> loss.target"),
         QStringLiteral("fc.out -> accuracy.input"), QStringLiteral("data.target -> accuracy.target"),
         QStringLiteral("fc.out -> top2.input"), QStringLiteral("data.target -> top2.target"),
         QStringLiteral("loss.loss -> opt.loss"), QStringLiteral("schedule.schedule -> opt.schedule")},
        {{QStringLiteral("epochs"), 4}, {QStringLiteral("batch_size"), 32}, {QStringLiteral("device"), QStringLiteral("cpu")}});
    test::RecordingObserver observer;
    const TrainResult result = train(preset, observer);
    QCOMPARE(int(result.outcome), int(TrainOutcome::Finished));
    QVERIFY2(result.lastMetrics.value(QStringLiteral("test/accuracy")) > 0.8, qPrintable(describe(result)));
    QVERIFY(result.lastMetrics.value(QStringLiteral("test/top2")) >= result.lastMetrics.value(QStringLiteral("test/accuracy")));
    // Shares of samples: each evaluation metric stays within [0, 1] on its own.
    for (const char *name : {"test/top2", "test/accuracy", "val/top2", "val/accuracy", "train/top2"})
        QVERIFY2(result.lastMetrics.value(QString::fromLatin1(name)) <= 1.0, name);
    // Warmup then cosine: the learning rate rose and then fell back towards zero.
    const QList<double> lr = observer.values(QStringLiteral("train/lr"));
    QVERIFY(lr.size() > 3);
    QVERIFY(lr.last() < 0.01);
}

// A transformer on text: the next character of the GPL-3 (every Debian system has it) from the 8 before it, by
// embedding, positional embedding, an encoder layer with causal attention and a linear head over all positions.
void TestTraining::attentionLearnsText()
{
    const QString text = QStringLiteral("/usr/share/common-licenses/GPL-3");
    if (!QFile::exists(text))
        TY_SKIP_WITHOUT_DATA("/usr/share/common-licenses/GPL-3 is not here (base-files)");
    auto node = [](const char *id, const char *block, const QJsonObject &params = {}) {
        return QJsonObject{{QStringLiteral("id"), QString::fromLatin1(id)}, {QStringLiteral("block"), QString::fromLatin1(block)},
                           {QStringLiteral("params"), params}};
    };
    const Preset preset = test::makePreset(
        {node("data", "dataset.text", {{QStringLiteral("path"), text}, {QStringLiteral("window"), 8}, {QStringLiteral("lowercase"), true},
                                       {QStringLiteral("limit"), 12000}, {QStringLiteral("val_count"), 1000}, {QStringLiteral("test_limit"), 2000}}),
         node("embed", "layer.embedding", {{QStringLiteral("num_embeddings"), 51}, {QStringLiteral("dim"), 32}}),
         node("pos", "layer.positional_embedding"),
         node("encoder", "layer.transformer_encoder", {{QStringLiteral("heads"), 4}, {QStringLiteral("ff_dim"), 64},
                                                        {QStringLiteral("dropout"), 0.0}, {QStringLiteral("causal"), true}}),
         node("flatten", "layer.flatten"), node("fc", "layer.linear", {{QStringLiteral("out_features"), 51}}),
         node("loss", "loss.cross_entropy"), node("accuracy", "metric.accuracy"), node("opt", "optimizer.adam", {{QStringLiteral("lr"), 0.003}})},
        {QStringLiteral("data.characters -> embed.in"), QStringLiteral("embed.out -> pos.in"), QStringLiteral("pos.out -> encoder.in"),
         QStringLiteral("encoder.out -> flatten.in"), QStringLiteral("flatten.out -> fc.in"), QStringLiteral("fc.out -> loss.input"),
         QStringLiteral("data.next -> loss.target"), QStringLiteral("fc.out -> accuracy.input"), QStringLiteral("data.next -> accuracy.target"),
         QStringLiteral("loss.loss -> opt.loss")},
        {{QStringLiteral("epochs"), 3}, {QStringLiteral("batch_size"), 64}, {QStringLiteral("device"), QStringLiteral("cpu")}});
    test::RecordingObserver observer;
    const TrainResult result = train(preset, observer);
    QCOMPARE(int(result.outcome), int(TrainOutcome::Finished));
    // A space, the most frequent character, is about 1 in 6.
    QVERIFY2(result.lastMetrics.value(QStringLiteral("test/accuracy")) > 0.35, qPrintable(describe(result)));
}

void TestTraining::bundledPresetsLearnOnSmallData_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<double>("minAccuracy");
    QTest::newRow("mlp") << "fashion-mnist-mlp" << 0.65;
    QTest::newRow("cnn") << "fashion-mnist-cnn" << 0.6;
    QTest::newRow("resnet") << "fashion-mnist-resnet" << 0.5;
    QTest::newRow("wine") << "wine-tabular" << 0.85;
    QTest::newRow("penguins") << "penguins-tabular" << 0.85;
    // The next of 43 characters: the most frequent one alone is right about 1 time in 10 (20,000 windows, 2 epochs).
    QTest::newRow("words") << "words-char-lstm" << 0.2;
    QTest::newRow("image folder") << "image-folder-cnn" << 0.6;
}

void TestTraining::bundledPresetsLearnOnSmallData()
{
    QFETCH(QString, name);
    QFETCH(double, minAccuracy);
    Preset preset = test::bundledPreset(name);
    if (name.startsWith(QStringLiteral("fashion-mnist"))) {
        if (!QDir(QStringLiteral("/usr/share/datasets/fashion-mnist")).exists())
            TY_SKIP_WITHOUT_DATA("Fashion-MNIST is not installed (dataset-fashion-mnist)");
        QJsonObject &params = preset.graph.node(QStringLiteral("data"))->params;
        params.insert(QStringLiteral("limit"), 2500);
        params.insert(QStringLiteral("val_count"), 500);
        params.insert(QStringLiteral("test_limit"), 1000);
        preset.training.insert(QStringLiteral("epochs"), 2);
    }
    if (name == QStringLiteral("words-char-lstm")) {
        if (!QFile::exists(QStringLiteral("/usr/share/dict/words")))
            TY_SKIP_WITHOUT_DATA("The word list is not installed (wamerican)");
        QJsonObject &params = preset.graph.node(QStringLiteral("data"))->params;
        params.insert(QStringLiteral("limit"), 20000);
        params.insert(QStringLiteral("val_count"), 1000);
        params.insert(QStringLiteral("test_limit"), 2000);
        preset.training.insert(QStringLiteral("epochs"), 2);
    }
    QTemporaryDir images;
    if (name == QStringLiteral("image-folder-cnn")) {
        // 2,000 PNG files of each split, written by the bundled script
        if (!test::useSmallImageFolder(preset, images.path(), 2000))
            TY_SKIP_WITHOUT_DATA("needs Fashion-MNIST (dataset-fashion-mnist) and python3 to write the PNG files");
        QJsonObject &params = preset.graph.node(QStringLiteral("data"))->params;
        params.insert(QStringLiteral("val_count"), 500);
        params.insert(QStringLiteral("test_limit"), 1000);
        params.insert(QStringLiteral("cache"), false);
        preset.training.insert(QStringLiteral("epochs"), 2);
    }
    preset.training.insert(QStringLiteral("device"), QStringLiteral("cpu"));
    test::RecordingObserver observer;
    const TrainResult result = train(preset, observer);
    QCOMPARE(int(result.outcome), int(TrainOutcome::Finished));
    QVERIFY2(result.lastMetrics.value(QStringLiteral("test/accuracy")) > minAccuracy, qPrintable(describe(result)));
    // Every bundled preset's finished run is scored on its test split, agreeing with its own test metric.
    QVERIFY(result.testEvaluation);
    QCOMPARE(result.testEvaluation->accuracy, result.lastMetrics.value(QStringLiteral("test/accuracy")));
    QCOMPARE(result.testEvaluation->count, observer.start.testSamples);
    const int classes = name == QStringLiteral("wine-tabular") || name == QStringLiteral("penguins-tabular") ? 3 : name == QStringLiteral("words-char-lstm") ? 43 : 10;
    QCOMPARE(result.testEvaluation->classes.size(), classes);
}

// The streaming path against the in-memory path: the same seed gives the same batches, hence the same metric rows
// value for value, whether the run streams from the start or is stopped mid-epoch and resumed streaming; the
// streamed run reads every training batch from its file and says so.
void TestTraining::streamingMatchesInMemory()
{
    Preset preset = test::bundledPreset(QStringLiteral("image-folder-cnn"));
    QTemporaryDir images, cache, folders;
    if (!test::useSmallImageFolder(preset, images.path(), 300))
        TY_SKIP_WITHOUT_DATA("needs Fashion-MNIST (dataset-fashion-mnist) and python3 to write the PNG files");
    qputenv("TRAINYARD_CACHE_DIR", cache.path().toUtf8());
    QJsonObject &params = preset.graph.node(QStringLiteral("data"))->params;
    params.insert(QStringLiteral("val_count"), 60);
    preset.training.insert(QStringLiteral("epochs"), 2);
    preset.training.insert(QStringLiteral("batch_size"), 32);
    preset.training.insert(QStringLiteral("log_every"), 3);
    preset.training.insert(QStringLiteral("device"), QStringLiteral("cpu"));
    preset.training.insert(QStringLiteral("deterministic"), true);
    const auto rows = [](const QList<MetricSample> &samples, qint64 from, qint64 to) {
        QStringList out;
        for (const MetricSample &s : samples)
            if (s.step > from && s.step <= to)
                out << QStringLiteral("%1@%2=%3").arg(s.name).arg(s.step).arg(s.value, 0, 'g', 17);
        return out;
    };
    const qint64 end = std::numeric_limits<qint64>::max();

    preset.training.insert(QStringLiteral("streaming"), QStringLiteral("off"));
    test::RecordingObserver inMemory;
    const TrainResult memoryResult = train(preset, inMemory);
    QCOMPARE(int(memoryResult.outcome), int(TrainOutcome::Finished));
    QVERIFY(!memoryResult.streamed);

    preset.training.insert(QStringLiteral("streaming"), QStringLiteral("on"));
    test::RecordingObserver streamed;
    const TrainResult streamedResult = train(preset, streamed);
    QCOMPARE(int(streamedResult.outcome), int(TrainOutcome::Finished));
    QVERIFY(streamedResult.streamed);
    QCOMPARE(streamedResult.streamedBatches, streamedResult.steps);
    QVERIFY(streamed.events.filter(QStringLiteral("streaming: the samples are read from")).size() == 1);
    QVERIFY(rows(inMemory.metrics, -1, end).size() > 20);
    QCOMPARE(rows(streamed.metrics, -1, end), rows(inMemory.metrics, -1, end));
    QVERIFY(memoryResult.lastMetrics.value(QStringLiteral("test/accuracy")) > 0.2);  // ten classes

    test::RecordingObserver first;
    first.stopAfterPolls = 11;  // mid-epoch 2 (240 training images: 8 steps an epoch)
    const TrainResult stopped = Trainer::train(preset, TrainOptions{folders.path(), {}, {}}, first);
    QCOMPARE(int(stopped.outcome), int(TrainOutcome::Stopped));
    test::RecordingObserver second;
    QCOMPARE(int(Trainer::train(preset, TrainOptions{folders.path(), {}, stopped.finalCheckpoint}, second).outcome), int(TrainOutcome::Finished));
    QCOMPARE(rows(first.metrics, -1, stopped.steps) + rows(second.metrics, stopped.steps, end), rows(inMemory.metrics, -1, end));
    qunsetenv("TRAINYARD_CACHE_DIR");
}

void TestTraining::metricsHaveOneRowPerStep()
{
    test::RecordingObserver observer;
    const TrainResult result = train(test::classifierPreset(QStringLiteral("blobs"), QStringLiteral("optimizer.sgd"), 0.1, 2), observer);
    QCOMPARE(int(result.outcome), int(TrainOutcome::Finished));
    // 1200 samples, 10% validation: 1080 training samples in batches of 32 -> 34 steps per epoch.
    QCOMPARE(observer.start.stepsPerEpoch, qint64(34));
    QCOMPARE(result.steps, qint64(68));
    QList<qint64> steps;
    for (const MetricSample &s : observer.metrics)
        if (s.name == QStringLiteral("train/loss"))
            steps << s.step;
    QCOMPARE(steps.size(), 68);
    for (int i = 0; i < steps.size(); ++i)
        QCOMPARE(steps.at(i), qint64(i + 1));
    QCOMPARE(observer.values(QStringLiteral("val/loss")).size(), 2);
    QCOMPARE(observer.values(QStringLiteral("test/accuracy")).size(), 1);
    QCOMPARE(observer.epochs, (QList<int>{1, 2}));
}

void TestTraining::sameSeedGivesSameMetrics()
{
    Preset preset = test::classifierPreset(QStringLiteral("spirals"), QStringLiteral("optimizer.adam"), 0.01, 2);
    preset.graph.node(QStringLiteral("data"))->params.insert(QStringLiteral("features"), 2);
    preset.training.insert(QStringLiteral("deterministic"), true);
    test::RecordingObserver first, second, otherSeed;
    train(preset, first);
    train(preset, second);
    preset.training.insert(QStringLiteral("seed"), 7);
    train(preset, otherSeed);
    QCOMPARE(first.values(QStringLiteral("train/loss")), second.values(QStringLiteral("train/loss")));
    QCOMPARE(first.values(QStringLiteral("test/accuracy")), second.values(QStringLiteral("test/accuracy")));
    QVERIFY(first.values(QStringLiteral("train/loss")) != otherSeed.values(QStringLiteral("train/loss")));
}

void TestTraining::fusedAdamLeavesEveryMetricBitwise_data()
{
    QTest::addColumn<QString>("name");
    QTest::newRow("mlp, adam") << "fashion-mnist-mlp";
    QTest::newRow("cnn, adam") << "fashion-mnist-cnn";
    QTest::newRow("lstm, adam") << "words-char-lstm";
    QTest::newRow("tabular, adamw with weight decay") << "wine-tabular";
}

// Adam's and AdamW's fused step (detail/fused_adam.h) against LibTorch's own (TRAINYARD_FUSED_ADAM=off): every
// metric row of a bundled preset's run, validation and test included, bit for bit.
void TestTraining::fusedAdamLeavesEveryMetricBitwise()
{
    QFETCH(QString, name);
    Preset preset = test::bundledPreset(name);
    QJsonObject &params = preset.graph.node(QStringLiteral("data"))->params;
    if (name.startsWith(QStringLiteral("fashion-mnist"))) {
        if (!QDir(QStringLiteral("/usr/share/datasets/fashion-mnist")).exists())
            TY_SKIP_WITHOUT_DATA("Fashion-MNIST is not installed (dataset-fashion-mnist)");
        params.insert(QStringLiteral("limit"), name.contains(QStringLiteral("cnn")) ? 800 : 3000);
        params.insert(QStringLiteral("val_count"), 300);
        params.insert(QStringLiteral("test_limit"), 500);
    }
    if (name == QStringLiteral("words-char-lstm")) {
        if (!QFile::exists(QStringLiteral("/usr/share/dict/words")))
            TY_SKIP_WITHOUT_DATA("The word list is not installed (wamerican)");
        params.insert(QStringLiteral("limit"), 4000);
        params.insert(QStringLiteral("val_count"), 500);
        params.insert(QStringLiteral("test_limit"), 500);
    }
    preset.training.insert(QStringLiteral("epochs"), 2);
    preset.training.insert(QStringLiteral("device"), QStringLiteral("cpu"));
    auto rows = [](const test::RecordingObserver &observer) {
        QStringList out;
        for (const MetricSample &m : observer.metrics)
            out << QStringLiteral("%1 %2 %3").arg(m.name).arg(m.step).arg(m.value, 0, 'a');
        return out;
    };
    test::RecordingObserver fused, libtorch;
    const int64_t before = ty::detail::fusedAdamStepsTaken();
    const TrainResult result = train(preset, fused);
    QCOMPARE(int(result.outcome), int(TrainOutcome::Finished));
    QCOMPARE(ty::detail::fusedAdamStepsTaken() - before, int64_t(result.steps));  // every step through the fused loop
    qputenv("TRAINYARD_FUSED_ADAM", "off");
    const TrainResult reference = train(preset, libtorch);
    qunsetenv("TRAINYARD_FUSED_ADAM");
    QCOMPARE(int(reference.outcome), int(TrainOutcome::Finished));
    QCOMPARE(ty::detail::fusedAdamStepsTaken() - before, int64_t(result.steps));  // none with it off
    QVERIFY(!fused.values(QStringLiteral("test/loss")).isEmpty());
    QCOMPARE(rows(fused), rows(libtorch));
}

void TestTraining::divergenceEndsTheRun()
{
    Preset preset = test::regressionPreset(QStringLiteral("loss.mse"), 0.1, 5);
    preset.graph.node(QStringLiteral("opt"))->block = QStringLiteral("optimizer.sgd");
    preset.graph.node(QStringLiteral("opt"))->params.insert(QStringLiteral("lr"), 10.0);
    test::RecordingObserver observer;
    const TrainResult result = train(preset, observer);
    QCOMPARE(int(result.outcome), int(TrainOutcome::Diverged));
    QVERIFY2(result.message.contains(QStringLiteral("the loss became")), qPrintable(result.message));
    QVERIFY(result.steps < 5 * 29);
    QVERIFY(observer.events.last().startsWith(QStringLiteral("diverged: ")));
    for (double loss : observer.values(QStringLiteral("train/loss")))
        QVERIFY(std::isfinite(loss));
}

void TestTraining::stopRequestEndsWithACheckpoint()
{
    QTemporaryDir folder;
    test::RecordingObserver observer;
    observer.stopAfterSteps = 10;
    const TrainResult result = train(test::classifierPreset(QStringLiteral("blobs"), QStringLiteral("optimizer.sgd"), 0.1, 3), observer,
                                     folder.path());
    QCOMPARE(int(result.outcome), int(TrainOutcome::Stopped));
    QCOMPARE(result.steps, qint64(10));
    QVERIFY(QFileInfo::exists(result.finalCheckpoint));
    QCOMPARE(observer.checkpoints.last().step, qint64(10));
    QVERIFY(observer.values(QStringLiteral("test/accuracy")).isEmpty());
}

void TestTraining::earlyStoppingEndsBeforeTheLastEpoch()
{
    Preset preset = test::classifierPreset(QStringLiteral("blobs"), QStringLiteral("optimizer.sgd"), 0.0, 10);
    preset.training.insert(QStringLiteral("early_stop_metric"), QStringLiteral("val/loss"));
    preset.training.insert(QStringLiteral("early_stop_patience"), 2);
    test::RecordingObserver observer;
    const TrainResult result = train(preset, observer);
    QCOMPARE(int(result.outcome), int(TrainOutcome::Finished));
    // A learning rate of 0 never improves: best after epoch 1, then two bad epochs.
    QCOMPARE(result.epochs, 3);
    QVERIFY(observer.events.last().startsWith(QStringLiteral("early_stop: ")));
    QCOMPARE(observer.values(QStringLiteral("test/accuracy")).size(), 1);

    preset.training.insert(QStringLiteral("early_stop_metric"), QStringLiteral("val/nothing"));
    const TrainResult bad = train(preset, observer);
    QCOMPARE(int(bad.outcome), int(TrainOutcome::Failed));
    QVERIFY2(bad.message.contains(QStringLiteral("\"val/nothing\" is not a metric of this pipeline")), qPrintable(bad.message));
}

void TestTraining::schedulesFollowTheirFormulas()
{
    using ty::detail::scheduledLearningRate;
    const QJsonObject step{{QStringLiteral("step_size"), 2}, {QStringLiteral("gamma"), 0.5}};
    QCOMPARE(scheduledLearningRate(QStringLiteral("schedule.step"), step, 1.0, 0, 10, 100), 1.0);
    QCOMPARE(scheduledLearningRate(QStringLiteral("schedule.step"), step, 1.0, 19, 10, 100), 1.0);
    QCOMPARE(scheduledLearningRate(QStringLiteral("schedule.step"), step, 1.0, 20, 10, 100), 0.5);
    QCOMPARE(scheduledLearningRate(QStringLiteral("schedule.step"), step, 1.0, 45, 10, 100), 0.25);
    const QJsonObject exponential{{QStringLiteral("gamma"), 0.9}};
    QVERIFY(qFuzzyCompare(scheduledLearningRate(QStringLiteral("schedule.exponential"), exponential, 1.0, 25, 10, 100), 0.81));
    const QJsonObject cosine{{QStringLiteral("min_lr"), 0.1}};
    QCOMPARE(scheduledLearningRate(QStringLiteral("schedule.cosine"), cosine, 1.0, 0, 10, 101), 1.0);
    QVERIFY(qFuzzyCompare(scheduledLearningRate(QStringLiteral("schedule.cosine"), cosine, 1.0, 50, 10, 101), 0.55));
    QVERIFY(qFuzzyCompare(scheduledLearningRate(QStringLiteral("schedule.cosine"), cosine, 1.0, 100, 10, 101), 0.1));
    const QJsonObject warm{{QStringLiteral("warmup_fraction"), 0.1}, {QStringLiteral("min_lr"), 0.0}};
    QVERIFY(qFuzzyCompare(scheduledLearningRate(QStringLiteral("schedule.warmup_cosine"), warm, 1.0, 0, 10, 100), 0.1));
    QVERIFY(qFuzzyCompare(scheduledLearningRate(QStringLiteral("schedule.warmup_cosine"), warm, 1.0, 9, 10, 100), 1.0));
    QVERIFY(qFuzzyCompare(scheduledLearningRate(QStringLiteral("schedule.warmup_cosine"), warm, 1.0, 10, 10, 100), 1.0));
    QVERIFY(scheduledLearningRate(QStringLiteral("schedule.warmup_cosine"), warm, 1.0, 99, 10, 100) < 1e-9);

    // Multi-step: 0.1 at epochs 2 and 5 (10 steps an epoch), milestones in any order.
    const QJsonObject multi{{QStringLiteral("milestones"), QJsonArray{5, 2}}, {QStringLiteral("gamma"), 0.1}};
    QCOMPARE(scheduledLearningRate(QStringLiteral("schedule.multi_step"), multi, 1.0, 19, 10, 100), 1.0);
    QVERIFY(qFuzzyCompare(scheduledLearningRate(QStringLiteral("schedule.multi_step"), multi, 1.0, 20, 10, 100), 0.1));
    QVERIFY(qFuzzyCompare(scheduledLearningRate(QStringLiteral("schedule.multi_step"), multi, 1.0, 49, 10, 100), 0.1));
    QVERIFY(qFuzzyCompare(scheduledLearningRate(QStringLiteral("schedule.multi_step"), multi, 1.0, 50, 10, 100), 0.01));

    // One cycle over 100 steps: 0.04 -> 1 at step 29 (rising), then down to 0.04 / 1e4 at step 99; half way up
    // at the cosine's middle.
    const QJsonObject cycle{{QStringLiteral("pct_start"), 0.3}, {QStringLiteral("div_factor"), 25.0}, {QStringLiteral("final_div_factor"), 1e4}};
    const auto oneCycle = [&](int64_t step) { return scheduledLearningRate(QStringLiteral("schedule.one_cycle"), cycle, 1.0, step, 10, 100); };
    QVERIFY(qFuzzyCompare(oneCycle(0), 0.04));
    QVERIFY(qFuzzyCompare(oneCycle(29), 1.0));
    QVERIFY(qFuzzyCompare(oneCycle(99), 0.04 / 1e4));
    QVERIFY(std::abs(oneCycle(14) - 0.494) < 0.01);  // 1 - 0.96 * (1 + cos(pi * 14 / 29)) / 2
    for (int64_t i = 1; i < 100; ++i)
        QVERIFY2(i <= 29 ? oneCycle(i) > oneCycle(i - 1) : oneCycle(i) < oneCycle(i - 1), qPrintable(QString::number(i)));

    // Warm-up in front of any schedule: 1/4, 2/4, 3/4 of the scheduled rate, then the schedule itself.
    QJsonObject warmStep = step;
    warmStep.insert(QStringLiteral("warmup_steps"), 4);
    QVERIFY(qFuzzyCompare(scheduledLearningRate(QStringLiteral("schedule.step"), warmStep, 1.0, 0, 10, 100), 0.25));
    QVERIFY(qFuzzyCompare(scheduledLearningRate(QStringLiteral("schedule.step"), warmStep, 1.0, 2, 10, 100), 0.75));
    QCOMPARE(scheduledLearningRate(QStringLiteral("schedule.step"), warmStep, 1.0, 4, 10, 100), 1.0);
    QVERIFY(qFuzzyCompare(scheduledLearningRate(QStringLiteral("schedule.step"), warmStep, 1.0, 20, 10, 100), 0.5));
}

// Reduce on plateau, rule by rule (the sequence PyTorch's ReduceLROnPlateau gives for the same settings): patience 2,
// factor 0.5, threshold 1 % of the best, one epoch of cool-down, min_lr 0.2.
void TestTraining::reduceOnPlateauFollowsItsRule()
{
    const ty::detail::EpochScheduleFunction *plateau = ty::detail::epochScheduleFunctions().find(QStringLiteral("schedule.reduce_on_plateau"));
    QVERIFY(plateau);
    const QJsonObject params{{QStringLiteral("metric"), QStringLiteral("val/loss")}, {QStringLiteral("factor"), 0.5},
                             {QStringLiteral("patience"), 2}, {QStringLiteral("threshold"), 0.01},
                             {QStringLiteral("cooldown"), 1}, {QStringLiteral("min_lr"), 0.2}};
    const QList<double> values{1.0, 0.995, 0.99, 0.98, 0.98, 0.98, 0.98, 0.98, 0.98, 0.98, 0.98, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
    // 0.995 and 0.99 do not beat 1.0 by 1 %; after the first cut one epoch cools down; the third cut stops at min_lr; the
    // fourth would change nothing, so it is not made.
    const QList<double> scales{1, 1, 1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.25, 0.2, 0.2, 0.2, 0.2, 0.2};
    ty::detail::PlateauState state;
    int reductions = 0;
    for (int i = 0; i < values.size(); ++i) {
        reductions += (*plateau)(params, {{QStringLiteral("val/loss"), values[i]}}, 1.0, false, state) ? 1 : 0;
        QVERIFY2(qFuzzyCompare(state.scale, scales[i]), qPrintable(QStringLiteral("epoch %1: scale %2").arg(i + 1).arg(state.scale)));
    }
    QCOMPARE(reductions, 3);
    // An epoch without the metric (no validation split) changes nothing; a higher-is-better metric counts rises.
    ty::detail::PlateauState untouched;
    QVERIFY(!(*plateau)(params, {{QStringLiteral("train/loss"), 1.0}}, 1.0, false, untouched));
    QVERIFY(!untouched.hasBest);
    ty::detail::PlateauState rising;
    for (double r2 : {-0.5, -0.2, 0.1, 0.4})
        QVERIFY(!(*plateau)(params, {{QStringLiteral("val/loss"), r2}}, 1.0, true, rising));
    QCOMPARE(rising.best, 0.4);
    QCOMPARE(rising.badEpochs, qint64(0));
}

// In a run: with patience 0 and a threshold no loss can beat, every epoch after the first cuts the rate, which the
// train/lr rows and an lr_reduced event show.
void TestTraining::reduceOnPlateauLowersTheRate()
{
    Preset preset = test::classifierPreset(QStringLiteral("blobs"), QStringLiteral("optimizer.sgd"), 0.1, 4);
    preset.graph.nodes.append(Node{QStringLiteral("plateau"), QStringLiteral("schedule.reduce_on_plateau"),
                                   QJsonObject{{QStringLiteral("patience"), 0}, {QStringLiteral("threshold"), 1.0},
                                               {QStringLiteral("factor"), 0.5}},
                                   {}});
    preset.graph.edges.append(Edge{{QStringLiteral("plateau"), QStringLiteral("schedule")}, {QStringLiteral("opt"), QStringLiteral("schedule")}});
    test::RecordingObserver observer;
    const TrainResult result = Trainer::train(preset, TrainOptions{}, observer);
    QCOMPARE(int(result.outcome), int(TrainOutcome::Finished));
    QMap<int, double> lrByEpoch;
    for (const MetricSample &s : observer.metrics)
        if (s.name == QStringLiteral("train/lr"))
            lrByEpoch.insert(s.epoch, s.value);
    QCOMPARE(lrByEpoch.size(), 4);
    QVERIFY(qFuzzyCompare(lrByEpoch.value(1), 0.1));
    QVERIFY(qFuzzyCompare(lrByEpoch.value(2), 0.1));
    QVERIFY(qFuzzyCompare(lrByEpoch.value(3), 0.05));
    QVERIFY(qFuzzyCompare(lrByEpoch.value(4), 0.025));
    const QStringList reduced = observer.events.filter(QRegularExpression(QStringLiteral("^lr_reduced: ")));
    QCOMPARE(reduced.size(), 3);  // after epochs 2, 3 and 4
    QVERIFY2(reduced.first().contains(QStringLiteral("val/loss did not improve for 1 epoch: learning rate 0.1 -> 0.05")), qPrintable(reduced.first()));
    QVERIFY(result.lastMetrics.value(QStringLiteral("test/accuracy")) > 0.8);
}

// A batch of 32 in 4 parts of 8 takes the step of the whole batch: the same loss and accuracy at every step (a
// batch of 30 in 4 parts: 8, 8, 8, 6, weighted by size), and the same weights at the end, up to float rounding.
void TestTraining::gradientAccumulationMatchesTheWholeBatch()
{
    for (int batch : {32, 30}) {
        auto run = [&](int parts) {
            Preset preset = test::classifierPreset(QStringLiteral("blobs"), QStringLiteral("optimizer.adam"), 0.01, 2);
            preset.training.insert(QStringLiteral("batch_size"), batch);
            preset.training.insert(QStringLiteral("accumulate_steps"), parts);
            preset.training.insert(QStringLiteral("device"), QStringLiteral("cpu"));
            auto observer = std::make_shared<test::RecordingObserver>();
            const TrainResult result = train(preset, *observer);
            if (result.outcome != TrainOutcome::Finished)
                qFatal("%s", qPrintable(result.message));
            return observer;
        };
        const auto whole = run(1), parts = run(4);
        const QList<double> a = whole->values(QStringLiteral("train/loss")), b = parts->values(QStringLiteral("train/loss"));
        QCOMPARE(a.size(), b.size());
        QVERIFY(a.size() > 50);
        for (int i = 0; i < a.size(); ++i)
            QVERIFY2(std::abs(a[i] - b[i]) <= 1e-4 * std::max(1.0, std::abs(a[i])),
                     qPrintable(QStringLiteral("batch %1, step %2: %3 against %4").arg(batch).arg(i + 1).arg(a[i]).arg(b[i])));
        QCOMPARE(whole->values(QStringLiteral("train/accuracy")), parts->values(QStringLiteral("train/accuracy")));
        QVERIFY(whole->values(QStringLiteral("train/accuracy")).last() > 0.8);
    }
    // The parts really run apart: batch norm normalises each part by its own statistics, so with it the steps differ.
    auto withBatchNorm = [](int parts) {
        auto node = [](const char *id, const char *block, const QJsonObject &params = {}) {
            return QJsonObject{{QStringLiteral("id"), QString::fromLatin1(id)}, {QStringLiteral("block"), QString::fromLatin1(block)},
                               {QStringLiteral("params"), params}};
        };
        Preset preset = test::makePreset(
            {node("data", "dataset.synthetic"), node("bn", "layer.batchnorm1d"), node("fc", "layer.linear", {{QStringLiteral("out_features"), 4}}),
             node("loss", "loss.cross_entropy"), node("opt", "optimizer.sgd", {{QStringLiteral("lr"), 0.1}})},
            {QStringLiteral("data.features -> bn.in"), QStringLiteral("bn.out -> fc.in"), QStringLiteral("fc.out -> loss.input"),
             QStringLiteral("data.target -> loss.target"), QStringLiteral("loss.loss -> opt.loss")},
            {{QStringLiteral("epochs"), 1}, {QStringLiteral("batch_size"), 32}, {QStringLiteral("accumulate_steps"), parts},
             {QStringLiteral("device"), QStringLiteral("cpu")}});
        test::RecordingObserver observer;
        const TrainResult result = train(preset, observer);
        return result.outcome == TrainOutcome::Finished ? observer.values(QStringLiteral("train/loss")) : QList<double>{};
    };
    const QList<double> together = withBatchNorm(1), apart = withBatchNorm(4);
    QVERIFY(!together.isEmpty() && together.size() == apart.size());
    QVERIFY(std::abs(together[1] - apart[1]) > 1e-4);
}

// Clamping each value, then scaling to a total norm: gradients [3, 4] and [12] have the norm 13.
void TestTraining::gradientClipping()
{
    const auto withGrad = [](std::vector<float> values) {
        torch::Tensor p = torch::zeros({int64_t(values.size())}, torch::requires_grad());
        p.mutable_grad() = torch::tensor(values);
        return p;
    };
    const auto grads = [](const std::vector<torch::Tensor> &ps) {
        std::vector<float> out;
        for (const torch::Tensor &p : ps)
            for (int64_t i = 0; i < p.numel(); ++i)
                out.push_back(p.grad()[i].item<float>());
        return out;
    };
    const auto near = [](const std::vector<float> &a, const std::vector<float> &b) {
        if (a.size() != b.size())
            return false;
        for (size_t i = 0; i < a.size(); ++i)
            if (std::abs(a[i] - b[i]) > 1e-5f)
                return false;
        return true;
    };
    const torch::Tensor frozen = torch::ones({3});  // no gradient: left out
    std::vector<torch::Tensor> ps{withGrad({3, 4}), withGrad({12}), frozen};
    ty::detail::clipGradients(ps, 0, 100);
    QVERIFY(near(grads({ps[0], ps[1]}), {3, 4, 12}));  // within the bound: unchanged
    ty::detail::clipGradients(ps, 0, 6.5);
    QVERIFY(near(grads({ps[0], ps[1]}), {1.5f, 2, 6}));
    ps = {withGrad({3, -4}), withGrad({12})};
    ty::detail::clipGradients(ps, 2, 0);
    QVERIFY(near(grads(ps), {2, -2, 2}));
    ps = {withGrad({3, 4}), withGrad({12})};
    ty::detail::clipGradients(ps, 2, 1);
    const float third = float(1.0 / std::sqrt(12.0));
    QVERIFY(near(grads(ps), {2 * third, 2 * third, 2 * third}));
}

// The training loop clips: gradients scaled to a norm of 1e-9 leave SGD's loss where it started, while the same
// run without clipping learns.
void TestTraining::clippedTrainingBarelyMoves()
{
    Preset preset = test::classifierPreset(QStringLiteral("blobs"), QStringLiteral("optimizer.sgd"), 0.1, 2);
    preset.training.insert(QStringLiteral("log_every"), 1);
    test::RecordingObserver free;
    QCOMPARE(int(train(preset, free).outcome), int(TrainOutcome::Finished));
    preset.training.insert(QStringLiteral("clip_grad_norm"), 1e-9);
    test::RecordingObserver clipped;
    QCOMPARE(int(train(preset, clipped).outcome), int(TrainOutcome::Finished));
    const QList<double> freeLoss = free.values(QStringLiteral("train/loss")), clippedLoss = clipped.values(QStringLiteral("train/loss"));
    QVERIFY(freeLoss.size() > 10 && clippedLoss.size() == freeLoss.size());
    QCOMPARE(clippedLoss.first(), freeLoss.first());  // the same first batch, before any step
    QVERIFY2(freeLoss.last() < 0.5 * freeLoss.first(), qPrintable(QString::number(freeLoss.last())));
    QVERIFY2(std::abs(clippedLoss.last() - clippedLoss.first()) < 0.2 * clippedLoss.first(), qPrintable(QString::number(clippedLoss.last())));
}

// Mixed precision is for CUDA: on the CPU the run says so and trains in float32, exactly as without it. (Its CUDA
// path, autocast and loss scaling, needs a GPU: see docs/presets.md.)
void TestTraining::mixedPrecisionIsANoticeOnTheCpu()
{
    Preset preset = test::classifierPreset(QStringLiteral("blobs"), QStringLiteral("optimizer.adam"), 0.01, 2);
    test::RecordingObserver plain;
    QCOMPARE(int(Trainer::train(preset, TrainOptions{}, plain).outcome), int(TrainOutcome::Finished));
    preset.training.insert(QStringLiteral("mixed_precision"), true);
    test::RecordingObserver mixed;
    QCOMPARE(int(Trainer::train(preset, TrainOptions{}, mixed).outcome), int(TrainOutcome::Finished));
    QCOMPARE(mixed.events.filter(QStringLiteral("notice: training.mixed_precision applies on CUDA: this run on cpu trains in float32")).size(), 1);
    QCOMPARE(mixed.values(QStringLiteral("train/loss")), plain.values(QStringLiteral("train/loss")));
    QCOMPARE(mixed.values(QStringLiteral("test/accuracy")), plain.values(QStringLiteral("test/accuracy")));
}

void TestTraining::cudaRequestWithoutCudaFails()
{
    if (torch::cuda::is_available())
        QSKIP("this machine has CUDA");
    Preset preset = test::classifierPreset(QStringLiteral("blobs"), QStringLiteral("optimizer.sgd"), 0.1, 1);
    preset.training.insert(QStringLiteral("device"), QStringLiteral("cuda"));
    test::RecordingObserver observer;
    const TrainResult result = train(preset, observer);
    QCOMPARE(int(result.outcome), int(TrainOutcome::Failed));
    QVERIFY2(result.message.contains(QStringLiteral("no CUDA device")), qPrintable(result.message));
    // Checking the preset says so before any training: a warning on the device setting, not an error.
    const ShapeReport report = inspectPreset(preset);
    bool warned = false;
    for (const Issue &issue : report.issues) {
        QVERIFY2(issue.severity != Severity::Error, qPrintable(issue.toString()));
        warned = warned || (issue.param == QStringLiteral("training.device") && issue.message.contains(QStringLiteral("no CUDA")));
    }
    QVERIFY(warned);
}
