#pragma once
// Internal to ty_engine (includes LibTorch). Mixed precision on CUDA (training.mixed_precision), as PyTorch's
// torch.autocast with a GradScaler: the forward pass and the losses run under autocast (float16 where it is
// safe), the loss is multiplied by a scale before backward, the gradients are divided by it again and checked
// for inf and NaN on the device; a step with a non-finite gradient is skipped and halves the scale, and 2,000
// finite steps in a row double it. On the CPU it is off (the run says so). Checkpoints keep the scale and the
// count of finite steps, so a resumed run goes on with them.

#include <torch/torch.h>

namespace ty::detail {

class MixedPrecision {
public:
    MixedPrecision() = default;
    explicit MixedPrecision(const torch::Device &device);  // on for a CUDA device, else off
    bool enabled() const { return m_scale.defined(); }

    // Autocast for the forward pass and the losses, while it lives (nothing when off).
    class Autocast {
    public:
        explicit Autocast(bool on);
        ~Autocast();
        Autocast(const Autocast &) = delete;
        Autocast &operator=(const Autocast &) = delete;

    private:
        bool m_on;
    };

    // The loss to call backward on: multiplied by the scale when on.
    torch::Tensor scaled(const torch::Tensor &loss) const { return enabled() ? loss * m_scale : loss; }
    // After backward: divides the gradients by the scale; true when every one is finite, so the optimizer may
    // step. Reads one value from the device.
    bool unscale(const std::vector<torch::Tensor> &parameters);
    // After the step (taken or skipped): grows or backs off the scale.
    void update();
    // The scale and the finite steps in a row since it last changed (reads them from the device); 0 and 0 when off.
    double scale() const;
    int64_t growthTracker() const;
    // Continues from a checkpoint's values (nothing when off).
    void restore(double scale, int64_t growthTracker);

private:
    torch::Tensor m_scale, m_growthTracker, m_foundInf;
};

} // namespace ty::detail
