#include "detail/device_data.h"

#include <sys/mman.h>

namespace ty::detail {

namespace {

// An uninitialised float tensor in host memory backed by transparent huge pages where the kernel offers them
// (madvise mode, Debian's default). Writing a fresh 180 MB data set page by page costs a fault per 4 KiB: about
// 0.9 s on a virtual machine measured here, against 0.07 s in 2 MiB pages (docs/benchmarks.md). Falls back to
// LibTorch's allocator when the mapping fails.
torch::Tensor hostFloats(const std::vector<int64_t> &sizes)
{
    int64_t count = 1;
    for (int64_t s : sizes)
        count *= s;
    constexpr size_t kHuge = size_t(2) << 20;
    const size_t bytes = size_t(count) * sizeof(float);
    if (bytes < 4 * kHuge)
        return torch::empty(sizes, torch::kFloat);
    const size_t mapped = bytes + kHuge;  // room to start on a 2 MiB boundary
    void *base = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED)
        return torch::empty(sizes, torch::kFloat);
    char *start = reinterpret_cast<char *>((reinterpret_cast<uintptr_t>(base) + kHuge - 1) & ~(uintptr_t(kHuge) - 1));
#ifdef MADV_HUGEPAGE
    madvise(start, bytes, MADV_HUGEPAGE);
#endif
    return torch::from_blob(start, sizes, [base, mapped](void *) { munmap(base, mapped); }, torch::kFloat);
}

} // namespace

DeviceSplit toDevice(const DataSplit &split, const torch::Device &device)
{
    DeviceSplit out;
    if (split.x.count == 0)
        return out;
    std::vector<int64_t> sizes{split.x.count};
    sizes.insert(sizes.end(), split.x.sampleShape.begin(), split.x.sampleShape.end());
    if (split.x.store) {
        out.store = split.x.store;
        out.storeFirst = split.x.storeFirst;
        out.count = split.x.count;
        out.sampleShape = split.x.sampleShape;
        out.scale = split.x.scale;
    } else if (split.x.isFloat) {
        const torch::Tensor host = torch::from_blob(const_cast<float *>(split.x.floats.data()), sizes, torch::kFloat);
        if (device.is_cpu())
            out.x = hostFloats(sizes).copy_(host);
        else
            out.x = host.to(device, /*non_blocking=*/false, /*copy=*/true);
    } else {
        // Bytes travel as bytes (a quarter of the traffic) and become floats on the device.
        const torch::Tensor host = torch::from_blob(const_cast<uint8_t *>(split.x.bytes.data()), sizes, torch::kUInt8);
        if (device.is_cpu())
            out.x = hostFloats(sizes).copy_(host).mul_(split.x.scale);
        else
            out.x = host.to(device).to(torch::kFloat).mul_(split.x.scale);
    }
    if (split.y.classification) {
        const torch::Tensor host = torch::from_blob(const_cast<int64_t *>(split.y.classes.data()), {split.y.count}, torch::kLong);
        out.y = host.to(device, false, true);
    } else {
        const torch::Tensor host = torch::from_blob(const_cast<float *>(split.y.values.data()),
                                                    {split.y.count, split.y.width}, torch::kFloat);
        out.y = host.to(device, false, true);
    }
    return out;
}

} // namespace ty::detail
