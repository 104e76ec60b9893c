#pragma once
// Small helpers shared by the shape_rules_*.cpp files: errors that name the node, parameter reading and the
// arithmetic of sliding windows.

#include "block_shapes.h"

namespace ty::shaperules {

inline int64_t intParam(const QJsonObject &params, const char *key)
{
    return static_cast<int64_t>(params.value(QString::fromLatin1(key)).toDouble());
}

inline bool boolParam(const QJsonObject &params, const char *key)
{
    return params.value(QString::fromLatin1(key)).toBool();
}

// The first input's shape; empty when the node has none (a rule then reports its own error).
inline SampleShape firstInput(const std::vector<SampleShape> &inputs)
{
    return inputs.empty() ? SampleShape{} : inputs[0];
}

// Output side of a sliding window (convolution, pooling without ceil mode).
inline int64_t windows(int64_t size, const SlidingWindow &w)
{
    return (size + 2 * w.padding - w.kernel) / w.stride + 1;
}

// A weight of shape `weight` and, when `bias` > 0, a bias of that many values.
inline std::vector<LayerTensor> weightAndBias(SampleShape weight, int64_t bias)
{
    std::vector<LayerTensor> tensors{{QStringLiteral("weight"), std::move(weight)}};
    if (bias > 0)
        tensors.push_back({QStringLiteral("bias"), {bias}});
    return tensors;
}

inline QString imageSamples()
{
    return QStringLiteral("[channels, height, width]");
}

} // namespace ty::shaperules
