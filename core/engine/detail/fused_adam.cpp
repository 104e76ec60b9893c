#include "detail/fused_adam.h"

#include "detail/adam_kernel.h"
#include "detail/optimizer_state.h"

#include <ATen/Parallel.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace ty::detail {

namespace {

using torch::optim::Adam;
using torch::optim::AdamOptions;
using torch::optim::AdamParamState;
using torch::optim::AdamW;
using torch::optim::AdamWOptions;
using torch::optim::AdamWParamState;

// What LibTorch's Adam::step computes for one parameter, from the options and the step it is taking.
template <typename Options>
AdamScalars scalarsFor(const Options &options, int64_t step, bool decoupled)
{
    const double beta1 = std::get<0>(options.betas()), beta2 = std::get<1>(options.betas());
    const double biasCorrection1 = 1 - std::pow(beta1, double(step));
    const double biasCorrection2 = 1 - std::pow(beta2, double(step));
    AdamScalars s;
    s.beta1 = float(beta1);
    s.oneMinusBeta1 = float(1 - beta1);
    s.beta2 = float(beta2);
    s.oneMinusBeta2 = float(1 - beta2);
    s.biasCorrection2Root = float(std::sqrt(biasCorrection2));
    s.eps = float(options.eps());
    s.stepSize = float(-(options.lr() / biasCorrection1));
    const double decay = options.weight_decay();
    s.coupledDecay = !decoupled && decay != 0;
    s.decoupledDecay = decoupled && decay != 0;
    s.weightDecay = float(decay);
    s.decayFactor = float(1 - options.lr() * decay);
    return s;
}

bool plainFloatCpu(const torch::Tensor &t, const torch::Tensor &like)
{
    return t.defined() && t.device().is_cpu() && t.scalar_type() == torch::kFloat && t.layout() == torch::kStrided &&
           t.is_contiguous() && t.numel() == like.numel();
}

void runKernel(const torch::Tensor &param, const torch::Tensor &grad, const torch::Tensor &expAvg,
               const torch::Tensor &expAvgSq, const AdamScalars &s)
{
    float *p = param.data_ptr<float>();
    const float *g = grad.data_ptr<float>();
    float *m = expAvg.data_ptr<float>();
    float *v = expAvgSq.data_ptr<float>();
    // Element by element, so any split among LibTorch's threads gives the same bits; its own grain size.
    at::parallel_for(0, param.numel(), at::internal::GRAIN_SIZE,
                     [&](int64_t begin, int64_t end) { adamUpdate(p, g, m, v, begin, end, s); });
}

std::atomic<int64_t> g_stepsTaken{0};

template <typename Opt, typename Options, typename State>
bool step(Opt &optimizer, bool decoupled)
{
    // Everything checked before anything is changed: the step is taken whole here or whole by LibTorch.
    for (auto &group : optimizer.param_groups()) {
        const auto &options = static_cast<const Options &>(group.options());
        if (options.amsgrad() || !fusedAdamMatchesLibTorch(decoupled, options.weight_decay() != 0))
            return false;
        for (const torch::Tensor &p : group.params()) {
            const torch::Tensor &grad = p.grad();
            if (!grad.defined())
                continue;
            if (!plainFloatCpu(p, p) || !plainFloatCpu(grad, p))
                return false;
            const auto it = optimizer.state().find(stateKeyOf(p));
            if (it != optimizer.state().end()) {
                const auto &state = static_cast<const State &>(*it->second);
                if (!plainFloatCpu(state.exp_avg(), p) || !plainFloatCpu(state.exp_avg_sq(), p))
                    return false;
            }
        }
    }
    torch::NoGradGuard noGrad;
    for (auto &group : optimizer.param_groups()) {
        const auto &options = static_cast<const Options &>(group.options());
        for (const torch::Tensor &p : group.params()) {
            if (!p.grad().defined())
                continue;
            auto &slot = optimizer.state()[stateKeyOf(p)];
            if (!slot) {
                // As LibTorch starts a parameter's state: step 0 and zero moments shaped like the parameter.
                auto state = std::make_unique<State>();
                state->step(0);
                state->exp_avg(torch::zeros_like(p, torch::MemoryFormat::Preserve));
                state->exp_avg_sq(torch::zeros_like(p, torch::MemoryFormat::Preserve));
                slot = std::move(state);
            }
            auto &state = static_cast<State &>(*slot);
            state.step(state.step() + 1);
            runKernel(p, p.grad(), state.exp_avg(), state.exp_avg_sq(), scalarsFor(options, state.step(), decoupled));
        }
    }
    g_stepsTaken.fetch_add(1, std::memory_order_relaxed);
    return true;
}

// Three steps of LibTorch's optimizer and of the fused loop from the same start, on 4,099 values (the vectorised
// body and the scalar tail of LibTorch's loops) of a spread of magnitudes, drawn from a generator of its own so
// that the run's random stream is untouched. Equal bits in all three: the fused loop may stand in.
template <typename Opt, typename Options, typename State>
bool probe(bool decoupled, bool weightDecay)
{
    torch::NoGradGuard noGrad;
    auto generator = at::make_generator<at::CPUGeneratorImpl>(20261128);
    const int64_t n = 4099;
    auto draw = [&](double scale) { return torch::randn({n}, generator) * torch::exp(torch::randn({n}, generator) * 3) * scale; };
    const torch::Tensor start = draw(0.1);
    torch::Tensor theirs = start.clone().requires_grad_(true);
    const torch::Tensor ours = start.clone();
    const torch::Tensor expAvg = torch::zeros({n}), expAvgSq = torch::zeros({n});
    Options options(1e-3);
    options.weight_decay(weightDecay ? 0.01 : 0.0);
    Opt reference({theirs}, options);
    for (int64_t step = 1; step <= 3; ++step) {
        const torch::Tensor grad = draw(0.01 * double(step));
        theirs.mutable_grad() = grad.clone();
        reference.step();
        runKernel(ours, grad, expAvg, expAvgSq, scalarsFor(options, step, decoupled));
        if (!torch::equal(theirs.detach(), ours))
            return false;
    }
    const auto &state = static_cast<const State &>(*reference.state().at(stateKeyOf(theirs)));
    return torch::equal(state.exp_avg(), expAvg) && torch::equal(state.exp_avg_sq(), expAvgSq);
}

} // namespace

int64_t fusedAdamStepsTaken()
{
    return g_stepsTaken.load(std::memory_order_relaxed);
}

bool fusedAdamMatchesLibTorch(bool decoupled, bool weightDecay)
{
    static std::once_flag once[2][2];
    static bool matches[2][2] = {};
    std::call_once(once[decoupled][weightDecay], [&] {
        matches[decoupled][weightDecay] = decoupled ? probe<AdamW, AdamWOptions, AdamWParamState>(true, weightDecay)
                                                    : probe<Adam, AdamOptions, AdamParamState>(false, weightDecay);
    });
    return matches[decoupled][weightDecay];
}

bool fusedAdamStep(torch::optim::Optimizer &optimizer)
{
    // TRAINYARD_FUSED_ADAM=off: LibTorch's own step (to compare, or to rule the fused loop out). Read at every
    // step, so a test can train both ways in one process.
    if (const char *mode = std::getenv("TRAINYARD_FUSED_ADAM"); mode && std::strcmp(mode, "off") == 0)
        return false;
    if (auto *adam = dynamic_cast<Adam *>(&optimizer))
        return step<Adam, AdamOptions, AdamParamState>(*adam, false);
    if (auto *adamw = dynamic_cast<AdamW *>(&optimizer))
        return step<AdamW, AdamWOptions, AdamWParamState>(*adamw, true);
    return false;
}

} // namespace ty::detail
