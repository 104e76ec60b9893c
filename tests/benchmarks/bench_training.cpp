// Training throughput: the engine (data path, trainer, metrics to the database) against a hand-written
// LibTorch loop and a plain PyTorch script, on the bundled MLP and CNN presets.

#include "bench_sections.h"
#include "dataset_loader.h"
#include "engine_run.h"
#include "hand_written_loop.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

namespace ty::bench {

namespace {

// Fashion-MNIST's training images as the engine sees them: [N,1,28,28] floats in [0,1], labels [N].
std::pair<torch::Tensor, torch::Tensor> fashionMnistTensors()
{
    Result<LoadedDataset> loaded = loadDataset(DatasetRequest{
        QStringLiteral("dataset.fashion_mnist"), QStringLiteral("data"),
        QJsonObject{{QStringLiteral("dir"), QStringLiteral("/usr/share/datasets/fashion-mnist")}, {QStringLiteral("val_fraction"), 0.0},
                    {QStringLiteral("val_count"), 0}, {QStringLiteral("limit"), 0}, {QStringLiteral("test_limit"), 0},
                    {QStringLiteral("split_seed"), 0}},
        QString()});
    if (!loaded)
        qFatal("cannot read Fashion-MNIST: %s", qPrintable(loaded.error().toString()));
    const DataSplit &train = loaded.value().train;
    torch::Tensor x = torch::from_blob(const_cast<uint8_t *>(train.x.bytes.data()), {train.x.count, 1, 28, 28}, torch::kUInt8)
                          .to(torch::kFloat)
                          .mul_(train.x.scale);
    torch::Tensor y = torch::from_blob(const_cast<int64_t *>(train.y.classes.data()), {train.y.count}, torch::kLong).clone();
    return {x, y};
}

double pytorchSamplesPerSecond(const QString &kind, int batch, int warmup, int steps, const QString &device)
{
    // Debian's python3-torch by default; TRAINYARD_BENCH_PYTHON names another interpreter (a CUDA PyTorch's).
    const QString interpreter = qEnvironmentVariableIsEmpty("TRAINYARD_BENCH_PYTHON")
        ? QStringLiteral("/usr/bin/python3") : qEnvironmentVariable("TRAINYARD_BENCH_PYTHON");
    QProcess python;
    python.start(interpreter,
                 {QStringLiteral(TRAINYARD_SOURCE_DIR "/tests/benchmarks/pytorch_reference.py"), QStringLiteral("--model"), kind,
                  QStringLiteral("--batch"), QString::number(batch), QStringLiteral("--warmup"), QString::number(warmup),
                  QStringLiteral("--steps"), QString::number(steps), QStringLiteral("--device"), device});
    if (!python.waitForFinished(-1) || python.exitCode() != 0) {
        std::fprintf(stderr, "pytorch_reference.py failed (python3-torch installed?): %s\n", python.readAllStandardError().constData());
        return 0;
    }
    return QJsonDocument::fromJson(python.readAllStandardOutput()).object().value(QStringLiteral("samples_per_second")).toDouble();
}

struct Case {
    QString label;     // "MLP, batch 128"
    QString preset;    // bundled preset name
    QString kind;      // mlp or cnn
    int batch;
    int steps;
    double vsScript;   // target against the PyTorch script
};

} // namespace

void benchTraining(const Options &options, Report &report)
{
    const auto [x, y] = fashionMnistTensors();
    const QList<Case> cases{
        {QStringLiteral("MLP, batch 128"), QStringLiteral("fashion-mnist-mlp"), QStringLiteral("mlp"), 128, options.quick ? 100 : 400, 1.3},
        {QStringLiteral("MLP, batch 16"), QStringLiteral("fashion-mnist-mlp"), QStringLiteral("mlp"), 16, options.quick ? 300 : 1500, 1.5},
        {QStringLiteral("CNN, batch 128"), QStringLiteral("fashion-mnist-cnn"), QStringLiteral("cnn"), 128, options.quick ? 10 : 60, 1.0},
    };
    for (const Case &c : cases) {
        // A GPU runs the CNN's steps about as fast as the MLP's: as many steps, so the timing is not a few ms.
        const int steps = options.device == QStringLiteral("cpu") ? c.steps : std::max(c.steps, options.quick ? 100 : 400);
        const int warmup = std::max(5, steps / 10);
        const int repeats = c.kind == QStringLiteral("cnn") ? 1 : options.repeats;
        std::fprintf(stderr, "training: %s\n", qPrintable(c.label));
        // Interleaved, so that the three see the same machine (a loaded one changes speed by 2x within minutes).
        double engine = 0, hand = 0, script = 0;
        for (int i = 0; i < repeats; ++i) {
            engine = std::max(engine, engineSamplesPerSecond(c.preset, c.batch, warmup, steps, true, options.device));
            hand = std::max(hand, handWrittenSamplesPerSecond(c.kind, x, y, c.batch, warmup, steps, options.device));
            script = std::max(script, pytorchSamplesPerSecond(c.kind, c.batch, warmup, steps, options.device));
        }
        report.add(QStringLiteral("training"), c.label + QStringLiteral(": engine"), engine, QStringLiteral("samples/s"));
        report.add(QStringLiteral("training"), c.label + QStringLiteral(": hand-written LibTorch"), hand, QStringLiteral("samples/s"));
        report.add(QStringLiteral("training"), c.label + QStringLiteral(": PyTorch script"), script, QStringLiteral("samples/s"));
        report.addRatio(QStringLiteral("training"), c.label + QStringLiteral(": engine / hand-written"), engine / hand, 0.97);
        if (script > 0)
            report.addRatio(QStringLiteral("training"), c.label + QStringLiteral(": engine / PyTorch script"), engine / script, c.vsScript);
    }
}

} // namespace ty::bench
