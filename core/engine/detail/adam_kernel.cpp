// Compiled with -O3 -ffp-contract=off -fno-math-errno (core/engine/CMakeLists.txt): no multiply-add is fused
// unless written as std::fma, and the square root is the instruction, so the loops vectorise without changing a
// rounding. On x86-64 the loop is built three times (AVX-512, AVX2 with FMA, baseline) and the loader picks the
// one the processor runs; the baseline's std::fma is exact in software.

#include "detail/adam_kernel.h"

#include <cmath>

namespace ty::detail {

namespace {

template <bool Coupled, bool Decoupled>
inline __attribute__((always_inline)) void update(float *__restrict param, const float *__restrict grad,
                                                  float *__restrict expAvg, float *__restrict expAvgSq, int64_t begin,
                                                  int64_t end, const AdamScalars &s)
{
    const float beta1 = s.beta1, oneMinusBeta1 = s.oneMinusBeta1, beta2 = s.beta2, oneMinusBeta2 = s.oneMinusBeta2;
    const float root = s.biasCorrection2Root, eps = s.eps, stepSize = s.stepSize, weightDecay = s.weightDecay,
                decay = s.decayFactor;
    for (int64_t i = begin; i < end; ++i) {
        float p = param[i];
        if (Decoupled)
            p = p * decay;                              // p.mul_(1 - lr * weight_decay)
        float g = grad[i];
        if (Coupled)
            g = std::fma(p, weightDecay, g);            // grad.add(p, weight_decay)
        const float m = std::fma(g, oneMinusBeta1, expAvg[i] * beta1);           // exp_avg.mul_(b1).add_(g, 1 - b1)
        const float v = std::fma(oneMinusBeta2 * g, g, expAvgSq[i] * beta2);     // exp_avg_sq.mul_(b2).addcmul_(g, g, 1 - b2)
        expAvg[i] = m;
        expAvgSq[i] = v;
        const float denom = std::sqrt(v) / root + eps;  // (exp_avg_sq.sqrt() / sqrt(bc2)).add_(eps)
        param[i] = p + stepSize * m / denom;            // p.addcdiv_(exp_avg, denom, -lr / bc1)
    }
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TY_ADAM_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define TY_ADAM_CLONES
#endif

TY_ADAM_CLONES void updatePlain(float *param, const float *grad, float *expAvg, float *expAvgSq, int64_t begin,
                                int64_t end, const AdamScalars &s)
{
    update<false, false>(param, grad, expAvg, expAvgSq, begin, end, s);
}

TY_ADAM_CLONES void updateCoupled(float *param, const float *grad, float *expAvg, float *expAvgSq, int64_t begin,
                                  int64_t end, const AdamScalars &s)
{
    update<true, false>(param, grad, expAvg, expAvgSq, begin, end, s);
}

TY_ADAM_CLONES void updateDecoupled(float *param, const float *grad, float *expAvg, float *expAvgSq, int64_t begin,
                                    int64_t end, const AdamScalars &s)
{
    update<false, true>(param, grad, expAvg, expAvgSq, begin, end, s);
}

#undef TY_ADAM_CLONES

} // namespace

void adamUpdate(float *param, const float *grad, float *expAvg, float *expAvgSq, int64_t begin, int64_t end,
                const AdamScalars &s)
{
    if (s.coupledDecay)
        updateCoupled(param, grad, expAvg, expAvgSq, begin, end, s);
    else if (s.decoupledDecay)
        updateDecoupled(param, grad, expAvg, expAvgSq, begin, end, s);
    else
        updatePlain(param, grad, expAvg, expAvgSq, begin, end, s);
}

} // namespace ty::detail
