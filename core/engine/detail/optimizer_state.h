#pragma once
// Internal to ty_engine (includes LibTorch). An optimizer's per-parameter state (Adam's moments and step,
// SGD's momentum buffer, ...) as named tensors, `optimizer/fc1.weight/exp_avg`, so that checkpoints hold it
// as plain data. Learning rates are not state: the schedule is a pure function of the step.

#include "error.h"

#include <QString>
#include <torch/torch.h>

#include <map>
#include <sstream>
#include <type_traits>
#include <vector>

namespace ty::detail {

// The key LibTorch files a parameter's state under: the address of its TensorImpl, as text in LibTorch 1.x
// and as a pointer in 2.x. (A template, so that only the branch for this LibTorch's key type is compiled.)
using OptimizerStateKey = typename std::decay_t<decltype(std::declval<torch::optim::Optimizer &>().state())>::key_type;
template <typename Key = OptimizerStateKey>
Key stateKeyOf(const torch::Tensor &parameter)
{
    if constexpr (std::is_same_v<Key, std::string>) {
        std::ostringstream text;
        text << parameter.unsafeGetTensorImpl();
        return text.str();
    } else {
        return parameter.unsafeGetTensorImpl();
    }
}

// The state of every parameter that has some, named after the parameter's stable name.
std::vector<std::pair<QString, torch::Tensor>> optimizerStateTensors(torch::optim::Optimizer &optimizer,
                                                                     torch::nn::Module &model);

// Checks `tensors` (keyed by their full names, `optimizer/...`) against the optimizer's kind and the model's
// parameters (known parameter and field, shape and dtype, finite, squares not negative, every required field of a
// parameter that has state) and, only when all is well and `apply` is true, replaces the optimizer's state with
// them. Errors name the tensor.
Status restoreOptimizerState(torch::optim::Optimizer &optimizer, torch::nn::Module &model,
                             const std::map<QString, torch::Tensor> &tensors, bool apply);

// "optimizer/" : the prefix of optimizer-state tensor names.
QString optimizerStatePrefix();

} // namespace ty::detail
