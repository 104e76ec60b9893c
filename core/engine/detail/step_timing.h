#pragma once
// Internal to ty_engine (includes LibTorch). The speed report of a run (docs/training-ui.md, "Speed"): at every
// timed step (the last of each log interval; on CUDA one in at least kCudaTimedEvery steps) the wall time of each
// phase of that step, and the samples per second since the report before. On a CUDA device each phase of a timed
// step ends with a device sync, so that its time is its own; the steps in between are not touched.

#include "engine_types.h"

#include <torch/torch.h>

#include <QElapsedTimer>
#include <QList>

#include <array>

namespace ty::detail {

// On a CUDA device, a step in at least this many is timed (training_run.cpp).
constexpr int64_t kCudaTimedEvery = 200;

class StepTiming {
public:
    enum Phase { Data, Forward, Backward, AllReduce, Optimizer, Logging, PhaseCount };

    // On a CUDA device, the allocator's peak is counted from here.
    StepTiming(const torch::Device &device, bool distributed);

    // Starts a step of `samples` samples; `timed`: whether its phases are measured.
    void beginStep(bool timed, int64_t samples);
    // The time since the last lap (or the step's beginning) goes to `phase`. Nothing unless the step is timed.
    void lap(Phase phase);
    bool timed() const { return m_timed; }
    // Restarts the rate's clock, leaving out what came before (an evaluation, the start of an epoch).
    void restartRate();
    // The timed step's report as speed/* metric rows: samples_per_s, step_ms and each phase's ms (allreduce_ms
    // only in a distributed run), peak_rss_mb (the process's largest resident set so far) and, on a CUDA device,
    // peak_cuda_mb (the most that tensors held on it at once since the run began, as the caching allocator counts).
    QList<MetricSample> report(int64_t step, int epoch, double time);

private:
    torch::Device m_device;
    bool m_distributed = false;
    bool m_timed = false;
    QElapsedTimer m_lap;
    std::array<double, PhaseCount> m_ms{};
    QElapsedTimer m_rateClock;
    int64_t m_samplesSinceReport = 0;
};

} // namespace ty::detail
