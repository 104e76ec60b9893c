#include "log_axis_ticker.h"

#include <cmath>
#include <limits>

namespace ty {

namespace {

// Mantissas per decade by how many decades the range spans; an empty list means powers of ten only.
QVector<double> mantissasFor(double decades)
{
    if (decades <= 1.2)
        return {1, 2, 3, 4, 5, 6, 8};
    if (decades <= 2.5)
        return {1, 2, 5};
    return {};
}

} // namespace

QVector<double> LogAxisTicker::ticksFor(const QCPRange &range)
{
    const double lower = std::max(range.lower, std::numeric_limits<double>::min());
    const double upper = std::max(range.upper, lower);
    const double decades = std::log10(upper / lower);
    const int first = int(std::floor(std::log10(lower)));
    const int last = int(std::ceil(std::log10(upper)));
    QVector<double> ticks;
    const QVector<double> mantissas = mantissasFor(decades);
    if (!mantissas.isEmpty()) {
        for (int exponent = first; exponent <= last; ++exponent)
            for (double m : mantissas) {
                // Rounded to 3 significant digits, so 3 * 10^-2 is 0.03 and not 0.030000000000000002.
                const double value = QString::number(m * std::pow(10.0, exponent), 'g', 3).toDouble();
                if (value >= lower && value <= upper)
                    ticks << value;
            }
    } else {
        const int every = std::max(1, int(std::ceil(decades / 6.0)));  // at most about seven labels
        for (int exponent = first; exponent <= last; ++exponent)
            if (exponent % every == 0) {
                const double value = std::pow(10.0, exponent);
                if (value >= lower && value <= upper)
                    ticks << value;
            }
    }
    if (ticks.size() >= 2)
        return ticks;
    // Too narrow for any round sequence (a loss flat around 0.31): evenly spaced ticks, as a linear axis has.
    QCPAxisTicker linear;
    linear.setTickCount(5);
    QVector<double> even;
    QVector<QString> unusedLabels;
    QVector<double> unusedSubTicks;
    linear.generate(QCPRange(lower, upper), QLocale::c(), QLatin1Char('g'), 3, even, &unusedSubTicks, &unusedLabels);
    QVector<double> inside;
    for (double t : even)
        if (t >= lower && t <= upper)
            inside << t;
    return inside;
}

double LogAxisTicker::getTickStep(const QCPRange &range) { return std::log10(std::max(1.0, range.upper / range.lower)); }

int LogAxisTicker::getSubTickCount(double decades)
{
    // Between powers of ten, the sub ticks at 2..9 times each power are the usual log-paper lines; between
    // 1-2-5 ticks they would only clutter.
    return mantissasFor(decades).isEmpty() && decades <= 6.0 ? 8 : 0;
}

QString LogAxisTicker::getTickLabel(double tick, const QLocale &locale, QChar, int)
{
    return locale.toString(tick, 'g', 3);
}

QVector<double> LogAxisTicker::createTickVector(double, const QCPRange &range) { return ticksFor(range); }

} // namespace ty
