#include "detail/device_memory.h"

#include "available_memory.h"
#include "memory_estimate.h"

namespace ty::detail {

qint64 availableDeviceMemory(const torch::Device &device)
{
    if (const qint64 limit = memoryLimitOverride(); limit > 0)
        return limit;
    if (device.is_cpu())
        return availableHostMemory();
    // LibTorch 1.13's C++ API (torch::cuda) cannot tell a GPU's free memory, and Debian's CPU-only LibTorch has
    // no c10_cuda to ask instead: on a GPU, only TRAINYARD_MEMORY_LIMIT_BYTES is checked.
    return -1;
}

Status checkDeviceMemory(const ShapeReport &report, const torch::Device &device)
{
    const bool limited = memoryLimitOverride() > 0;
    const QString name = QStringLiteral("the device (%1%2)")
                             .arg(QString::fromStdString(device.str()),
                                  limited ? QStringLiteral(", limited by TRAINYARD_MEMORY_LIMIT_BYTES") : QString());
    const QString problem = memoryShortfall(report, availableDeviceMemory(device), name);
    if (problem.isEmpty())
        return Status::success();
    return Error::atNode(largestMemoryNodes(report, 1).value(0), problem);
}

} // namespace ty::detail
