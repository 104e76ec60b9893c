#pragma once
// Ticks for a logarithmic value axis that label what a loss curve spans. QCustomPlot's log ticker puts ticks at
// powers of ten only, so a loss between 0.02 and 0.4 showed a single label (0.1), or none. This one picks the
// densest sequence that fits the range: 1-2-3-4-5-6-8 within about a decade, 1-2-5 within two, powers of ten
// beyond (every second or third power over many decades), and linear ticks for a range too narrow for any of
// them. Labels are plain numbers ("0.02", "0.5", "3", "1e-05"), never "2·10^-2".
// GUI thread, like the axis that owns it.

#include "qcustomplot_include.h"

namespace ty {

class LogAxisTicker : public QCPAxisTicker {
public:
    // The ticks generate() would place in `range` (lower > 0), for tests and for the axis.
    static QVector<double> ticksFor(const QCPRange &range);

protected:
    double getTickStep(const QCPRange &range) override;
    int getSubTickCount(double tickStep) override;
    QString getTickLabel(double tick, const QLocale &locale, QChar formatChar, int precision) override;
    QVector<double> createTickVector(double tickStep, const QCPRange &range) override;
};

} // namespace ty
