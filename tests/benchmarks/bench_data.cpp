// The data path: decoding Fashion-MNIST, drawing one batch, and the share of a step spent on data.

#include "bench_sections.h"
#include "dataset_loader.h"

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

    // One batch as the trainer draws it: index_select of 128 rows of the on-device tensor and their labels.
    DataSplit &train = dataset.train;
    const double start = now();
    const torch::Tensor x = torch::from_blob(train.x.bytes.data(), {train.x.count, 1, 28, 28}, torch::kUInt8).to(torch::kFloat).mul_(train.x.scale);
    const torch::Tensor y = torch::from_blob(train.y.classes.data(), {train.y.count}, torch::kLong).clone();
    report.add(QStringLiteral("data"), QStringLiteral("upload the training split as one float tensor"), (now() - start) * 1000,
               QStringLiteral("ms"));
    const torch::Tensor perm = torch::randperm(x.size(0), torch::kLong);
    const int batches = options.quick ? 200 : 2000;
    const double batchStart = now();
    for (int i = 0; i < batches; ++i) {
        const torch::Tensor index = perm.slice(0, (i * 128) % (x.size(0) - 128), (i * 128) % (x.size(0) - 128) + 128);
        const torch::Tensor xb = x.index_select(0, index);
        const torch::Tensor yb = y.index_select(0, index);
    }
    const double perBatch = (now() - batchStart) / batches;
    report.add(QStringLiteral("data"), QStringLiteral("draw one batch of 128 (index_select)"), perBatch * 1e6, QStringLiteral("us"));
    report.setValue(QStringLiteral("batch_seconds"), perBatch);
}

} // namespace ty::bench
