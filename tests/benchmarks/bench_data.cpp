// The data path: decoding Fashion-MNIST, drawing one batch, and the share of a step spent on data.

#include "bench_sections.h"
#include "dataset_loader.h"
#include "detail/device_data.h"

#include <torch/torch.h>

#include <QJsonObject>

namespace ty::bench {

void benchData(const Options &options, Report &report)
{
    std::fprintf(stderr, "data\n");
    const QJsonObject params{{QStringLiteral("dir"), QStringLiteral("/usr/share/datasets/fashion-mnist")},
                             {QStringLiteral("val_fraction"), 0.1}, {QStringLiteral("val_count"), 0}, {QStringLiteral("limit"), 0},
                             {QStringLiteral("test_limit"), 0}, {QStringLiteral("split_seed"), 0}};
    double decode = 1e9;
    LoadedDataset dataset;
    for (int i = 0; i < options.repeats; ++i) {
        const double start = now();
        Result<LoadedDataset> loaded = loadDataset(DatasetRequest{QStringLiteral("dataset.fashion_mnist"), QStringLiteral("data"), params, QString()});
        decode = std::min(decode, now() - start);
        if (!loaded)
            qFatal("%s", qPrintable(loaded.error().toString()));
        dataset = std::move(loaded).value();
    }
    report.add(QStringLiteral("data"), QStringLiteral("read and decode Fashion-MNIST (70,000 images, gzipped IDX)"), decode * 1000,
               QStringLiteral("ms"));

    // One batch as the trainer draws it on the CPU: index_select of 128 rows of the training split, kept as bytes,
    // made floats and scaled, and their labels (core/engine/detail/device_data.h).
    const detail::DeviceSplit train = detail::toDevice(std::move(dataset.train), torch::kCPU);
    const int64_t n = train.size();
    const torch::Tensor perm = torch::randperm(n, torch::kLong);
    const int batches = options.quick ? 200 : 2000;
    const double batchStart = now();
    for (int i = 0; i < batches; ++i) {
        const torch::Tensor index = perm.slice(0, (i * 128) % (n - 128), (i * 128) % (n - 128) + 128);
        const torch::Tensor xb = train.rows(index);
        const torch::Tensor yb = train.y.index_select(0, index);
    }
    const double perBatch = (now() - batchStart) / batches;
    report.add(QStringLiteral("data"), QStringLiteral("draw one batch of 128 (index_select of bytes, made floats)"), perBatch * 1e6, QStringLiteral("us"));
    report.setValue(QStringLiteral("batch_seconds"), perBatch);
}

} // namespace ty::bench
