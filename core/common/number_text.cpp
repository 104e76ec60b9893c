#include "number_text.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace ty {

bool isWidenedFloat(double value)
{
    if (!std::isfinite(value) || std::abs(value) > double(std::numeric_limits<float>::max()))
        return false;
    return double(float(value)) == value;
}

QString shortestNumberText(double value)
{
    if (std::isnan(value))
        return QStringLiteral("nan");
    if (std::isinf(value))
        return value > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    char buffer[64];
    // std::to_chars without a precision writes the shortest text that reads back exactly (C++17).
    const std::to_chars_result written = isWidenedFloat(value) ? std::to_chars(buffer, buffer + sizeof buffer, float(value))
                                                               : std::to_chars(buffer, buffer + sizeof buffer, value);
    return QString::fromLatin1(buffer, int(written.ptr - buffer));
}

} // namespace ty
