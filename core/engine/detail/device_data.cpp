#include "detail/device_data.h"

namespace ty::detail {

DeviceSplit toDevice(DataSplit split, const torch::Device &device)
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
        if (device.is_cpu()) {  // the array's own memory, no copy
            auto floats = std::make_shared<std::vector<float>>(std::move(split.x.floats));
            out.x = torch::from_blob(floats->data(), sizes, [floats](void *) {}, torch::kFloat);
        } else {
            out.x = torch::from_blob(split.x.floats.data(), sizes, torch::kFloat).to(device);
        }
    } else if (device.is_cpu()) {
        // Bytes stay bytes, in the array's own memory: rows() and range() make each batch's floats.
        auto bytes = std::make_shared<std::vector<uint8_t>>(std::move(split.x.bytes));
        out.x = torch::from_blob(bytes->data(), sizes, [bytes](void *) {}, torch::kUInt8);
        out.scale = split.x.scale;
    } else {
        // Bytes travel as bytes (a quarter of the traffic) and become floats on the device.
        const torch::Tensor host = torch::from_blob(split.x.bytes.data(), sizes, torch::kUInt8);
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
