// The model library (presets/models/): ResNet-18, ResNet-34, VGG-11 with batch norm and MobileNetV2 have
// torchvision's parameter counts, by the shape rules (what `validate` shows) and by the built modules; torchvision's
// own models with seeded random weights (the CTest fixture torchvision_weights, make_torchvision_weights.py) load
// with map "torchvision", batch norm's running statistics included, and give torchvision's logits within 1e-4; and
// each preset trains a step at a small input size.

#include "detail/compiled_pipeline.h"
#include "detail/tensor_codec.h"
#include "detail/warm_start.h"
#include "engine_fixtures.h"
#include "preset_dataset.h"
#include "preset_format.h"
#include "preset_inspection.h"
#include "preset_overrides.h"
#include "required_data.h"
#include "safetensors_file.h"
#include "test_suite.h"
#include "trainer.h"

#include <QDir>
#include <QFile>
#include <QtTest>

#include <cmath>

using namespace ty;

namespace {

QString weightsFile(const QString &name) { return QDir(QStringLiteral(TRAINYARD_TORCHVISION_WEIGHTS_DIR)).filePath(name); }

// Why the fixture's files are not there (empty when they are).
QString weightsMissing()
{
    if (QFile::exists(weightsFile(QStringLiteral("done"))))
        return QString();
    QFile unavailable(weightsFile(QStringLiteral("unavailable")));
    if (unavailable.open(QIODevice::ReadOnly))
        return QString::fromUtf8(unavailable.readAll()).trimmed();
    return QStringLiteral("the fixture has not run: ctest -R torchvision_weights and the test");
}

Preset model(const QString &file, const QStringList &overrides)
{
    Result<Preset> preset = loadPreset(QStringLiteral(TRAINYARD_SOURCE_DIR "/presets/models/%1.trainyard.json").arg(file));
    if (!preset)
        qFatal("%s", qPrintable(preset.error().toString()));
    const Status applied = applyOverrides(&preset.value(), overrides);
    if (!applied.ok())
        qFatal("%s", qPrintable(applied.error().toString()));
    return preset.value();
}

ty::detail::CompiledPipeline compiledPreset(const Preset &preset)
{
    const Result<DatasetShape> shape = describeDataset(datasetRequest(preset, *firstDatasetNode(preset)));
    if (!shape)
        qFatal("%s", qPrintable(shape.error().toString()));
    torch::manual_seed(5);
    ty::detail::CompiledPipeline pipeline = ty::detail::compilePipeline(preset, shape.value());
    if (!pipeline.report.ok()) {
        for (const Issue &issue : pipeline.report.issues)
            qWarning("%s", qPrintable(issue.toString()));
        qFatal("the model library's preset does not compile");
    }
    return pipeline;
}

torch::Tensor torchvisionTensor(const QString &file, const QString &name)
{
    const Result<TensorFile> read = readSafetensors(weightsFile(file));
    if (!read || !read.value().find(name))
        qFatal("fixture tensor %s of %s missing", qPrintable(name), qPrintable(file));
    return ty::detail::fromNamedTensor(*read.value().find(name));
}

} // namespace

class TestModelLibrary : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // torchvision 0.14's counts (sum of p.numel() over model.parameters(), weights=None), for 1,000 and 10 classes.
    void parameterCountsAreTorchvisions_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("node");
        QTest::addColumn<qint64>("imagenet");
        QTest::addColumn<qint64>("tenClasses");
        QTest::newRow("resnet18") << "resnet18" << "resnet18" << qint64(11689512) << qint64(11181642);
        QTest::newRow("resnet34") << "resnet34" << "resnet34" << qint64(21797672) << qint64(21289802);
        QTest::newRow("vgg11_bn") << "vgg11-bn" << "vgg11_bn" << qint64(132868840) << qint64(128812810);
        QTest::newRow("mobilenet_v2") << "mobilenet-v2" << "mobilenet_v2" << qint64(3504872) << qint64(2236682);
    }

    void parameterCountsAreTorchvisions()
    {
        QFETCH(QString, file);
        QFETCH(QString, node);
        QFETCH(qint64, imagenet);
        QFETCH(qint64, tenClasses);
        const ShapeReport bundled = inspectPresetShapes(model(file, {}));
        QVERIFY2(bundled.ok(), qPrintable(bundled.issues.isEmpty() ? QString() : bundled.issues.first().toString()));
        QCOMPARE(bundled.totalParams, imagenet);
        const Preset ten = model(file, {node + QStringLiteral(".num_classes=10"), QStringLiteral("data.classes=10")});
        QCOMPARE(inspectPresetShapes(ten).totalParams, tenClasses);
        // The built modules agree (VGG's 129 million at 10 classes: its classifier is most of it).
        ty::detail::CompiledPipeline pipeline = compiledPreset(ten);
        qint64 built = 0;
        for (const torch::Tensor &p : pipeline.model->parameters())
            built += p.numel();
        QCOMPARE(built, tenClasses);
    }

    void logitsAreTorchvisions_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("node");
        QTest::addColumn<QString>("head");
        QTest::newRow("resnet18") << "resnet18" << "resnet18" << "resnet18/fc";
        QTest::newRow("resnet34") << "resnet34" << "resnet34" << "resnet34/fc";
        QTest::newRow("mobilenet_v2") << "mobilenet-v2" << "mobilenet_v2" << "mobilenet_v2/classifier_1";
    }

    // torchvision's model with seeded random weights (batch norm's statistics random too), 10 classes, on four
    // 64 x 64 images: every tensor of the file is copied but num_batches_tracked, and the logits are torchvision's.
    void logitsAreTorchvisions()
    {
        if (const QString missing = weightsMissing(); !missing.isEmpty()) {
            qWarning("%s", qPrintable(missing));
            TY_SKIP_WITHOUT_DATA("the torchvision_weights fixture needs python3-torch and python3-torchvision");
        }
        QFETCH(QString, file);
        QFETCH(QString, node);
        QFETCH(QString, head);
        ty::detail::CompiledPipeline pipeline =
            compiledPreset(model(file, {node + QStringLiteral(".num_classes=10"), QStringLiteral("data.classes=10"), QStringLiteral("data.features=64")}));
        const QString io = node + QStringLiteral("-io.safetensors");
        const torch::Tensor inputs = torchvisionTensor(io, QStringLiteral("inputs"));
        const torch::Tensor expected = torchvisionTensor(io, QStringLiteral("logits"));
        const auto difference = [&] {
            torch::NoGradGuard noGrad;
            pipeline.model->eval();
            const torch::Tensor logits = pipeline.model->forward(inputs, pipeline.model->slotOf(head));
            return logits.sizes() == expected.sizes() ? (logits - expected).abs().max().item<double>() : HUGE_VAL;
        };
        QVERIFY(difference() > 1e-2);  // fresh weights are not torchvision's

        WeightMap map;
        map.convention = QStringLiteral("torchvision");
        const Result<ty::detail::WarmStartReport> loaded =
            ty::detail::warmStart(*pipeline.model, WeightImportRequest{weightsFile(node + QStringLiteral(".safetensors")), map, {}, true});
        QVERIFY2(loaded.ok(), qPrintable(loaded.error().toString()));
        const ImportReport &report = loaded.value().import;
        QVERIFY(report.missing.isEmpty() && report.mismatched.isEmpty());
        const Result<TensorFile> header = readSafetensors(weightsFile(node + QStringLiteral(".safetensors")));
        QVERIFY(header.ok());
        int batchCounts = 0;
        for (const NamedTensor &t : header.value().tensors)
            batchCounts += t.name.endsWith(QStringLiteral(".num_batches_tracked"));
        QVERIFY(batchCounts > 0);
        QCOMPARE(report.copied.size(), header.value().tensors.size() - batchCounts);
        QCOMPARE(report.skipped.size(), batchCounts);
        bool runningStatistics = false;
        for (const ImportEntry &e : report.copied)
            runningStatistics = runningStatistics || e.fileTensor.endsWith(QStringLiteral(".running_var"));
        QVERIFY(runningStatistics);

        const double largest = difference();
        qInfo("%s: %lld tensors copied, max |Trainyard - torchvision| = %.3g over logits up to %.3g", qPrintable(node),
              static_cast<long long>(report.copied.size()), largest, expected.abs().max().item<double>());
        QVERIFY2(largest < 1e-4, qPrintable(QString::number(largest)));
    }

    void trainsAtASmallSize_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QStringList>("overrides");
        const QStringList small{QStringLiteral("data.features=32"), QStringLiteral("data.samples=16"), QStringLiteral("data.test_samples=8"),
                                QStringLiteral("data.val_count=4"), QStringLiteral("data.classes=10"), QStringLiteral("training.batch_size=6"), QStringLiteral("training.device=cpu")};
        QTest::newRow("resnet18") << "resnet18" << (small + QStringList{QStringLiteral("resnet18.num_classes=10")});
        QTest::newRow("resnet34") << "resnet34" << (small + QStringList{QStringLiteral("resnet34.num_classes=10")});
        QTest::newRow("vgg11_bn") << "vgg11-bn" << (small + QStringList{QStringLiteral("vgg11_bn.num_classes=10"), QStringLiteral("vgg11_bn.pool_size=1")});
        QTest::newRow("mobilenet_v2") << "mobilenet-v2" << (small + QStringList{QStringLiteral("mobilenet_v2.num_classes=10")});
    }

    // One epoch of two steps (12 training images of 32 x 32): the run finishes with finite losses.
    void trainsAtASmallSize()
    {
        QFETCH(QString, file);
        QFETCH(QStringList, overrides);
        test::RecordingObserver observer;
        const TrainResult result = Trainer::train(model(file, overrides), TrainOptions{}, observer);
        QVERIFY2(result.outcome == TrainOutcome::Finished, qPrintable(result.message));
        QCOMPARE(result.steps, qint64(2));
        const QList<double> losses = observer.values(QStringLiteral("train/loss"));
        QCOMPARE(losses.size(), 2);
        for (double loss : losses)
            QVERIFY(std::isfinite(loss));
        QVERIFY(std::isfinite(result.lastMetrics.value(QStringLiteral("test/loss"))));
    }
};

TY_TEST_CLASS(TestModelLibrary)

#include "test_model_library.moc"
