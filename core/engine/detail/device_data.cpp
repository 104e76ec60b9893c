#include "detail/device_data.h"

namespace ty::detail {

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
        out.x = host.to(device, /*non_blocking=*/false, /*copy=*/true);
    } else {
        // Bytes travel as bytes (a quarter of the traffic) and become floats on the device.
        const torch::Tensor host = torch::from_blob(const_cast<uint8_t *>(split.x.bytes.data()), sizes, torch::kUInt8);
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
