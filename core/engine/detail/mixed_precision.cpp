#include "detail/mixed_precision.h"

#include <ATen/autocast_mode.h>
#include <torch/version.h>

namespace ty::detail {

namespace {

void setCudaAutocast(bool on)
{
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
    at::autocast::set_autocast_enabled(at::kCUDA, on);
#else
    at::autocast::set_enabled(on);
#endif
}

} // namespace

MixedPrecision::MixedPrecision(const torch::Device &device)
{
    if (!device.is_cuda())
        return;
    const torch::TensorOptions options = torch::TensorOptions().dtype(torch::kFloat).device(device);
    m_scale = torch::full({1}, 65536.0, options);
    m_growthTracker = torch::zeros({1}, options.dtype(torch::kInt));
    m_foundInf = torch::zeros({1}, options);
}

MixedPrecision::Autocast::Autocast(bool on) : m_on(on)
{
    if (!m_on)
        return;
    at::autocast::increment_nesting();
    setCudaAutocast(true);
}

MixedPrecision::Autocast::~Autocast()
{
    if (!m_on)
        return;
    setCudaAutocast(false);
    if (at::autocast::decrement_nesting() == 0)
        at::autocast::clear_cache();
}

bool MixedPrecision::unscale(const std::vector<torch::Tensor> &parameters)
{
    if (!enabled())
        return true;
    torch::NoGradGuard noGrad;
    std::vector<torch::Tensor> grads;
    for (const torch::Tensor &p : parameters)
        if (p.grad().defined())
            grads.push_back(p.grad());
    m_foundInf.zero_();
    if (!grads.empty())
        at::_amp_foreach_non_finite_check_and_unscale_(grads, m_foundInf, m_scale.reciprocal());
    return m_foundInf.item<float>() == 0.0f;
}

double MixedPrecision::scale() const
{
    return enabled() ? double(m_scale.item<float>()) : 0.0;
}

int64_t MixedPrecision::growthTracker() const
{
    return enabled() ? int64_t(m_growthTracker.item<int>()) : 0;
}

void MixedPrecision::restore(double scale, int64_t growthTracker)
{
    if (!enabled())
        return;
    m_scale.fill_(scale);
    m_growthTracker.fill_(growthTracker);
}

void MixedPrecision::update()
{
    if (enabled())
        at::_amp_update_scale_(m_scale, m_growthTracker, m_foundInf, 2.0, 0.5, 2000);
}

} // namespace ty::detail
