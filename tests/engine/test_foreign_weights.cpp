// Another tool's weights (training.init_from with a map), checked against the real thing: PyTorch's own models and
// logits, written by the CTest fixture foreign_weights (make_foreign_weights.py, python3-torch, seeded). Loaded with
// map "sequential", "auto" or an explicit map, from F32, F64, F16 and BF16 files, the network's logits on the fixed
// inputs equal PyTorch's within 1e-4; batch norm's running statistics come too. A run of 0 epochs loads the weights,
// evaluates the test split (PyTorch's accuracy) and writes a checkpoint holding them.

#include "detail/compiled_pipeline.h"
#include "detail/tensor_codec.h"
#include "detail/warm_start.h"
#include "engine_fixtures.h"
#include "preset_dataset.h"
#include "preset_format.h"
#include "required_data.h"
#include "safetensors_file.h"
#include "foreign_weights_fixture.h"
#include "test_suite.h"
#include "trainer.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

using namespace ty;

Q_DECLARE_METATYPE(ty::WeightMap)

namespace {

QString fixture(const QString &name) { return tytest::foreignWeightsFile(name); }

torch::Tensor fixtureTensor(const QString &file, const QString &name)
{
    const Result<TensorFile> read = readSafetensors(fixture(file));
    if (!read || !read.value().find(name))
        qFatal("fixture tensor %s of %s missing", qPrintable(name), qPrintable(file));
    return ty::detail::fromNamedTensor(*read.value().find(name));
}

Preset fixturePreset(const QString &name)
{
    Result<Preset> preset = loadPreset(fixture(name + QStringLiteral(".trainyard.json")));
    if (!preset)
        qFatal("fixture preset: %s", qPrintable(preset.error().toString()));
    return preset.value();
}

// The preset compiled for its data set, with fresh weights (the mlp preset's 0 epochs want an init_from: the
// network alone is compiled here).
ty::detail::CompiledPipeline compiled(Preset preset)
{
    preset.training.insert(QStringLiteral("epochs"), 1);
    const Result<DatasetShape> shape = describeDataset(datasetRequest(preset, *firstDatasetNode(preset)));
    if (!shape)
        qFatal("fixture data: %s", qPrintable(shape.error().toString()));
    torch::manual_seed(5);
    ty::detail::CompiledPipeline pipeline = ty::detail::compilePipeline(preset, shape.value());
    if (!pipeline.report.ok()) {
        for (const Issue &issue : pipeline.report.issues)
            qWarning("%s", qPrintable(issue.toString()));
        qFatal("fixture preset does not compile");
    }
    return pipeline;
}

// The largest absolute difference between the network's output at `node` for `inputs` and `expected`.
double largestDifference(ty::detail::CompiledPipeline &pipeline, const QString &node, const torch::Tensor &inputs, const torch::Tensor &expected)
{
    torch::NoGradGuard noGrad;
    pipeline.model->eval();
    const torch::Tensor logits = pipeline.model->forward(inputs, pipeline.model->slotOf(node));
    if (logits.sizes() != expected.sizes())
        return std::numeric_limits<double>::infinity();
    return (logits - expected).abs().max().item<double>();
}

WeightMap namedMap(const QString &convention)
{
    WeightMap map;
    map.convention = convention;
    return map;
}

WeightMap mlpExplicitMap()
{
    WeightMap map;
    for (const char *layer : {"1", "3", "5"})
        for (const char *leaf : {"weight", "bias"}) {
            const QString network = QStringLiteral("fc%1.%2").arg((QString::fromLatin1(layer).toInt() + 1) / 2).arg(QString::fromLatin1(leaf));
            map.pairs.append({network, QStringLiteral("%1.%2").arg(QString::fromLatin1(layer), QString::fromLatin1(leaf))});
        }
    return map;
}

} // namespace

class TestForeignWeights : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void mlpLogitsEqualPyTorchs_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<WeightMap>("map");
        QTest::addColumn<QString>("logits");
        QTest::newRow("sequential, F32") << QStringLiteral("mlp.safetensors") << namedMap(QStringLiteral("sequential")) << QStringLiteral("logits");
        QTest::newRow("explicit map, F32") << QStringLiteral("mlp.safetensors") << mlpExplicitMap() << QStringLiteral("logits");
        QTest::newRow("auto, F32") << QStringLiteral("mlp.safetensors") << namedMap(QStringLiteral("auto")) << QStringLiteral("logits");
        QTest::newRow("sequential, F64") << QStringLiteral("mlp-f64.safetensors") << namedMap(QStringLiteral("sequential")) << QStringLiteral("logits");
        QTest::newRow("sequential, F16") << QStringLiteral("mlp-f16.safetensors") << namedMap(QStringLiteral("sequential")) << QStringLiteral("logits_f16");
        QTest::newRow("sequential, BF16") << QStringLiteral("mlp-bf16.safetensors") << namedMap(QStringLiteral("sequential")) << QStringLiteral("logits_bf16");
    }

    // The MLP's state_dict into the preset's fc1, fc2, fc3: PyTorch's logits, and a report of six tensors copied.
    void mlpLogitsEqualPyTorchs()
    {
        REQUIRE_FOREIGN_WEIGHTS();
        QFETCH(QString, file);
        QFETCH(WeightMap, map);
        QFETCH(QString, logits);
        ty::detail::CompiledPipeline pipeline = compiled(fixturePreset(QStringLiteral("mlp")));
        const torch::Tensor inputs = fixtureTensor(QStringLiteral("mlp-io.safetensors"), QStringLiteral("inputs"));
        const torch::Tensor expected = fixtureTensor(QStringLiteral("mlp-io.safetensors"), logits);
        QVERIFY(largestDifference(pipeline, QStringLiteral("fc3"), inputs, expected) > 0.05);  // fresh weights are not PyTorch's
        const Result<ty::detail::WarmStartReport> loaded = ty::detail::warmStart(*pipeline.model, WeightImportRequest{fixture(file), map, {}, true});
        QVERIFY2(loaded.ok(), qPrintable(loaded.error().toString()));
        const double difference = largestDifference(pipeline, QStringLiteral("fc3"), inputs, expected);
        QVERIFY2(difference < 1e-4, qPrintable(QString::number(difference)));
        QCOMPARE(loaded.value().copiedNodes, (QStringList{QStringLiteral("fc1"), QStringLiteral("fc2"), QStringLiteral("fc3")}));
        const ImportReport &report = loaded.value().import;
        QCOMPARE(report.copied.size(), 6);
        QCOMPARE(report.copied.at(2).tensor, QStringLiteral("fc2.weight"));
        QCOMPARE(report.copied.at(2).fileTensor, QStringLiteral("3.weight"));
        QVERIFY(report.skipped.isEmpty() && report.missing.isEmpty() && report.mismatched.isEmpty());
    }

    void cnnLogitsEqualPyTorchs_data()
    {
        QTest::addColumn<bool>("explicitMap");
        QTest::newRow("sequential") << false;
        QTest::newRow("the preset's explicit map") << true;
    }

    // The CNN with batch norm: its running statistics are loaded (PyTorch evaluates with them), its count of
    // batches is skipped, and the logits are PyTorch's.
    void cnnLogitsEqualPyTorchs()
    {
        REQUIRE_FOREIGN_WEIGHTS();
        QFETCH(bool, explicitMap);
        const Preset preset = fixturePreset(QStringLiteral("cnn"));
        const std::optional<InitFrom> init = initFrom(preset);
        QVERIFY(init && init->map.isExplicit());
        QCOMPARE(init->file, fixture(QStringLiteral("cnn.safetensors")));  // relative to the preset
        ty::detail::CompiledPipeline pipeline = compiled(preset);
        const Result<ty::detail::WarmStartReport> loaded = ty::detail::warmStart(
            *pipeline.model, WeightImportRequest{init->file, explicitMap ? init->map : namedMap(QStringLiteral("sequential")), {}, true});
        QVERIFY2(loaded.ok(), qPrintable(loaded.error().toString()));
        const double difference = largestDifference(pipeline, QStringLiteral("fc"), fixtureTensor(QStringLiteral("cnn-io.safetensors"), QStringLiteral("inputs")),
                                                    fixtureTensor(QStringLiteral("cnn-io.safetensors"), QStringLiteral("logits")));
        QVERIFY2(difference < 1e-4, qPrintable(QString::number(difference)));
        const ImportReport &report = loaded.value().import;
        QCOMPARE(report.copied.size(), 14);
        QStringList skipped;
        for (const ImportEntry &e : report.skipped)
            skipped << e.fileTensor + QStringLiteral(": ") + e.reason;
        QCOMPARE(skipped, (QStringList{QStringLiteral("1.num_batches_tracked: batch norm's count of batches, not needed"),
                                       QStringLiteral("5.num_batches_tracked: batch norm's count of batches, not needed")}));
        bool runningMean = false;
        for (const ImportEntry &e : report.copied)
            runningMean = runningMean || (e.tensor == QStringLiteral("bn2.running_mean") && e.fileTensor == QStringLiteral("5.running_mean"));
        QVERIFY(runningMean);
    }

    // Zero epochs: the weights are loaded, the test split evaluated (PyTorch's accuracy on it), nothing trained,
    // and the final checkpoint holds the imported weights. Without init_from, 0 epochs is refused.
    void zeroEpochsEvaluatesTheImportedWeights()
    {
        REQUIRE_FOREIGN_WEIGHTS();
        QTemporaryDir dir;
        const Preset preset = fixturePreset(QStringLiteral("cnn"));
        test::RecordingObserver observer;
        const TrainResult result = Trainer::train(preset, TrainOptions{dir.path(), {}, {}}, observer);
        QCOMPARE(int(result.outcome), int(TrainOutcome::Finished));
        QCOMPARE(result.steps, qint64(0));
        QCOMPARE(result.epochs, 0);
        QCOMPARE(observer.start.importReport.value(QStringLiteral("counts")).toObject().value(QStringLiteral("copied")).toInt(), 14);
        QVERIFY(observer.start.importLines.first().startsWith(QStringLiteral("import from cnn.safetensors (map explicit, strict): 14 copied, 2 skipped")));
        // PyTorch's accuracy on the same 24 images (labels i mod 3).
        const torch::Tensor logits = fixtureTensor(QStringLiteral("cnn-io.safetensors"), QStringLiteral("logits"));
        const torch::Tensor labels = torch::arange(logits.size(0)) % 3;
        const double accuracy = (logits.argmax(1) == labels).to(torch::kDouble).mean().item<double>();
        QVERIFY(result.testEvaluation);
        QCOMPARE(result.lastMetrics.value(QStringLiteral("test/accuracy")), accuracy);
        QVERIFY(observer.values(QStringLiteral("train/loss")).isEmpty());
        QCOMPARE(observer.checkpoints.size(), 1);
        const Result<TensorFile> checkpoint = readSafetensors(observer.checkpoints.first().path);
        QVERIFY(checkpoint.ok());
        const torch::Tensor saved = ty::detail::fromNamedTensor(*checkpoint.value().find(QStringLiteral("bn1.running_var")));
        QVERIFY(torch::equal(saved, fixtureTensor(QStringLiteral("cnn.safetensors"), QStringLiteral("1.running_var"))));

        Preset noSource = preset;
        noSource.training.remove(QStringLiteral("init_from"));
        const Result<std::unique_ptr<PreparedTraining>> refused = Trainer::prepare(noSource, TrainOptions{});
        QVERIFY(!refused.ok());
        QCOMPARE(refused.error().field, QStringLiteral("training.epochs"));
    }

    // A strict import of a network that does not fit refuses, naming the tensor, and the model keeps its weights;
    // a pickled file is refused by its first bytes.
    void refusalsNameTheTensorAndChangeNothing()
    {
        REQUIRE_FOREIGN_WEIGHTS();
        Preset preset = fixturePreset(QStringLiteral("mlp"));
        preset.graph.node(QStringLiteral("fc2"))->params.insert(QStringLiteral("out_features"), 10);
        ty::detail::CompiledPipeline pipeline = compiled(preset);
        std::vector<torch::Tensor> before;
        for (const torch::Tensor &p : pipeline.model->parameters())
            before.push_back(p.clone());
        const Result<ty::detail::WarmStartReport> refused = ty::detail::warmStart(
            *pipeline.model, WeightImportRequest{fixture(QStringLiteral("mlp.safetensors")), namedMap(QStringLiteral("sequential")), {}, true});
        QVERIFY(!refused.ok());
        QCOMPARE(refused.error().node, QStringLiteral("fc2"));
        QVERIFY2(refused.error().message.contains(QStringLiteral("fc2.weight is F32 [10, 16] here, but the file's 3.weight is F32 [12, 16]")),
                 qPrintable(refused.error().message));
        const std::vector<torch::Tensor> after = pipeline.model->parameters();
        for (size_t i = 0; i < after.size(); ++i)
            QVERIFY(torch::equal(after[i], before[i]));

        for (const char *pickle : {"mlp.pt", "mlp-legacy.pth"}) {
            const Result<ty::detail::WarmStartReport> pickled = ty::detail::warmStart(
                *pipeline.model, WeightImportRequest{fixture(QString::fromLatin1(pickle)), namedMap(QStringLiteral("sequential")), {}, true});
            QVERIFY(!pickled.ok());
            QVERIFY2(pickled.error().message.contains(QStringLiteral("a pickled PyTorch file")), qPrintable(pickled.error().message));
        }
    }
};

TY_TEST_CLASS(TestForeignWeights)
#include "test_foreign_weights.moc"
