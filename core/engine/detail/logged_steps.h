#pragma once
// Internal to ty_engine (includes LibTorch). The training steps whose loss and metric sums are still on the
// device, and their way to the host: one copy per log interval. On a CUDA device that copy is asynchronous
// (pinned memory, an event) and read at the next interval, so that no step waits for the GPU; on the CPU, and
// whenever the run asks to wait (epoch ends, stops), the values are read at once. Values and their order are
// the same either way; only when they reach the host differs.

#include <c10/core/Event.h>
#include <torch/torch.h>

#include <optional>
#include <vector>

namespace ty::detail {

class LoggedSteps {
public:
    struct Step {
        int64_t step;
        int epoch;
        double time;
        int64_t batch;                       // samples in the step
        torch::Tensor loss;                  // detached scalar on the device
        std::vector<torch::Tensor> metrics;  // per metric head: its statistics of the batch (made a value when read)
    };
    // One log interval's values on the host.
    struct Interval {
        std::vector<Step> steps;
        std::vector<double> losses;                // per step
        std::vector<std::vector<double>> metrics;  // per metric head, the steps' statistics one after another
        std::vector<int64_t> metricWidths;         // per metric head, the number of statistics of one step
        double lr = 0;                             // the learning rate after the interval's last step

        const double *metricStatistics(size_t head, size_t step) const { return metrics[head].data() + step * metricWidths[head]; }
    };

    LoggedSteps(const torch::Device &device, size_t metricCount);

    void add(Step step) { m_pending.push_back(std::move(step)); }
    size_t pendingCount() const { return m_pending.size(); }

    // Sends the pending steps on their way and returns every interval whose values are on the host, oldest
    // first. Without `wait`, on a CUDA device, the steps just sent come back from the next call.
    std::vector<Interval> take(double lr, bool wait);

private:
    struct InFlight {
        std::vector<Step> steps;
        torch::Tensor losses;                // host (pinned on CUDA)
        std::vector<torch::Tensor> metrics;  // host, per metric head
        double lr = 0;
        std::optional<c10::Event> copied;    // recorded after the copies (CUDA only)
    };

    InFlight send(double lr, bool async);
    static Interval receive(InFlight &flight);

    torch::Device m_device;
    size_t m_metricCount;
    std::vector<Step> m_pending;
    std::optional<InFlight> m_inFlight;
};

} // namespace ty::detail
