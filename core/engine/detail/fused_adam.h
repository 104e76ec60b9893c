#pragma once
// Internal to ty_engine (includes LibTorch). Adam's and AdamW's step on the CPU in one pass over each parameter
// (adam_kernel.h) instead of LibTorch's eight tensor operations and two temporaries per parameter: the same
// arithmetic, bitwise, in about a sixth of the time. The optimizer's own state (step, exp_avg, exp_avg_sq) is
// read and written where LibTorch keeps it, so checkpoints, resumes and a later LibTorch step see no difference.

#include <torch/torch.h>

namespace ty::detail {

// Takes the step when every parameter with a gradient is a contiguous float32 CPU tensor (as are its gradient and
// moments), amsgrad is off, and this machine's LibTorch computes what the fused loop does (checked once per
// process and variant on a probe, against LibTorch's own optimizer). Returns false, changing nothing, otherwise;
// the caller then runs optimizer.step(). With TRAINYARD_FUSED_ADAM=off in the environment it always returns false.
bool fusedAdamStep(torch::optim::Optimizer &optimizer);

// How many steps this process took through the fused loop (for tests and diagnostics).
int64_t fusedAdamStepsTaken();

// Whether the probe found the fused loop bitwise equal to LibTorch's step for this kind (Adam, or AdamW when
// decoupled) with or without weight decay. Runs the probe on first use.
bool fusedAdamMatchesLibTorch(bool decoupled, bool weightDecay);

} // namespace ty::detail
