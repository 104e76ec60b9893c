#pragma once
// Internal to ty_engine, without LibTorch. Adam's and AdamW's update of one float32 tensor in a single pass over
// its elements, with the arithmetic of LibTorch's own step written out element by element: the same roundings in
// the same order (its moment update is one fused multiply-add, its squared-gradient update another), so that the
// result is bitwise LibTorch's. fused_adam.cpp checks that on the running machine before it takes this path.

#include <cstdint>

namespace ty::detail {

// The step's scalars as LibTorch's kernels use them: each computed in double from the options and the step,
// then rounded to float once.
struct AdamScalars {
    float beta1 = 0;
    float oneMinusBeta1 = 0;
    float beta2 = 0;
    float oneMinusBeta2 = 0;
    float biasCorrection2Root = 1;  // sqrt(1 - beta2^step)
    float eps = 0;
    float stepSize = 0;             // -lr / (1 - beta1^step)
    float weightDecay = 0;          // Adam: weight_decay times the parameter added to the gradient
    float decayFactor = 1;          // AdamW: the parameter first scaled by 1 - lr * weight_decay
    bool coupledDecay = false;      // Adam with weight_decay != 0
    bool decoupledDecay = false;    // AdamW with weight_decay != 0
};

// Updates elements [begin, end) of the parameter and its two moments in place.
void adamUpdate(float *param, const float *grad, float *expAvg, float *expAvgSq, int64_t begin, int64_t end,
                const AdamScalars &s);

} // namespace ty::detail
