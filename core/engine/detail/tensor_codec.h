#pragma once
// Internal to ty_engine (includes LibTorch). Between LibTorch tensors and the plain arrays of a safetensors
// file, and the stable names of a model's tensors: `fc1.weight`, `bn1.running_mean` (node id, then the
// tensor's name within the block), the same in checkpoints and weight exports.

#include "error.h"
#include "safetensors_file.h"

#include <torch/torch.h>

#include <optional>
#include <vector>

namespace ty::detail {

std::optional<TensorDType> tensorDTypeOf(torch::ScalarType type);  // nullopt for types the format lacks
torch::ScalarType scalarTypeOf(TensorDType dtype);

// A copy of `tensor` (any device) as a plain array named `name`. Throws for a dtype the format lacks.
NamedTensor toNamedTensor(const QString &name, const torch::Tensor &tensor);
// A CPU tensor holding a copy of `tensor`'s data.
torch::Tensor fromNamedTensor(const NamedTensor &tensor);

// The stable name of a parameter or buffer of the graph module: "conv1.weight", and for a node inside a
// composite "stage2.unit1.conv1.weight" (its module is registered as "stage2/unit1/conv1").
QString tensorNameOf(const std::string &key);

// Every parameter and buffer of `model` under its stable name, parameters first, in registration order.
std::vector<std::pair<QString, torch::Tensor>> modelTensors(torch::nn::Module &model);

// Whether every element of a floating-point tensor is finite (always true for other dtypes).
bool allFinite(const torch::Tensor &tensor);

} // namespace ty::detail
