#include "detail/step_timing.h"

#include "available_memory.h"
#include "detail/cuda_memory.h"

namespace ty::detail {

StepTiming::StepTiming(const torch::Device &device, bool distributed) : m_device(device), m_distributed(distributed)
{
    if (m_device.is_cuda())
        resetCudaPeak(m_device.index());
}

void StepTiming::beginStep(bool timed, int64_t samples)
{
    if (!m_rateClock.isValid())
        m_rateClock.start();
    m_samplesSinceReport += samples;
    m_timed = timed;
    if (!timed)
        return;
    m_ms.fill(0.0);
    if (m_device.is_cuda())
        torch::cuda::synchronize(m_device.index());
    m_lap.start();
}

void StepTiming::lap(Phase phase)
{
    if (!m_timed)
        return;
    if (m_device.is_cuda())
        torch::cuda::synchronize(m_device.index());
    m_ms[phase] += m_lap.nsecsElapsed() / 1e6;
    m_lap.restart();
}

void StepTiming::restartRate()
{
    m_rateClock.restart();
    m_samplesSinceReport = 0;
}

QList<MetricSample> StepTiming::report(int64_t step, int epoch, double time)
{
    static const char *const names[PhaseCount] = {"speed/data_ms", "speed/forward_ms", "speed/backward_ms",
                                                  "speed/allreduce_ms", "speed/optimizer_ms", "speed/logging_ms"};
    QList<MetricSample> rows;
    const double seconds = m_rateClock.nsecsElapsed() / 1e9;
    if (seconds > 0 && m_samplesSinceReport > 0)
        rows.append(MetricSample{QStringLiteral("speed/samples_per_s"), step, epoch, time, double(m_samplesSinceReport) / seconds});
    double total = 0;
    for (int phase = 0; phase < PhaseCount; ++phase) {
        total += m_ms[phase];
        if (phase != AllReduce || m_distributed)
            rows.append(MetricSample{QString::fromLatin1(names[phase]), step, epoch, time, m_ms[phase]});
    }
    rows.append(MetricSample{QStringLiteral("speed/step_ms"), step, epoch, time, total});
    if (const qint64 peak = peakResidentBytes(); peak > 0)
        rows.append(MetricSample{QStringLiteral("speed/peak_rss_mb"), step, epoch, time, double(peak) / (1 << 20)});
    if (m_device.is_cuda())
        if (const qint64 peak = cudaPeakAllocatedBytes(m_device.index()); peak >= 0)
            rows.append(MetricSample{QStringLiteral("speed/peak_cuda_mb"), step, epoch, time, double(peak) / (1 << 20)});
    restartRate();
    m_timed = false;
    return rows;
}

} // namespace ty::detail
