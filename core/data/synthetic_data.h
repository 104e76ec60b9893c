#pragma once
// dataset.synthetic: generated data for tests and demos, identical for the same parameters on every
// platform (portable_random.h). Kinds:
//   blobs       `classes` gaussian clusters (std `noise`) in `features` dims; sample shape {features}
//   spirals     `classes` interleaved spiral arms in 2-D, `noise` added to each coordinate; shape {2}
//   regression  y = x.w + b + noise * N(0, 1), x ~ N(0, 1) in `features` dims; one float target
//   images      {C, S, S} with C = `channels` and S = `features`: class k is a bright square in cell k of a
//               ceil(sqrt(classes)) grid over the image, in every channel, plus gaussian noise of std `noise` on
//               every value
// Class of sample i is i mod classes. Train and test samples come from separate random streams, so
// changing test_samples leaves the training data as it was. The fingerprint is sha256 over the generator's
// parameters.

#include "dataset_loader.h"

#include <cstdint>

namespace ty {

struct SyntheticSpec {
    QString kind = QStringLiteral("blobs");
    int64_t samples = 2000;
    int64_t testSamples = 500;
    int64_t features = 8;
    int64_t classes = 4;
    double noise = 0.1;
    int64_t channels = 1;  // images only
    uint64_t seed = 0;
};

constexpr int64_t kSyntheticMaxValues = int64_t(1) << 28;  // floats per split

DatasetShape syntheticShape(const SyntheticSpec &spec);
// `count` samples from random stream `stream` (1: train, 2: test).
DataSplit generateSynthetic(const SyntheticSpec &spec, int64_t count, uint64_t stream);
QString syntheticFingerprint(const SyntheticSpec &spec);

Result<DatasetShape> describeSyntheticDataset(const DatasetRequest &request);
Result<LoadedDataset> loadSyntheticDataset(const DatasetRequest &request);

} // namespace ty
