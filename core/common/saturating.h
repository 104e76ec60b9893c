#pragma once
// A double held within qint64's range when converted: converting one beyond it is undefined behaviour. For sizes
// summed as doubles (the memory estimate) and for whole numbers read from JSON that validation may have refused.

#include <QtGlobal>

#include <limits>

namespace ty {

inline qint64 saturatedInt64(double value)
{
    constexpr double kMax = double(std::numeric_limits<qint64>::max());  // 2^63, itself out of range
    if (value >= kMax)
        return std::numeric_limits<qint64>::max();
    if (value <= -kMax)
        return std::numeric_limits<qint64>::min();
    return value == value ? static_cast<qint64>(value) : 0;  // NaN: 0
}

} // namespace ty
