#pragma once
// Durations as people read them in a table or a status line: "0:42", "12:05", "1:02:03". Any thread.

#include <QString>

#include <algorithm>
#include <cmath>

namespace ty {

// Whole seconds, rounded; negative counts as 0; "" for NaN.
inline QString durationText(double seconds)
{
    if (std::isnan(seconds))
        return QString();
    const qint64 s = std::max<qint64>(0, qint64(std::llround(seconds)));
    const QChar zero = QLatin1Char('0');
    if (s >= 3600)
        return QStringLiteral("%1:%2:%3").arg(s / 3600).arg(s / 60 % 60, 2, 10, zero).arg(s % 60, 2, 10, zero);
    return QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, zero);
}

} // namespace ty
