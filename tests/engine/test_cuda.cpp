// What only a GPU can show: mixed precision on CUDA, and distributed runs on CUDA through Gloo and NCCL. Every
// row skips without a CUDA device (CI has none), except the Gloo rows on the CPU, which check the same where they
// can always run. Run on a lent GPU machine by tests/gpu/run_on_gpu.sh.

#include "engine_fixtures.h"
#include "free_port.h"
#include "test_suite.h"

#include "detail/collectives.h"
#include "detail/gradient_reducer.h"
#include "distributed.h"
#include "safetensors_file.h"

#include <QCoreApplication>
#include <QtTest>

#include <cmath>
#include <thread>

using namespace ty;

namespace {

double relativeDifference(double a, double b)
{
    return std::abs(a - b) / std::max(1e-12, std::abs(b));
}

// Rank `rank` of a group of two in this process (one thread each), meeting at `port`.
DistributedSetup rankOfTwo(int rank, int port)
{
    DistributedSetup setup;
    setup.rank = rank;
    setup.worldSize = 2;
    setup.localRank = rank;
    setup.localWorldSize = 2;
    setup.masterPort = port;
    setup.launcher = QStringLiteral("test");
    return setup;
}

} // namespace

class TestCuda : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void mixedPrecisionTrainsOnCuda();
    void mixedPrecisionResumesWithItsLossScale();
    void groupOfOneTrainsLikeOneProcess_data();
    void groupOfOneTrainsLikeOneProcess();
    void twoRanksExchangeTheRightValues_data();
    void twoRanksExchangeTheRightValues();
    void gradientsAreSummedDuringTheBackwardPass_data();
    void gradientsAreSummedDuringTheBackwardPass();
};

// Autocast really runs (the first loss, before any step, differs from float32's in its low digits), and the run
// with loss scaling learns as well as float32 does.
void TestCuda::mixedPrecisionTrainsOnCuda()
{
    if (!torch::cuda::is_available())
        QSKIP("no CUDA device");
    Preset preset = test::classifierPreset(QStringLiteral("images"), QStringLiteral("optimizer.adam"), 0.01, 4);
    preset.training.insert(QStringLiteral("device"), QStringLiteral("cuda"));
    preset.training.insert(QStringLiteral("log_every"), 1);
    test::RecordingObserver plain;
    QCOMPARE(int(Trainer::train(preset, TrainOptions{}, plain).outcome), int(TrainOutcome::Finished));
    preset.training.insert(QStringLiteral("mixed_precision"), true);
    test::RecordingObserver mixed;
    QCOMPARE(int(Trainer::train(preset, TrainOptions{}, mixed).outcome), int(TrainOutcome::Finished));
    QVERIFY2(mixed.events.filter(QStringLiteral("mixed_precision")).isEmpty(), qPrintable(mixed.events.join(QLatin1Char('\n'))));
    // The speed report holds the caching allocator's peak: more than the weights and a batch, less than the GPU.
    const QList<double> gpuPeak = plain.speedValues(QStringLiteral("speed/peak_cuda_mb"));
    QVERIFY2(!gpuPeak.isEmpty() && gpuPeak.last() > 0.01 && gpuPeak.last() < 1e6,
             qPrintable(QStringLiteral("%1 reports, last %2 MB").arg(gpuPeak.size()).arg(gpuPeak.value(gpuPeak.size() - 1))));

    const QList<double> plainLoss = plain.values(QStringLiteral("train/loss")), mixedLoss = mixed.values(QStringLiteral("train/loss"));
    QVERIFY(plainLoss.size() > 100 && mixedLoss.size() == plainLoss.size());
    QVERIFY2(mixedLoss.first() != plainLoss.first(), "the same first loss to the last bit: autocast did not run");
    QVERIFY2(relativeDifference(mixedLoss.first(), plainLoss.first()) < 1e-2,
             qPrintable(QStringLiteral("%1 against %2").arg(mixedLoss.first()).arg(plainLoss.first())));
    for (double loss : mixedLoss)
        QVERIFY(std::isfinite(loss));
    const double plainAccuracy = plain.values(QStringLiteral("test/accuracy")).value(0);
    const double mixedAccuracy = mixed.values(QStringLiteral("test/accuracy")).value(0);
    QVERIFY2(mixedAccuracy > 0.6 && mixedAccuracy > plainAccuracy - 0.03,
             qPrintable(QStringLiteral("mixed %1, float32 %2 (chance 0.25)").arg(mixedAccuracy).arg(plainAccuracy)));
}

// A run resumed under mixed precision goes on with its loss scale. The loss's weight of 1,000 makes the first
// steps' float16 gradients overflow, so the scale backs off from 65,536 before the stop; a resumed run that started
// again at 65,536 would skip steps that the uninterrupted run took.
void TestCuda::mixedPrecisionResumesWithItsLossScale()
{
    if (!torch::cuda::is_available())
        QSKIP("no CUDA device");
    Preset preset = test::regressionPreset(QStringLiteral("loss.mse"), 0.01, 2);
    for (Node &node : preset.graph.nodes)
        if (node.id == QLatin1String("loss"))
            node.params.insert(QStringLiteral("weight"), 1000.0);
    preset.training.insert(QStringLiteral("device"), QStringLiteral("cuda"));
    preset.training.insert(QStringLiteral("mixed_precision"), true);
    preset.training.insert(QStringLiteral("log_every"), 1);

    QTemporaryDir whole, parts;
    test::RecordingObserver uninterrupted;
    QCOMPARE(int(Trainer::train(preset, TrainOptions{whole.path(), {}, {}}, uninterrupted).outcome), int(TrainOutcome::Finished));
    test::RecordingObserver first;
    first.stopAfterPolls = 20;
    const TrainResult stopped = Trainer::train(preset, TrainOptions{parts.path(), {}, {}}, first);
    QCOMPARE(int(stopped.outcome), int(TrainOutcome::Stopped));
    const Result<TensorFile> checkpoint = readSafetensors(stopped.finalCheckpoint);
    QVERIFY2(checkpoint, qPrintable(checkpoint ? QString() : checkpoint.error().toString()));
    const double scale = checkpoint.value().metadata.value(QStringLiteral("loss_scale")).toDouble();
    QVERIFY2(scale > 0 && scale < 65536, qPrintable(QStringLiteral("loss scale at the stop: %1 (the test needs overflowing steps "
                                                                   "before it)").arg(scale)));
    test::RecordingObserver second;
    QCOMPARE(int(Trainer::train(preset, TrainOptions{parts.path(), {}, stopped.finalCheckpoint}, second).outcome),
             int(TrainOutcome::Finished));
    const QList<double> wholeLoss = uninterrupted.values(QStringLiteral("train/loss")), resumed = second.values(QStringLiteral("train/loss"));
    QVERIFY(resumed.size() > 20 && wholeLoss.size() == resumed.size() + 20);
    for (int i = 0; i < resumed.size(); ++i)
        QVERIFY2(relativeDifference(resumed[i], wholeLoss[i + 20]) < 1e-4,
                 qPrintable(QStringLiteral("step %1: %2 resumed against %3").arg(i + 21).arg(resumed[i]).arg(wholeLoss[i + 20])));
}

void TestCuda::groupOfOneTrainsLikeOneProcess_data()
{
    QTest::addColumn<QString>("backend");
    QTest::addColumn<QString>("device");
    QTest::newRow("gloo on the cpu") << QStringLiteral("gloo") << QStringLiteral("cpu");
    QTest::newRow("gloo on cuda") << QStringLiteral("gloo") << QStringLiteral("cuda");
    QTest::newRow("nccl on cuda") << QStringLiteral("nccl") << QStringLiteral("cuda");
}

// A process group of one goes through every collective of a distributed run (sums of host and device tensors,
// broadcast, gathered rows) with nothing to add: its training must match a run without a group.
void TestCuda::groupOfOneTrainsLikeOneProcess()
{
    QFETCH(QString, backend);
    QFETCH(QString, device);
    if (device == QLatin1String("cuda") && !torch::cuda::is_available())
        QSKIP("no CUDA device");
    DistributedSetup setup;
    const tytest::ReservedPort reserved;
    setup.masterPort = reserved.number();
    setup.launcher = QStringLiteral("test");
    const Result<std::shared_ptr<ProcessGroup>> group = ProcessGroup::connect(setup, 60, backend, device);
    if (!group && backend == QLatin1String("nccl") && group.error().message.contains(QStringLiteral("has no NCCL")))
        QSKIP("this build has no NCCL");
    QVERIFY2(group, qPrintable(group ? QString() : group.error().toString()));
    QCOMPARE(group.value()->backend(), backend);

    ty::detail::Collectives &collectives = group.value()->collectives();
    const torch::Device where = device == QLatin1String("cuda") ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
    torch::Tensor onHost = torch::arange(6, torch::kDouble), onDevice = torch::arange(5, torch::kFloat).to(where);
    collectives.sum({onHost, onDevice});
    QVERIFY(torch::equal(onHost, torch::arange(6, torch::kDouble)));
    QVERIFY(torch::equal(onDevice.cpu(), torch::arange(5, torch::kFloat)));
    const torch::Tensor rows = collectives.gatherRows(torch::ones({3, 2}, torch::TensorOptions().device(where)));
    QCOMPARE(rows.device(), where);
    QCOMPARE(rows.size(0), int64_t(3));

    Preset preset = test::classifierPreset(QStringLiteral("blobs"), QStringLiteral("optimizer.sgd"), 0.1, 2);
    preset.training.insert(QStringLiteral("device"), device);
    preset.training.insert(QStringLiteral("log_every"), 1);
    test::RecordingObserver alone;
    QCOMPARE(int(Trainer::train(preset, TrainOptions{}, alone).outcome), int(TrainOutcome::Finished));
    TrainOptions options;
    options.group = group.value();
    test::RecordingObserver grouped;
    QCOMPARE(int(Trainer::train(preset, options, grouped).outcome), int(TrainOutcome::Finished));
    const QList<double> a = alone.values(QStringLiteral("train/loss")), g = grouped.values(QStringLiteral("train/loss"));
    QVERIFY(a.size() > 50 && g.size() == a.size());
    for (int i = 0; i < a.size(); ++i)
        QVERIFY2(relativeDifference(g[i], a[i]) < 1e-5, qPrintable(QStringLiteral("step %1: %2 against %3").arg(i + 1).arg(g[i]).arg(a[i])));
    QCOMPARE(grouped.values(QStringLiteral("test/accuracy")), alone.values(QStringLiteral("test/accuracy")));
}

void TestCuda::twoRanksExchangeTheRightValues_data()
{
    QTest::addColumn<QString>("device");
    QTest::newRow("gloo on the cpu") << QStringLiteral("cpu");
    QTest::newRow("gloo on cuda") << QStringLiteral("cuda");
}

// Two ranks in two threads of this process, on Gloo: every exchange gives both the values of both. (NCCL would need
// two GPUs: it refuses two ranks on one.)
void TestCuda::twoRanksExchangeTheRightValues()
{
    QFETCH(QString, device);
    if (device == QLatin1String("cuda") && !torch::cuda::is_available())
        QSKIP("no CUDA device");
    const torch::Device where = device == QLatin1String("cuda") ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
    const tytest::ReservedPort reserved;
    const int port = reserved.number();
    struct Outcome {
        QString error, backend;
        torch::Tensor host, onDevice, broadcast, rows;
    };
    Outcome outcomes[2];
    auto rank = [&](int r) {
        const DistributedSetup setup = rankOfTwo(r, port);
        Outcome &out = outcomes[r];
        // Rank 1 asks for auto (which on a machine with two GPUs and NCCL would be NCCL): rank 0's Gloo is taken.
        const Result<std::shared_ptr<ProcessGroup>> group =
            ProcessGroup::connect(setup, 60, r == 0 ? QStringLiteral("gloo") : QStringLiteral("auto"), device);
        if (!group) {
            out.error = group.error().toString();
            return;
        }
        out.backend = group.value()->backend();
        ty::detail::Collectives &collectives = group.value()->collectives();
        out.host = torch::full({3}, double(r + 1), torch::kDouble);
        out.onDevice = torch::full({2}, float(10 * (r + 1)), torch::TensorOptions().device(where));
        collectives.sum({out.host, out.onDevice});
        out.broadcast = torch::full({4}, float(r + 5), torch::TensorOptions().device(where));
        collectives.broadcast({out.broadcast});
        out.rows = collectives.gatherRows(torch::full({r + 1, 2}, float(r), torch::TensorOptions().device(where)));
    };
    std::thread other(rank, 1);
    rank(0);
    other.join();
    const torch::Tensor expectedRows = torch::tensor({0.0f, 0.0f, 1.0f, 1.0f, 1.0f, 1.0f}).view({3, 2});
    for (const Outcome &out : outcomes) {
        QVERIFY2(out.error.isEmpty(), qPrintable(out.error));
        QCOMPARE(out.backend, QStringLiteral("gloo"));
        QVERIFY(torch::equal(out.host, torch::full({3}, 3.0, torch::kDouble)));
        QCOMPARE(out.onDevice.device(), where);
        QVERIFY(torch::equal(out.onDevice.cpu(), torch::full({2}, 30.0f)));
        QVERIFY(torch::equal(out.broadcast.cpu(), torch::full({4}, 5.0f)));
        QCOMPARE(out.rows.device(), where);
        QVERIFY2(torch::equal(out.rows.cpu(), expectedRows), qPrintable(QString::fromStdString(c10::str(out.rows))));
    }
}

void TestCuda::gradientsAreSummedDuringTheBackwardPass_data()
{
    twoRanksExchangeTheRightValues_data();
}

namespace {

// A chain of six 256 x 256 layers, the same weights on every rank, and a seventh layer that the forward pass never
// uses. The reducer's buckets: the last three layers' and the third's bias (1 MB at most), then the rest.
struct Chain {
    std::vector<torch::Tensor> parameters;  // unused layer first, then the chain's weight and bias from the input on
    explicit Chain(const torch::Device &device)
    {
        for (int layer = 0; layer < 7; ++layer) {
            const torch::TensorOptions options = torch::TensorOptions().device(device);
            parameters.push_back(torch::linspace(-0.1, 0.1 + 0.01 * layer, 256 * 256, options).view({256, 256}).requires_grad_());
            parameters.push_back(torch::linspace(-0.05, 0.05, 256, options).requires_grad_());
        }
    }
    torch::Tensor loss(const torch::Tensor &x) const
    {
        torch::Tensor h = x;
        for (size_t i = 2; i < parameters.size(); i += 2)
            h = torch::tanh(torch::nn::functional::linear(h, parameters[i], parameters[i + 1]));
        return h.square().sum();
    }
};

torch::Tensor rankInput(int rank, const torch::Device &device)
{
    return torch::linspace(-1.0 + rank, 1.0 + 2 * rank, 8 * 256, torch::TensorOptions().device(device)).view({8, 256});
}

} // namespace

// The gradient reducer on two ranks (two threads, Gloo): armed, most buckets leave while the backward pass still
// runs (before the first layer's gradient is made); every gradient ends as the sum of both ranks' (what one process
// computes for both inputs); a parameter without a gradient keeps none. Two steps, the second not armed, so that
// finish() sends everything and the reducer is reused.
void TestCuda::gradientsAreSummedDuringTheBackwardPass()
{
    QFETCH(QString, device);
    if (device == QLatin1String("cuda") && !torch::cuda::is_available())
        QSKIP("no CUDA device");
    const torch::Device where = device == QLatin1String("cuda") ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
    // What one process computes: the gradients of both inputs' losses.
    Chain reference(where);
    (reference.loss(rankInput(0, where)) + reference.loss(rankInput(1, where))).backward();

    const tytest::ReservedPort reserved;
    const int port = reserved.number();
    struct Outcome {
        QString error;
        size_t buckets = 0, sentBeforeFirstLayer[2] = {0, 0}, sentAfterBackward[2] = {0, 0};
        std::vector<torch::Tensor> gradients[2];
    };
    Outcome outcomes[2];
    auto rank = [&](int r) {
        const DistributedSetup setup = rankOfTwo(r, port);
        Outcome &out = outcomes[r];
        const Result<std::shared_ptr<ProcessGroup>> group = ProcessGroup::connect(setup, 60, QStringLiteral("gloo"), device);
        if (!group) {
            out.error = group.error().toString();
            return;
        }
        try {
            Chain chain(where);
            ty::detail::GradientReducer reducer(group.value()->collectives(), chain.parameters);
            out.buckets = reducer.bucketCount();
            int step = 0;
            // Made when the first layer's weight gradient is computed, the last thing of the backward pass.
            chain.parameters[2].register_hook([&](const torch::Tensor &) { out.sentBeforeFirstLayer[step] = reducer.bucketsSent(); });
            for (; step < 2; ++step) {
                for (torch::Tensor &p : chain.parameters)
                    p.mutable_grad() = torch::Tensor();
                if (step == 0)
                    reducer.arm();
                chain.loss(rankInput(r, where)).backward();
                out.sentAfterBackward[step] = reducer.bucketsSent();
                if (const std::string failure = reducer.finish(); !failure.empty())
                    throw std::runtime_error(failure);
                for (const torch::Tensor &p : chain.parameters)
                    out.gradients[step].push_back(p.grad().defined() ? p.grad().cpu() : torch::Tensor());
            }
        } catch (const std::exception &e) {
            out.error = QString::fromUtf8(e.what());
        }
    };
    std::thread other(rank, 1);
    rank(0);
    other.join();
    for (const Outcome &out : outcomes) {
        QVERIFY2(out.error.isEmpty(), qPrintable(out.error));
        QCOMPARE(out.buckets, size_t(2));
        // Armed: the last layers' bucket left before the first layer's gradient existed; the other, whose last
        // gradient is the first layer's, once that came (the unused layer's zeros go with it).
        QCOMPARE(out.sentBeforeFirstLayer[0], size_t(1));
        QCOMPARE(out.sentAfterBackward[0], size_t(1));
        // Not armed: nothing before finish().
        QCOMPARE(out.sentBeforeFirstLayer[1], size_t(0));
        QCOMPARE(out.sentAfterBackward[1], size_t(0));
        for (const std::vector<torch::Tensor> &gradients : out.gradients) {
            QCOMPARE(gradients.size(), reference.parameters.size());
            QVERIFY2(!gradients[0].defined() && !gradients[1].defined(), "the unused layer got a gradient");
            for (size_t k = 2; k < gradients.size(); ++k)
                QVERIFY2(gradients[k].defined() && torch::allclose(gradients[k], reference.parameters[k].grad().cpu(), 1e-5, 1e-7),
                         qPrintable(QStringLiteral("parameter %1").arg(k)));
        }
    }
}

TY_TEST_CLASS(TestCuda)

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    return tytest::runRegisteredTests(argc, argv, "cuda");
}

#include "test_cuda.moc"
