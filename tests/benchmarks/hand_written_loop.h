#pragma once
// The baseline a user would write by hand in C++: the same model as a bundled preset, built from torch::nn,
// trained on the same tensors with the same optimizer and batching, and nothing else.

#include <torch/torch.h>

#include <QString>

namespace ty::bench {

// "mlp": normalise, flatten, 784-256-128-100-10 with ReLU; "cnn": the two-conv network of
// fashion-mnist-cnn.trainyard.json.
torch::nn::Sequential makeReferenceModel(const QString &kind);

// Samples per second of Adam training on x [N,1,28,28] / y [N], batches drawn by index_select on a random
// permutation; `warmup` steps are not timed. On `device` ("cpu" or "cuda"), with the data moved there first.
double handWrittenSamplesPerSecond(const QString &kind, const torch::Tensor &x, const torch::Tensor &y, int batch,
                                   int warmup, int steps, const QString &device = QStringLiteral("cpu"));

} // namespace ty::bench
