#include "detail/logged_steps.h"

#include <c10/core/impl/DeviceGuardImplInterface.h>

#include <thread>

namespace ty::detail {

LoggedSteps::LoggedSteps(const torch::Device &device, size_t metricCount) : m_device(device), m_metricCount(metricCount) {}

std::vector<LoggedSteps::Interval> LoggedSteps::take(double lr, bool wait)
{
    std::vector<Interval> arrived;
    if (m_inFlight) {
        arrived.push_back(receive(*m_inFlight));
        m_inFlight.reset();
    }
    if (m_pending.empty())
        return arrived;
    const bool async = !wait && m_device.is_cuda();
    InFlight flight = send(lr, async);
    if (async)
        m_inFlight = std::move(flight);
    else
        arrived.push_back(receive(flight));
    return arrived;
}

LoggedSteps::InFlight LoggedSteps::send(double lr, bool async)
{
    InFlight flight;
    flight.lr = lr;
    flight.steps.swap(m_pending);
    // One stacked tensor per kind, so the copy is one transfer (and one sync when not async).
    const auto toHost = [async](const std::vector<torch::Tensor> &values) {
        const torch::Tensor stacked = torch::stack(values).to(torch::kDouble);
        if (!async)
            return stacked.to(torch::kCPU);
        torch::Tensor host = torch::empty(stacked.sizes(), torch::TensorOptions().dtype(torch::kDouble).pinned_memory(true));
        host.copy_(stacked, /*non_blocking=*/true);
        return host;
    };
    std::vector<torch::Tensor> values;
    for (const Step &s : flight.steps)
        values.push_back(s.loss);
    flight.losses = toHost(values);
    for (size_t m = 0; m < m_metricCount; ++m) {
        values.clear();
        for (const Step &s : flight.steps)
            values.push_back(s.metrics[m]);
        flight.metrics.push_back(toHost(values));
    }
    if (async) {
        const c10::impl::DeviceGuardImplInterface *guard = c10::impl::getDeviceGuardImpl(m_device.type());
        flight.copied.emplace(m_device.type());
        flight.copied->record(guard->getStream(m_device));
    }
    return flight;
}

LoggedSteps::Interval LoggedSteps::receive(InFlight &flight)
{
    if (flight.copied)
        while (!flight.copied->query())  // normally done long ago: a whole log interval was launched since
            std::this_thread::yield();
    Interval out;
    out.lr = flight.lr;
    out.steps = std::move(flight.steps);
    const auto read = [](const torch::Tensor &t) {
        const double *data = t.data_ptr<double>();
        return std::vector<double>(data, data + t.numel());
    };
    out.losses = read(flight.losses);
    for (const torch::Tensor &m : flight.metrics) {
        out.metrics.push_back(read(m));
        out.metricWidths.push_back(out.steps.empty() ? 0 : m.numel() / int64_t(out.steps.size()));
    }
    return out;
}

} // namespace ty::detail
