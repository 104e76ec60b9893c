#include "hand_written_loop.h"

#include "bench_report.h"

namespace ty::bench {

namespace {

struct Normalize : torch::nn::Module {
    torch::Tensor forward(const torch::Tensor &x) { return (x - 0.286) / 0.353; }
};

} // namespace

torch::nn::Sequential makeReferenceModel(const QString &kind)
{
    using namespace torch::nn;
    if (kind == QStringLiteral("mlp"))
        return Sequential(Normalize(), Flatten(), Linear(784, 256), ReLU(), Linear(256, 128), ReLU(), Linear(128, 100), ReLU(),
                          Linear(100, 10));
    return Sequential(Normalize(), Conv2d(Conv2dOptions(1, 32, 5).padding(2)), ReLU(), MaxPool2d(2),
                      Conv2d(Conv2dOptions(32, 64, 5).padding(2)), ReLU(), MaxPool2d(2), Flatten(), Linear(3136, 1024), ReLU(),
                      Dropout(0.4), Linear(1024, 10));
}

double handWrittenSamplesPerSecond(const QString &kind, const torch::Tensor &hostX, const torch::Tensor &hostY, int batch,
                                   int warmup, int steps, const QString &device)
{
    torch::manual_seed(0);
    const torch::Device on(device.toStdString());
    const torch::Tensor x = hostX.to(on), y = hostY.to(on);
    torch::nn::Sequential model = makeReferenceModel(kind);
    model->to(on);
    torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(1e-3));
    const int64_t n = x.size(0);
    const auto indexOptions = torch::TensorOptions().dtype(torch::kLong).device(on);
    torch::Tensor perm = torch::randperm(n, indexOptions);
    int64_t position = 0;
    double start = 0;
    for (int step = 0; step < warmup + steps; ++step) {
        if (step == warmup)
            start = now();
        if (position + batch > n) {
            perm = torch::randperm(n, indexOptions);
            position = 0;
        }
        const torch::Tensor index = perm.slice(0, position, position + batch);
        position += batch;
        const torch::Tensor loss =
            torch::nn::functional::cross_entropy(model->forward(x.index_select(0, index)), y.index_select(0, index));
        optimizer.zero_grad();
        loss.backward();
        optimizer.step();
        if (step + 1 == warmup + steps)
            loss.item<float>();  // waits for the device's queue to drain (a no-op wait on the CPU)
    }
    return double(steps) * batch / (now() - start);
}

} // namespace ty::bench
